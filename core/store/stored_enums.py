"""Stored status, kind and role text back to its ``StrEnum``: the one place an unknown value
becomes a :class:`core.errors.StoreError` naming the column (never a bare ``ValueError``)."""

from __future__ import annotations

from enum import StrEnum
from typing import Any, TypeVar

from core.errors import StoreError

E = TypeVar("E", bound=StrEnum)


def stored_enum(kind: type[E], value: Any, column: str, row_id: Any = None) -> E:
    """``kind(value)``; StoreError when ``value`` is not one of ``kind``'s values."""
    try:
        return kind(value)
    except ValueError:
        where = f" of row {row_id!r}" if row_id is not None else ""
        known = ", ".join(kind)
        raise StoreError(f"column {column!r}{where} holds {value!r}, not one of: {known}") from None
