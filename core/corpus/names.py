"""The one rule for every name and id: system, judge and rater names, question and document ids,
account names, setting keys.

A name is Unicode text, NFC-normalised, 1 to 128 characters, with no control character
(``Cc``), no format character (``Cf``: bidi overrides and isolates, zero-width spaces and joiners,
the BOM), no surrogate, private-use or unassigned code point, no line or paragraph separator, no
space other than the ordinary space ``U+0020``, and no leading or trailing space. Letters of any
script, accents, spaces inside and punctuation (``| : ( ) # /``...) are allowed: keys are
structures (:mod:`core.annotation.pairwise`), and pages render names through one escaping path.

Every place a name enters (importers and layouts, EXAM and XRAG inputs, accounts, settings, CLI
options) calls :func:`check_name`; docs/input-formats.md lists the places. Look-alikes (two
different names with one confusable skeleton, Unicode TR39) are found by
:func:`core.corpus.confusables.check_lookalikes`; every comparison and duplicate check sees
names in :func:`normal_form` (NFC, trimmed).
"""

from __future__ import annotations

import unicodedata

from core.errors import InputError

MAX_LENGTH = 128
NAME_RULE = (
    "1-128 characters of Unicode text; no control, bidi-override or zero-width characters, "
    "no leading or trailing space"
)
_REFUSED_CATEGORIES = {
    "Cc": "control character",
    "Cf": "invisible format character (bidi override or zero-width)",
    "Cs": "surrogate",
    "Co": "private-use character",
    "Cn": "unassigned code point",
    "Zl": "line separator",
    "Zp": "paragraph separator",
    "Zs": "space other than the ordinary space",
}


def name_problem(value: object) -> str | None:
    """Why ``value`` is not a valid name (see the module docstring), or ``None`` when it is one.

    ``value`` is judged after NFC normalisation, as :func:`check_name` stores it."""
    if not isinstance(value, str):
        kind = "true/false" if isinstance(value, bool) else type(value).__name__
        return f"expected text, found {kind}"
    text = unicodedata.normalize("NFC", value)
    if not text:
        return "empty name"
    if len(text) > MAX_LENGTH:
        return f"name of {len(text)} characters, longer than {MAX_LENGTH} ({NAME_RULE})"
    if text != text.strip():
        return f"leading or trailing space ({NAME_RULE})"
    if text.isascii() and text.isprintable():  # letters, digits, punctuation, symbols, " ":
        return None  # no refused category (the loop below, without a call per character)
    for position, ch in enumerate(text, start=1):
        category = unicodedata.category(ch)
        if category in _REFUSED_CATEGORIES and ch != " ":
            return (
                f"{_REFUSED_CATEGORIES[category]} U+{ord(ch):04X} at position {position} "
                f"({NAME_RULE})"
            )
    return None


def all_names(values: list[str]) -> bool:
    """Whether every one of ``values`` is a valid name (:func:`name_problem` is ``None`` for
    each). Printable ASCII throughout (tested once on the joined text: the common case of
    thousands of question ids) needs only the length and space rules per value."""
    joined = " ".join(values)
    if joined.isascii() and joined.isprintable():  # NFC is the identity, no refused category
        return all(v and len(v) <= MAX_LENGTH and v == v.strip() for v in values)
    return all(name_problem(v) is None for v in values)


def normal_form(text: str) -> str:
    """``text`` NFC-normalised and trimmed: the form every comparison and duplicate check of
    names and ids sees (``José`` composed or decomposed, `` alice`` and ``alice`` are one)."""
    return unicodedata.normalize("NFC", text).strip()


def shown(value: object, limit: int = 80) -> str:
    """``repr(value)`` cut to ``limit`` characters: how an error message quotes a bad name (a
    10 MB name is not echoed back)."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def check_name(
    value: object,
    what: str,
    *,
    path: str | None = None,
    line: int | None = None,
    column: str | None = None,
) -> str:
    """``value`` NFC-normalised when it is a valid name; an ``InputError`` naming ``what``
    (and the file, line and column when given) otherwise."""
    problem = name_problem(value)
    if problem:
        raise InputError(f"{what} {shown(value)}: {problem}", path=path, line=line, column=column)
    return unicodedata.normalize("NFC", str(value))
