"""The one escaping path for every string from data shown as Markdown (``st.markdown``, captions,
button/expander/widget labels, warnings, messages, and ``st.table`` cells).

Every ASCII punctuation character is backslash-escaped, so no link, image, HTML, ``:red[...]``
directive or LaTeX can form; line breaks are kept as hard breaks. The escaped result is an
:class:`InertMarkdown`, which :func:`md` passes through unchanged (no double escaping).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

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
