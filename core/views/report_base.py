"""Shared pieces of the rater-validation report's HTML (:mod:`core.views.report_html`): the
style sheet (screen and print), and the formatting helpers. Every value put in the page goes
through :func:`esc` (:func:`html.escape`); :func:`table` escapes each cell itself.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from html import escape
from typing import TYPE_CHECKING, Any

from core.views.numbers import interval, num

if TYPE_CHECKING:
    from core.views.rater_report.records import Share

CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif;margin:24px auto;
max-width:1060px;color:#1d1d1f;line-height:1.45;padding:0 16px}
h1{font-size:26px;margin:0 0 4px}h2{font-size:21px;border-bottom:2px solid #ddd;padding-bottom:4px;
margin-top:36px}h3{font-size:16px;margin:20px 0 6px}
table{border-collapse:collapse;margin:6px 0 12px;font-size:13px}
th,td{border:1px solid #d5d5d5;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#f3f4f6}.num{text-align:right;font-variant-numeric:tabular-nums}
.verdict{border-radius:8px;padding:12px 16px;font-size:17px;margin:10px 0}
.passes{background:#e6f4ea;border:2px solid #2e7d32}.fails{background:#fdecea;border:2px solid #c62828}
.nodata{background:#fff8e1;border:2px solid #f9a825}
.note{color:#555;font-size:13px}.caveat{background:#fff3cd;padding:6px 10px;border-radius:6px}
.card{border:1px solid #ddd;border-radius:8px;padding:8px 12px;margin:10px 0;break-inside:avoid}
.answer{white-space:pre-wrap;background:#fafafa;border-left:3px solid #ccc;padding:4px 8px;
font-size:13px}.metrics span{display:inline-block;margin-right:28px}
.metrics b{font-size:20px;display:block}code{background:#f3f4f6;padding:1px 4px;border-radius:3px}
.chart{max-width:100%;height:auto}
@media print{body{margin:0;max-width:none}section.rater{break-before:page}
h2,h3{break-after:avoid}.card,table,svg,.verdict{break-inside:avoid}
a{color:inherit;text-decoration:underline}a[href]::after{content:" (" attr(href) ")";font-size:11px}}
"""


def esc(value: Any) -> str:
    """Any value as HTML text (escaped; None as "")."""
    return "" if value is None else escape(str(value), quote=True)


def pct(value: Any) -> str:
    return num(value, ".0%")


def table(
    headers: Sequence[str],
    rows: Iterable[Sequence[Any]],
    numeric: frozenset[int] | set[int] = frozenset(),
) -> str:
    """A table; cells are escaped here (pass raw values, never HTML)."""
    head = "".join(f"<th>{esc(h)}</th>" for h in headers)
    body = "".join(
        "<tr>"
        + "".join(
            f'<td class="num">{esc(c)}</td>' if i in numeric else f"<td>{esc(c)}</td>"
            for i, c in enumerate(r)
        )
        + "</tr>"
        for r in rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def share_cells(s: Share) -> list[str]:
    return [pct(s["share"]), interval(s["low"], s["high"], ".0%"), str(s["n"])]
