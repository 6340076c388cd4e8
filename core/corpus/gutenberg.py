"""Project Gutenberg clean-up: header, footer, licence, produced-by and transcriber's-note blocks.

Handles every header/footer generation seen in the wild:

* 1990s etexts whose header is the licence ("**The Project Gutenberg Etext of ...**",
  "*****SMALL PRINT!*****") ending with ``*END*THE SMALL PRINT! FOR PUBLIC DOMAIN ETEXTS*...``;
* 2000s files: "The Project Gutenberg EBook of TITLE, by AUTHOR", ``Title:``/``Author:`` fields and
  ``*** START OF THIS PROJECT GUTENBERG EBOOK ... ***`` (or ``***START OF THE ...***``), ended by
  "End of the Project Gutenberg EBook of ..." and/or ``*** END OF THIS PROJECT GUTENBERG ...``;
* current files (``*** START OF THE PROJECT GUTENBERG EBOOK ... ***``).

The footer markers apply whether or not a start marker was found. Leading "Produced by",
"E-text prepared by", "Transcribed from" and transcriber's-note paragraphs are removed from the body,
as is a trailing transcriber's-note section.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_PG = r"PROJECT\s+GUTENBERG"
_BOOK = r"(?:E-?BOOK|E-?TEXT)"
# Lines that end the header: the body starts on the next line.
_START_MARKERS = [
    re.compile(rf"^[ \t]*\*{{3}}\s*START\s+OF\s+(?:THE|THIS)\s+{_PG}.*$", re.I | re.M),
    re.compile(r"^[ \t]*\*?END\*?\s*THE SMALL PRINT!.*$", re.I | re.M),
    re.compile(rf"^[ \t]*\*{{3}}\s*START\s+OF\s+{_PG}.*$", re.I | re.M),
]
# Lines that start the footer: the body ends before the earliest one after the header. (The
# third also sits in some 1990s headers, so it never bounds the header search.)
_END_MARKERS = [
    re.compile(rf"^[ \t]*\*{{3}}\s*END\s+OF\s+(?:THE\s+|THIS\s+)?{_PG}.*$", re.I | re.M),
    re.compile(
        rf"^[ \t]*\**[ \t]*End\s+of\s+(?:the\s+|this\s+)?{_PG}(?:'s|\u2019s)?\b.*$", re.I | re.M
    ),
    re.compile(r"^[ \t]*\*+\s*This file should be named .*$", re.I | re.M),
]
# Evidence that the top of a file is a Gutenberg header even without a start marker.
_HEADER_HINT = re.compile(
    rf"{_PG}\s+{_BOOK}|{_PG}'?s?\s+{_BOOK}|^\s*Release Date:|\[E-?(?:Book|text)\s*#\d+\]",
    re.I | re.M,
)
_HEADER_LAST_LINE = re.compile(
    r"^\s*(?:Release Date|Posting Date|Last Updated|Language|Character set encoding|"
    r"\[?Most recently updated|\[This file was first posted|Edition:|Title|Author).*$",
    re.I | re.M,
)
_FIELD = re.compile(
    r"^[ \t]*(Title|Author|Language|Translator|Editor|Illustrator):[ \t]*(.*)$", re.I | re.M
)
_TITLE_LINE = re.compile(
    rf"^\W*(?:The\s+)?{_PG}'?s?\s+{_BOOK}(?:\s+of|,)\s+(.+?)(?:,?\s+by\s+(.+?))?\W*$",
    re.I,
)
_CREDIT = re.compile(
    r"^\s*[\[(]?\s*(?:Produced by|E-?text prepared by|E-?book prepared by|"
    r"This (?:e-?text|e-?book|file) was (?:prepared|produced|created)|Transcribed (?:from|by)|"
    r"Scanned (?:by|and proofed)|Prepared by|HTML version by|"
    r"Transcriber\W?s\s+notes?|Note from the transcriber)",
    re.I,
)
_ERRATA = re.compile(r"^\s*(?:Typographical errors corrected|Errata\b|Corrections made)", re.I)
_TRANSCRIBER_TAIL = re.compile(r"^[ \t]*[\[(]?\s*Transcriber\W?s\s+notes?\b.*$", re.I | re.M)
_MAX_HEADER_CHARS = 12000


@dataclass(frozen=True)
class GutenbergText:
    """A cleaned Project Gutenberg text and what its header says."""

    body: str
    title: str
    author: str
    language: str
    had_header: bool
    removed: list[str] = field(default_factory=list)


def _first_marker(patterns: list[re.Pattern[str]], text: str) -> re.Match[str] | None:
    found = [m for p in patterns if (m := p.search(text))]
    return min(found, key=lambda m: m.start()) if found else None


def _start_of_body(text: str) -> tuple[int, str]:
    """Offset where the body starts and which rule found it ('' when no header)."""
    first_end = _first_marker(_END_MARKERS[:2], text)
    limit = first_end.start() if first_end else len(text)
    starts = sorted(
        (m for p in _START_MARKERS for m in p.finditer(text, 0, limit)), key=lambda m: m.start()
    )
    if starts:
        # A 1990s file may carry the small print and a later START line: take the last
        # start-type marker near the first one (never one inside the footer).
        window = starts[0].end() + _MAX_HEADER_CHARS
        last = [m for m in starts if m.start() <= window][-1]
        kind = "small print" if "SMALL PRINT" in last.group(0).upper() else "start marker"
        return last.end(), kind
    head = text[:_MAX_HEADER_CHARS]
    if not _HEADER_HINT.search(head[:3000]):
        return 0, ""
    lines = list(_HEADER_LAST_LINE.finditer(head))
    if not lines:
        return 0, ""
    # The header ends with the paragraph holding its last field line.
    para_end = re.compile(r"\n[ \t]*\n").search(text, lines[-1].end())
    return (para_end.end() if para_end else lines[-1].end()), "header fields"


def _fields(head: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for m in _FIELD.finditer(head):
        key, value = m.group(1).lower(), m.group(2).strip()
        # Continuation lines (indented, non-empty) belong to the same field.
        rest = head[m.end() :].split("\n")[1:]
        for line in rest:
            if not line.strip() or not line[:1].isspace() or _FIELD.match(line):
                break
            value = f"{value}: {line.strip()}"
        if value:
            out.setdefault(key, value)
    first = next((ln for ln in head.split("\n")[:6] if ln.strip()), "")
    title = _TITLE_LINE.match(first.strip().lstrip("\ufeff"))
    if title:
        out.setdefault("title", title.group(1).strip(" ,*"))
        if title.group(2):
            out.setdefault("author", title.group(2).strip(" ,*"))
    return out


def _unboxed(para: str) -> str:
    """A paragraph without ASCII box drawing (``+----+`` / ``| ... |``) around it."""
    lines = [ln.strip().strip("|").strip() for ln in para.split("\n")]
    return "\n".join(ln for ln in lines if ln and not re.fullmatch(r"[+\-=|]+", ln))


def _is_credit(para: str) -> bool:
    return bool(_CREDIT.match(_unboxed(para)) or _ERRATA.match(_unboxed(para)))


def _is_rule(para: str) -> bool:
    return bool(re.fullmatch(r"[\s*.\-_=]*", para)) or para.strip().lower() == "[illustration]"


def _strip_credits(body: str, removed: list[str]) -> str:
    """Drop produced-by / transcriber's-note paragraphs at the start and end of the body."""
    parts = re.split(r"(\n[ \t]*\n)", body)
    texts = parts[0::2]  # parts alternates paragraph, separator, paragraph, ...
    drop: set[int] = set()
    seen = i = 0
    while i < len(texts) and seen < 12:
        para = texts[i]
        if not para.strip() or _is_rule(para):
            i += 1
            continue
        seen += 1
        if _is_credit(para):
            drop.add(i)
            removed.append(_unboxed(para).split("\n")[0][:80])
            if para.lstrip().startswith("[") and "]" not in para:
                # A bracketed note running over several paragraphs: drop to the closing bracket.
                while i + 1 < len(texts) and "]" not in texts[i]:
                    i += 1
                    drop.add(i)
        i += 1
    j = len(texts) - 1
    while j > i:
        para = texts[j]
        if para.strip() and not _is_rule(para):
            if not _is_credit(para):
                break
            drop.add(j)
            removed.append(_unboxed(para).split("\n")[0][:80])
        j -= 1
    if drop:
        last = max(drop)
        # Rules (* * *) framing a dropped note go with it.
        for k in range(len(texts)):
            if k not in drop and _is_rule(texts[k]) and (k - 1 in drop or k + 1 in drop):
                drop.add(k)
        body = "".join(
            piece
            for n, piece in enumerate(parts)
            if not (n % 2 == 0 and n // 2 in drop)
            and not (n % 2 == 1 and (n // 2 in drop or n // 2 + 1 in drop) and n // 2 < last)
        )
    tails = list(_TRANSCRIBER_TAIL.finditer(body))
    tail = tails[-1] if tails else None
    if tail is not None and tail.start() > len(body) * 0.9:
        removed.append(tail.group(0).strip()[:80])
        body = body[: tail.start()]
    return body


def clean_gutenberg(text: str) -> GutenbergText:
    """Strip the Project Gutenberg header, footer and credits; read title/author/language.

    A text without any Gutenberg header or footer is returned unchanged apart from surrounding
    whitespace (and empty title/author/language). ``removed`` lists what was cut, for reports.
    """
    text = text.lstrip("\ufeff")
    start, kind = _start_of_body(text)
    removed: list[str] = []
    head = text[:start] if start else ""
    body = text[start:]
    end = _first_marker(_END_MARKERS, body)
    if end is not None:
        removed.append(f"footer from {end.group(0).strip()[:60]!r}")
        body = body[: end.start()]
    if kind:
        removed.insert(0, f"header ({kind})")
    had_header = bool(kind) or end is not None
    if had_header:
        body = _strip_credits(body, removed)
    fields = _fields(head) if kind else {}
    if not fields and end is not None and not kind:
        # Footer-only file: "End of the Project Gutenberg EBook of TITLE, by AUTHOR".
        m = re.search(rf"{_BOOK}\s+of\s+(.+?),\s+by\s+(.+?)\s*$", end.group(0), re.I)
        if m:
            fields = {"title": m.group(1).strip(), "author": m.group(2).strip()}
    return GutenbergText(
        body=body.strip("\n\r\t \ufeff"),
        title=fields.get("title", ""),
        author=fields.get("author", ""),
        language=fields.get("language", "English" if had_header else ""),
        had_header=had_header,
        removed=removed,
    )
