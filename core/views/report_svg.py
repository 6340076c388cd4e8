"""Small inline SVG charts for the rater-validation report (no script, no remote resource,
printable): point estimates with interval whiskers, and plain bars. Every label is escaped with
:func:`html.escape`; numbers are formatted here.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from html import escape
from typing import TypeGuard

ROW_H = 22
LABEL_W = 300
PLOT_W = 360
PAD = 12


def _x(value: float, lo: float, hi: float) -> float:
    """Pixel x of ``value`` on the axis ``[lo, hi]`` (clipped)."""
    frac = (min(max(value, lo), hi) - lo) / (hi - lo)
    return LABEL_W + PAD + frac * PLOT_W


def _ok(value: float | None) -> TypeGuard[float]:
    return value is not None and not (isinstance(value, float) and math.isnan(value))


def _axis(lo: float, hi: float, y: float, ticks: Sequence[float]) -> list[str]:
    out = [
        f'<line x1="{_x(lo, lo, hi):.1f}" y1="{y:.1f}" x2="{_x(hi, lo, hi):.1f}" '
        f'y2="{y:.1f}" stroke="#888"/>'
    ]
    for t in ticks:
        x = _x(t, lo, hi)
        out.append(f'<line x1="{x:.1f}" y1="{y:.1f}" x2="{x:.1f}" y2="{y + 4:.1f}" stroke="#888"/>')
        out.append(
            f'<text x="{x:.1f}" y="{y + 16:.1f}" font-size="11" text-anchor="middle">{t:g}</text>'
        )
    return out


def interval_chart(
    rows: Sequence[tuple[str, float | None, float | None, float | None]],
    *,
    lo: float = 0.0,
    hi: float = 1.0,
    reference: float | None = None,
    title: str = "",
) -> str:
    """One line per ``(label, estimate, low, high)``: a dot at the estimate and a whisker over
    the interval (a row without an estimate shows "no estimate"). ``reference``: a dashed
    vertical line (e.g. 0.5 = no preference)."""
    height = PAD * 2 + ROW_H * max(len(rows), 1) + 24
    width = LABEL_W + PLOT_W + PAD * 3 + 60
    parts = [
        f'<svg role="img" width="{width}" '
        f'height="{height}" viewBox="0 0 {width} {height}" class="chart">'
    ]
    if title:
        parts.append(f"<title>{escape(title)}</title>")
    if reference is not None:
        x = _x(reference, lo, hi)
        parts.append(
            f'<line x1="{x:.1f}" y1="{PAD}" x2="{x:.1f}" y2="{height - 24}" stroke="#aaa" '
            'stroke-dasharray="4 3"/>'
        )
    for i, (label, est, low, high) in enumerate(rows):
        y = PAD + ROW_H * i + ROW_H / 2
        parts.append(
            f'<text x="{LABEL_W:.1f}" y="{y + 4:.1f}" font-size="12" text-anchor="end">'
            f"{escape(str(label))}</text>"
        )
        if est is None or not _ok(est):
            parts.append(
                f'<text x="{LABEL_W + PAD:.1f}" y="{y + 4:.1f}" font-size="11" fill="#777">'
                "no estimate</text>"
            )
            continue
        if _ok(low) and _ok(high):
            parts.append(
                f'<line x1="{_x(low, lo, hi):.1f}" y1="{y:.1f}" x2="{_x(high, lo, hi):.1f}" '
                f'y2="{y:.1f}" stroke="#1f5fa8" stroke-width="2"/>'
            )
        parts.append(
            f'<circle cx="{_x(est, lo, hi):.1f}" cy="{y:.1f}" r="4" fill="#1f5fa8"/>'
            f'<text x="{LABEL_W + PLOT_W + PAD * 2:.1f}" y="{y + 4:.1f}" font-size="11">'
            f"{est:.2f}</text>"
        )
    ticks = [lo + (hi - lo) * k / 4 for k in range(5)]
    parts += _axis(lo, hi, height - 24, ticks)
    parts.append("</svg>")
    return "".join(parts)


def bar_chart(
    rows: Sequence[tuple[str, float]],
    *,
    hi: float = 1.0,
    target: float | None = None,
    title: str = "",
) -> str:
    """Horizontal bars of ``(label, value)`` on ``[0, hi]``; ``target``: a dashed line."""
    height = PAD * 2 + ROW_H * max(len(rows), 1) + 24
    width = LABEL_W + PLOT_W + PAD * 3 + 60
    parts = [
        f'<svg role="img" width="{width}" '
        f'height="{height}" viewBox="0 0 {width} {height}" class="chart">'
    ]
    if title:
        parts.append(f"<title>{escape(title)}</title>")
    for i, (label, value) in enumerate(rows):
        y = PAD + ROW_H * i
        x0, x1 = _x(0, 0, hi), _x(value, 0, hi)
        parts.append(
            f'<text x="{LABEL_W:.1f}" y="{y + ROW_H / 2 + 4:.1f}" font-size="12" '
            f'text-anchor="end">{escape(str(label))}</text>'
            f'<rect x="{x0:.1f}" y="{y + 4:.1f}" width="{max(x1 - x0, 0):.1f}" '
            f'height="{ROW_H - 8}" fill="#5b8fd1"/>'
            f'<text x="{x1 + 4:.1f}" y="{y + ROW_H / 2 + 4:.1f}" font-size="11">{value:.2f}</text>'
        )
    if target is not None:
        x = _x(target, 0, hi)
        parts.append(
            f'<line x1="{x:.1f}" y1="{PAD}" x2="{x:.1f}" y2="{height - 24}" stroke="#c0392b" '
            'stroke-dasharray="4 3"/>'
        )
    parts += _axis(0, hi, height - 24, [hi * k / 4 for k in range(5)])
    parts.append("</svg>")
    return "".join(parts)


def line_chart(
    series: Sequence[tuple[str, Sequence[tuple[float, float]], bool]],
    *,
    x_hi: float,
    marker: float,
    marker_label: str,
    reference: float | None = None,
    reference_label: str = "",
    x_label: str = "",
    title: str = "",
) -> str:
    """Lines over ``x`` in ``[0, x_hi]``, ``y`` in ``[0, 1]``: per ``(label, points, steps)`` a
    polyline (``steps``: a step line, constant until the next point); ``marker``: a solid
    vertical line with ``marker_label``; ``reference``: a dashed horizontal line (with
    ``reference_label``)."""
    left, top, w, h = 50, 26, PLOT_W + 120, 170
    width, height = left + w + PAD * 2, top + h + 64

    def px(x: float, y: float) -> str:
        cx = left + min(max(x, 0.0), x_hi) / x_hi * w
        return f"{cx:.1f},{top + (1 - min(max(y, 0.0), 1.0)) * h:.1f}"

    parts = [
        f'<svg role="img" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
        'class="chart">'
    ]
    if title:
        parts.append(f"<title>{escape(title)}</title>")
    parts.append(f'<rect x="{left}" y="{top}" width="{w}" height="{h}" fill="none" stroke="#ccc"/>')
    for y in (0.0, 0.25, 0.5, 0.75, 1.0):
        parts.append(
            f'<text x="{left - 6}" y="{top + (1 - y) * h + 4:.1f}" font-size="11" '
            f'text-anchor="end">{y:g}</text>'
        )
    for k in range(7):
        x = x_hi * k / 6
        parts.append(
            f'<text x="{left + x / x_hi * w:.1f}" y="{top + h + 16}" font-size="11" '
            f'text-anchor="middle">{x:.2g}</text>'
        )
    if x_label:
        parts.append(
            f'<text x="{left + w / 2:.1f}" y="{top + h + 32}" font-size="11" '
            f'text-anchor="middle">{escape(x_label)}</text>'
        )
    if reference is not None:
        parts.append(
            f'<polyline points="{px(0, reference)} {px(x_hi, reference)}" fill="none" '
            'stroke="#999" stroke-dasharray="2 3"/>'
            f'<text x="{left + w - 4}" y="{top + (1 - reference) * h - 4:.1f}" font-size="10" '
            f'text-anchor="end" fill="#777">{escape(reference_label)}</text>'
        )
    colours = ("#1f5fa8", "#e67e22", "#27ae60")
    for i, (label, points, steps) in enumerate(series):
        shown = sorted((x, y) for x, y in points if _ok(y))
        coords: list[str] = []
        for k, (x, y) in enumerate(shown):
            if steps and k:
                coords.append(px(x, shown[k - 1][1]))
            coords.append(px(x, y))
        colour = colours[i % len(colours)]
        dash = "" if steps else ' stroke-dasharray="6 3"'
        parts.append(
            f'<polyline points="{" ".join(coords)}" fill="none" stroke="{colour}" '
            f'stroke-width="2"{dash}/>'
            f'<text x="{left + 10 + 190 * i}" y="{top + h + 52}" font-size="11" '
            f'fill="{colour}">{escape(label)}</text>'
        )
    mx = left + min(max(marker, 0.0), x_hi) / x_hi * w
    parts.append(
        f'<line x1="{mx:.1f}" y1="{top}" x2="{mx:.1f}" y2="{top + h}" stroke="#c0392b" '
        f'stroke-width="2" data-marker="{marker:g}"/>'
        f'<text x="{mx:.1f}" y="{top - 8}" font-size="11" text-anchor="middle" '
        f'fill="#c0392b">{escape(marker_label)}</text>'
    )
    parts.append("</svg>")
    return "".join(parts)
