"""Whole-record checks of the one reader (:func:`core.corpus.tabular.read_records`): a value
longer than :data:`MAX_FIELD_CHARS` (:func:`check_field_sizes`), and a column a file may not
have (:func:`check_columns`, ``optional=``; the columns each importer knows are in
:mod:`core.corpus.known_columns`), each one ``error:`` line instead of a value stored as it came
or a column dropped without a word."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from core.errors import InputError

#: The longest value one field may hold, in characters: ten times a long Wikipedia article or a
#: NarrativeQA summary, yet 30 MB pasted into one cell (or a stray quote that swallowed the rest
#: of a file) is refused instead of stored as one answer or rationale.
MAX_FIELD_CHARS = 1_000_000


def may_hold_long_value(text: str) -> bool:
    """Whether a line of ``text`` may be longer than :data:`MAX_FIELD_CHARS` (then the pyarrow
    path of :mod:`core.corpus.tabular_columns` leaves the file to the row reader): True when an
    aligned block of half that many characters holds no line feed; a longer line holds one, and
    the check costs one short ``find`` per block."""
    half = MAX_FIELD_CHARS // 2
    return any(text.find("\n", i, i + half) < 0 for i in range(0, len(text) - half + 1, half))


def check_field_sizes(records: list[tuple[int, dict[str, Any]]], path: str | Path) -> None:
    """Refuse the first value (a text, or a text in a list) longer than :data:`MAX_FIELD_CHARS`."""
    for line, record in records:
        for column, value in record.items():
            texts = value if isinstance(value, list) else [value]
            size = max((len(t) for t in texts if isinstance(t, str)), default=0)
            if size > MAX_FIELD_CHARS:
                raise InputError(
                    f"a value of {size:,} characters, more than the {MAX_FIELD_CHARS:,} one field "
                    "may hold (a stray quote, or a whole text pasted into one cell?); nothing "
                    "imported",
                    path=str(path),
                    line=line,
                    column=column,
                )


def check_columns(
    records: list[tuple[int, dict[str, Any]]], known: tuple[str, ...], path: str | Path
) -> None:
    """Refuse the first record with a column outside ``known`` (a CSV file's header is line 1):
    e.g. ``raters`` for ``rater``, which would leave every row to ``--rater``."""
    allowed = set(known)
    for line, record in records:
        unknown = sorted(set(record) - allowed)
        if unknown:
            raise InputError(
                f"unknown column {', '.join(repr(c) for c in unknown)} (the columns this file "
                f"may have: {', '.join(known)}); nothing imported",
                path=str(path),
                line=1 if Path(path).suffix.lower() in (".csv", ".tsv") else line,
            )
