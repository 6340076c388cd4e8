"""The one escaping path for every string from data shown as Markdown (``st.markdown``, captions,
button/expander/widget labels, warnings, messages, and ``st.table`` cells).

Every ASCII punctuation character is backslash-escaped, so no link, image, HTML, ``:red[...]``
directive or LaTeX can form; line breaks are kept as hard breaks. Streamlit's Markdown (GFM)
also links bare ``http(s)://`` URLs, ``www.`` names and e-mail addresses by itself, escaped or
not: an invisible word joiner (U+2060) after each ``:`` before ``//``, after ``www`` before ``.``
and after each ``@`` breaks those patterns, so no link forms there either (the text reads the
same). The escaped result is an :class:`InertMarkdown`, which :func:`md` passes through
unchanged (no double escaping). :func:`split_code_blocks` cuts a text (a model's answer) into
prose and fenced code blocks: the pages escape the prose and show the code verbatim
(``st.code``, which renders no Markdown).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

if TYPE_CHECKING:  # the type only: this module is imported before pandas is needed
    import pandas as pd

_PUNCT = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:&\"'=%^@,;?/])")
#: Where GFM's autolink literals start: ``scheme:`` before ``//``, ``www`` before ``.``, and ``@``.
_AUTOLINK = re.compile(r"(?<=:)(?=//)|(?<=www)(?=\.)|(?<=@)", re.I)
#: WORD JOINER: invisible, no line break; not a character of a URL or an address to GFM.
_JOINER = "\u2060"
_INDENT = re.compile(r"^[ \t]+", re.M)


class InertMarkdown(str):
    """Markdown built by this module from escaped data: safe to render as it is."""

    __slots__ = ()


def _hold_indent(m: re.Match[str]) -> str:
    return "\u00a0" * len(m.group(0).expandtabs(4))


def escape_markdown(text: str) -> InertMarkdown:
    """``text`` as inert Markdown: punctuation escaped, line breaks kept (hard breaks), a line's
    leading spaces and tabs made no-break spaces (the indentation shows; no line becomes an
    indented code block, where the escapes would show as ``\\#`` and long lines be cut)."""
    return _lines(_punct(str(text or "")))


def _punct(text: str) -> str:
    """``text`` with its punctuation escaped and its autolink starts broken (a piece of a line:
    indentation left alone)."""
    return _PUNCT.sub(r"\\\1", _AUTOLINK.sub(_JOINER, text.replace("\r\n", "\n")))


def _lines(escaped: str) -> InertMarkdown:
    """Escaped text with its lines' indentation held and its line breaks made hard breaks."""
    return InertMarkdown(_INDENT.sub(_hold_indent, escaped).replace("\n", "  \n"))


#: Scripts written without spaces between words (Thai, kana, CJK ideographs): no word edges there
_SPACELESS = re.compile(r"[\u0e00-\u0e7f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


def _whole_word(term: str) -> str:
    """A pattern for ``term`` not inside a longer word (edges in a spaceless script are free)."""
    left = "" if _SPACELESS.match(term[0]) else r"(?<!\w)"
    right = "" if _SPACELESS.match(term[-1]) else r"(?!\w)"
    return left + re.escape(term) + right


def highlight_markdown(text: str, terms: list[str]) -> InertMarkdown:
    """Escaped ``text`` with every case-insensitive whole-word occurrence of ``terms`` in
    **bold** ("he" bolds "He said", never the "he" inside "Their"; in Chinese, Japanese or Thai,
    which put no spaces between words, any occurrence). Matching runs on the raw text; each piece
    is escaped afterwards."""
    terms = sorted({t for t in terms if t and t.strip()}, key=len, reverse=True)
    if not terms:
        return escape_markdown(text)
    pattern = re.compile("|".join(_whole_word(t) for t in terms), re.I)
    out, pos = [], 0
    for m in pattern.finditer(text):
        out.append(_punct(text[pos : m.start()]))
        out.append("**" + _punct(m.group(0)) + "**")
        pos = m.end()
    out.append(_punct(text[pos:]))
    return _lines("".join(out))


class Segment(NamedTuple):
    """A piece of a text: ``prose`` (to escape) or ``code`` (to show verbatim), with the code
    fence's language when it names one (a plain identifier such as ``python`` or ``c++``)."""

    kind: Literal["prose", "code"]
    text: str
    language: str | None = None


_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
_LANGUAGE = re.compile(r"[A-Za-z][A-Za-z0-9_+#.-]{0,29}")


def _fence_language(info: str) -> str | None:
    """The first word of a fence's info string when it is a plain identifier, else None."""
    words = info.split()
    return words[0].lower() if words and _LANGUAGE.fullmatch(words[0]) else None


def split_code_blocks(text: str) -> list[Segment]:
    """``text`` cut into prose and fenced code blocks, in order (empty prose dropped).

    A fence (CommonMark) is a line of at least three backticks or tildes, after any indentation;
    a backtick fence's info string holds no backtick (so a line such as ```` ```x``` ```` stays
    prose). The block ends at a line of the same character, at least as long, and nothing else;
    an unclosed block runs to the end of the text. The code keeps its characters exactly
    (``\\#``, ``\\(``, long lines), less the opening fence's indentation.
    """
    lines = str(text or "").replace("\r\n", "\n").split("\n")
    out: list[Segment] = []
    prose: list[str] = []

    def flush() -> None:
        body = "\n".join(prose).strip("\n")
        if body.strip():
            out.append(Segment("prose", body))
        prose.clear()

    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if not m or (m["fence"][0] == "`" and "`" in m["info"]):
            prose.append(lines[i])
            i += 1
            continue
        flush()
        fence, width = m["fence"], len(m["indent"])
        close = re.compile(rf"^[ \t]*{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$")
        code: list[str] = []
        i += 1
        while i < len(lines) and not close.match(lines[i]):
            line = lines[i]
            strip = len(line) - len(line.lstrip(" \t"))
            code.append(line[min(width, strip) :])
            i += 1
        i += 1  # the closing fence (or past the end)
        out.append(Segment("code", "\n".join(code), _fence_language(m["info"])))
    flush()
    return out


def md(value: object) -> InertMarkdown:
    """Any value (text, number, ``None``) as inert Markdown: the one path for data in labels,
    captions, buttons, expanders, warnings and messages (``None`` becomes ``""``). Markdown this
    module already built (an :class:`InertMarkdown`) is returned unchanged."""
    if isinstance(value, InertMarkdown):
        return value
    return InertMarkdown("" if value is None else escape_markdown(str(value)))


def option(value: object) -> str:
    """Any value as the plain text of a ``st.selectbox`` / ``st.multiselect`` option, which
    renders no Markdown (so it is never escaped: ``Mary: A Fiction``, not ``Mary\\: A Fiction``):
    ``None`` becomes ``""`` and runs of whitespace (line breaks too) one space."""
    return " ".join(("" if value is None else str(value)).split())


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
