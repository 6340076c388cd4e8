"""Stored row ids given as input (a result id in a verdict file, a mention or edit id on the
command line): a whole number from 1 to 2**63 - 1 written as a JSON integer or ASCII digits.
Anything else (a fraction, ``1e2``, ``1_0``, other scripts' digits, 25 digits that no 64-bit
database integer holds) is one ``InputError`` before the database is asked."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from core.errors import InputError

MAX_DIGITS = 18  # every 18-digit number fits a signed 64-bit integer


def is_row_id(text: str) -> bool:
    """Whether ``text`` is ASCII digits naming a possible row id."""
    return text.isascii() and text.isdigit() and len(text) <= MAX_DIGITS and int(text) > 0


def row_id(value: Any, what: str, path: str | Path | None = None, line: int | None = None) -> int:
    """``value`` (a JSON integer or text) as a row id; an ``InputError`` naming ``what``."""
    text = "" if isinstance(value, bool) else str(value).strip()
    if isinstance(value, float) or not is_row_id(text):
        raise InputError(
            f"{what} {str(value)[:40]!r} is not an id (a whole number of at most "
            f"{MAX_DIGITS} digits)",
            path=None if path is None else str(path),
            line=line,
            column=what,
        )
    return int(text)
