"""Story collections: one book split into its stories, each stored as a document of its own.

Rule (:func:`find_stories`), on the text after the Gutenberg header is removed:

1. **Contents list.** A line ``CONTENTS`` (or ``TABLE OF CONTENTS``) followed by entries, one a
   line (a leading ``I.``/``1.``/``XII`` numeral and trailing page numbers or dot leaders are
   ignored), up to the first blank-line gap after at least one entry. Each entry is looked for,
   in order, as a heading line after the list: a line alone between blank lines whose text, with
   an optional leading numeral, equals the entry ignoring case and punctuation. When at least
   two entries are found, they are the stories.
2. **Headings.** Otherwise a story starts at each heading line alone between blank lines that is
   in capitals (``THE GIFT OF THE MAGI``) or a numbered title (``I. The Gift of the Magi``),
   is at most 80 characters long, and does not start with CHAPTER, BOOK, PART, VOLUME, CONTENTS,
   PREFACE, INTRODUCTION or THE END (those divide a novel, not a collection). At least two.

With a contents list, the headings found in the text win over it (:func:`read_stories`, issue
36): a heading in capitals after the list that is not written as any entry, but nearly as one
(``COUNTERPARTS`` where the list says "Couterparts": similarity of the title keys at least
``NEAR_TITLE``), starts that story under the heading's title, with a warning naming both; and the
number of stories is checked against the list (a warning names the entries not found).

A story runs from its heading to the next one (or the end of the text); the text before the
first story (title page, contents, preface) is not stored. No stories found: ``InputError``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import SequenceMatcher

from core.errors import InputError

_CONTENTS = re.compile(r"^[ \t]*(?:TABLE OF )?CONTENTS\.?[ \t]*$", re.I | re.M)
_NUMERAL = r"(?:[IVXLC]+|\d+)"
_ENTRY_NUMBER = re.compile(rf"^\s*{_NUMERAL}[.):]?\s+")
_ENTRY_PAGE = re.compile(r"(?:\s*\.{2,}\s*|\s{2,}|\s+)(?:\d+|[ivxlc]+)\s*$", re.I)
_NUMBERED_TITLE = re.compile(rf"^{_NUMERAL}\.\s+\S.*$")
_NOT_A_STORY = re.compile(
    r"^(?:CHAPTER|BOOK|PART|VOLUME|CONTENTS|TABLE OF CONTENTS|PREFACE|INTRODUCTION|THE END)\b",
    re.I,
)
_MIN_STORIES = 2
#: How alike (difflib ratio of the title keys) a heading and a contents entry must be for the
#: heading to stand for that entry ("couterparts" / "counterparts": 0.96).
NEAR_TITLE = 0.8


@dataclass(frozen=True)
class Story:
    """One story of a collection: its title and ``text[start:end]`` (heading included)."""

    title: str
    start: int
    end: int


def _key(text: str) -> str:
    """Comparison key of a title: numeral dropped, punctuation and case ignored."""
    text = _ENTRY_NUMBER.sub("", text.strip())
    return " ".join(re.sub(r"[^\w\s]", " ", text.casefold()).split())


def _lone_lines(text: str, start: int = 0) -> list[tuple[int, str]]:
    """``(offset, stripped line)`` of the non-empty lines with a blank line (or the text's edge)
    before and after, from ``start`` on."""
    out = []
    lines = text.split("\n")
    offset = 0
    for i, line in enumerate(lines):
        before = i == 0 or not lines[i - 1].strip()
        after = i == len(lines) - 1 or not lines[i + 1].strip()
        if offset >= start and line.strip() and before and after:
            out.append((offset, line.strip()))
        offset += len(line) + 1
    return out


def _contents_entries(text: str) -> tuple[list[str], int]:
    """The entries of the first contents list and the offset where the list ends."""
    m = _CONTENTS.search(text)
    if m is None:
        return [], 0
    entries: list[str] = []
    pos, blank_run = m.end() + 1, 0
    while pos < len(text):
        nl = text.find("\n", pos)
        nl = len(text) if nl < 0 else nl
        line = text[pos:nl].strip()
        pos = nl + 1
        if not line:
            blank_run += 1
            if entries and blank_run >= 2:
                break
            continue
        blank_run = 0
        title = _ENTRY_NUMBER.sub("", _ENTRY_PAGE.sub("", line)).strip(" .")
        if _key(title):
            entries.append(title)
        if len(entries) > 200:
            break
    return entries, pos


def _from_contents(text: str) -> list[tuple[int, str]]:
    entries, after = _contents_entries(text)
    found: list[tuple[int, str]] = []
    lines = _lone_lines(text, after)
    i = 0
    for entry in entries:
        want = _key(entry)
        for j in range(i, len(lines)):
            if _key(lines[j][1]) == want:
                found.append((lines[j][0], entry))
                i = j + 1
                break
    return found


def _is_heading(line: str) -> bool:
    if len(line) > 80 or _NOT_A_STORY.match(line) or not re.search(r"[A-Za-z]{2}", line):
        return False
    if re.fullmatch(rf"{_NUMERAL}\.?", line):
        return False
    letters = [c for c in line if c.isalpha()]
    return all(c.isupper() for c in letters) or bool(_NUMBERED_TITLE.match(line))


def _from_headings(text: str) -> list[tuple[int, str]]:
    return [
        (off, _ENTRY_NUMBER.sub("", line).strip())
        for off, line in _lone_lines(text)
        if _is_heading(line)
    ]


def _near_entry(heading: str, entries: list[str]) -> str | None:
    """The entry most like ``heading`` when at least :data:`NEAR_TITLE` alike, else None."""
    scored = [(SequenceMatcher(None, _key(e), _key(heading)).ratio(), e) for e in entries]
    best = max(scored, default=(0.0, ""))
    return best[1] if best[0] >= NEAR_TITLE else None


def _checked_contents(text: str) -> tuple[list[tuple[int, str]], list[str]]:
    """Story starts from the contents list and the headings in the text, and the warnings."""
    entries, after = _contents_entries(text)
    starts = _from_contents(text)
    used = [title for _, title in starts]
    taken = {off for off, _ in starts}
    warnings = []
    for off, line in _lone_lines(text, after):
        if off in taken or not _is_heading(line):
            continue
        heading = _ENTRY_NUMBER.sub("", line).strip()
        entry = _near_entry(heading, [e for e in entries if e not in used])
        if entry is not None:
            starts.append((off, heading))
            used.append(entry)
            warnings.append(
                f"the Contents lists {entry!r} but the heading in the text reads {heading!r}: "
                "the heading is used"
            )
    missing = [e for e in entries if e not in used]
    if missing and len(starts) >= _MIN_STORIES:
        shown = ", ".join(repr(e) for e in missing[:5]) + (", ..." if len(missing) > 5 else "")
        warnings.append(
            f"the Contents lists {len(entries)} stories but {len(starts)} were found as "
            f"headings in the text; not found: {shown}"
        )
    return sorted(starts), warnings


def read_stories(text: str) -> tuple[list[Story], list[str]]:
    """The stories of a collection by the rule in the module docstring ([] when fewer than
    two are found) and the warnings about the contents list (a heading that differs from its
    entry, entries not found)."""
    starts, warnings = _checked_contents(text)
    if len(starts) < _MIN_STORIES:
        starts, warnings = _from_headings(text), []
    if len(starts) < _MIN_STORIES:
        return [], []
    ends = [s for s, _ in starts[1:]] + [len(text)]
    stories = [
        Story(title.title() if title.isupper() else title, start, end)
        for (start, title), end in zip(starts, ends)
        if text[start:end].strip()
    ]
    return stories, warnings


def find_stories(text: str) -> list[Story]:
    """The stories of :func:`read_stories`, without its warnings."""
    return read_stories(text)[0]


def require_stories(text: str, path: str) -> tuple[list[Story], list[str]]:
    """:func:`read_stories`, or an ``InputError`` that says what was looked for."""
    stories, warnings = read_stories(text)
    if not stories:
        raise InputError(
            "--split-stories: no stories found (looked for a CONTENTS list whose titles recur "
            "as headings, then for at least two headings in capitals or 'I. Title' form); "
            "import it without --split-stories",
            path=path,
        )
    return stories, warnings


def collection_hint(text: str) -> str | None:
    """A warning for a book imported whole that looks like a story collection (a contents
    list whose titles, at least three and none a CHAPTER/BOOK/PART..., recur as headings),
    suggesting ``--split-stories``; None otherwise."""
    starts, _ = _checked_contents(text)
    titles = [t for _, t in starts]
    if len(titles) < 3 or any(_NOT_A_STORY.match(t) for t in titles):
        return None
    shown = ", ".join(repr(t) for t in titles[:3]) + (", ..." if len(titles) > 3 else "")
    return (
        f"this looks like a collection of {len(titles)} stories ({shown}); import it with "
        "--split-stories to keep each story a document of its own (entities and questions "
        "then stay within a story)"
    )
