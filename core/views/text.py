"""Untrusted text (books, model answers) made safe for ``st.markdown``.

Every ASCII punctuation character is backslash-escaped, so no link, image, HTML or directive can
form; line breaks are kept as hard breaks.
"""

from __future__ import annotations

import re

_PUNCT = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:&\"'=%^@,;?/])")


def escape_markdown(text: str) -> str:
    """``text`` as inert Markdown: punctuation escaped, line breaks kept (hard breaks)."""
    escaped = _PUNCT.sub(r"\\\1", str(text or ""))
    return escaped.replace("\r\n", "\n").replace("\n", "  \n")


def highlight_markdown(text: str, terms: list[str]) -> str:
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
    return "".join(out)
