"""The one escaping path for every string from data shown as Markdown (``st.markdown``, captions,
button/expander/widget labels, warnings, messages, and ``st.table`` cells).

Every ASCII punctuation character is backslash-escaped, so no link, image, HTML, ``:red[...]``
directive or LaTeX can form; line breaks are kept as hard breaks. The escaped result is an
:class:`InertMarkdown`, which :func:`md` passes through unchanged (no double escaping).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the type only: this module is imported before pandas is needed
    import pandas as pd

_PUNCT = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:&\"'=%^@,;?/])")


class InertMarkdown(str):
    """Markdown built by this module from escaped data: safe to render as it is."""

    __slots__ = ()


def escape_markdown(text: str) -> InertMarkdown:
    """``text`` as inert Markdown: punctuation escaped, line breaks kept (hard breaks)."""
    escaped = _PUNCT.sub(r"\\\1", str(text or ""))
    return InertMarkdown(escaped.replace("\r\n", "\n").replace("\n", "  \n"))


def highlight_markdown(text: str, terms: list[str]) -> InertMarkdown:
    """Escaped ``text`` with every case-insensitive occurrence of ``terms`` in **bold**."""
    terms = sorted({t for t in terms if t and t.strip()}, key=len, reverse=True)
    if not terms:
        return escape_markdown(text)
    pattern = re.compile("|".join(re.escape(t) for t in terms), re.I)
    out, pos = [], 0
    for m in pattern.finditer(text):
        out.append(escape_markdown(text[pos : m.start()]))
        out.append("**" + escape_markdown(m.group(0)) + "**")
        pos = m.end()
    out.append(escape_markdown(text[pos:]))
    return InertMarkdown("".join(out))


def md(value: object) -> InertMarkdown:
    """Any value (text, number, ``None``) as inert Markdown: the one path for data in labels,
    captions, buttons, expanders, warnings and messages (``None`` becomes ``""``). Markdown this
    module already built (an :class:`InertMarkdown`) is returned unchanged."""
    if isinstance(value, InertMarkdown):
        return value
    return InertMarkdown("" if value is None else escape_markdown(str(value)))


def inert_table(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` for ``st.table``, which renders Markdown in its cells, column names and index:
    every one of them as inert text (:func:`escape_markdown`), missing values as empty cells."""
    out = table.astype(object).where(table.notna(), "")
    out = out.map(lambda v: escape_markdown(str(v)))
    out.columns = [escape_markdown(str(c)) for c in out.columns]
    if out.index.inferred_type != "integer":  # labels (a default or integer index stays)
        out.index = [escape_markdown(str(i)) for i in out.index]
    return out


# ------------------------------------------------------------------------------------------
# Charts: plotly renders a subset of HTML (``<span style>``, ``<a href>``, ``<b>``, ``<br>``) in
# titles, tick labels, legends, hover text, text labels and annotations.
# ------------------------------------------------------------------------------------------

#: Keys whose values plotly treats as templates (``%{x}`` placeholders, intended ``<br>``): built
#: in core with data passed through :func:`chart_template_text`, so :func:`inert_figure` skips them
#: (``template`` is the layout's theme: no data).
_TEMPLATE_KEYS = ("hovertemplate", "texttemplate", "template")


def chart_text(value: object) -> str:
    """``value`` as literal text in a plotly figure: ``&``, ``<`` and ``>`` as HTML entities, which
    plotly decodes for display, so no tag from data forms."""
    text = "" if value is None else str(value)
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def chart_template_text(value: object) -> str:
    """``value`` for a piece of a plotly hover or text template: :func:`chart_text` and also
    ``%`` as ``&#37;``, so a name holding ``%{x}`` is shown as it is, not filled in."""
    return chart_text(value).replace("%", "&#37;")


def _inert(value: Any) -> Any:
    if isinstance(value, str):
        return chart_text(value)
    if isinstance(value, dict):
        return {k: (v if k.endswith(_TEMPLATE_KEYS) else _inert(v)) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_inert(v) for v in value]
    if getattr(value, "dtype", None) is not None and value.dtype.kind in "OUS":  # numpy strings
        return [_inert(v) for v in value.tolist()]
    return value


def _changes(spec: dict[str, Any]) -> dict[str, Any]:
    """The entries of a plotly JSON dict that :func:`_inert` changes (nested dicts as dicts)."""
    out: dict[str, Any] = {}
    for k, v in spec.items():
        if k.endswith(_TEMPLATE_KEYS):
            continue
        if isinstance(v, dict):
            if sub := _changes(v):
                out[k] = sub
            continue
        new = _inert(v)
        if isinstance(new, str):
            changed = new != v
        elif isinstance(new, list):  # unchanged items come back as the same objects
            changed = len(new) != len(v) or any(a is not b for a, b in zip(new, v, strict=False))
        else:
            changed = False  # a number, bool or numeric array: no text
        if changed:
            out[k] = new
    return out


def inert_figure(fig: Any) -> Any:
    """The plotly figure ``fig`` with every string (category values on the axes, text, hover
    text, trace names, custom data, titles, legend, annotations) made :func:`chart_text`, in
    place; template keys (``hovertemplate``, ``texttemplate``) are left as built. The one path
    every figure a page shows goes through; returns ``fig``."""
    spec = fig.to_plotly_json()
    for trace, data in zip(fig.data, spec["data"]):
        if changes := _changes(data):
            trace.update(changes)
    if changes := _changes(spec["layout"]):
        fig.layout.update(changes)
    return fig
