"""The one reader's refusal of a column a file may not have (:func:`core.corpus.tabular.read_records`,
``optional=``; the columns each importer knows are in :mod:`core.corpus.known_columns`), so a
misspelt optional column (``raters``, ``modle``) is one ``error:`` line instead of a column
dropped without a word."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from core.errors import InputError


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
