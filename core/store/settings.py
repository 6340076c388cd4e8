"""Workbench settings (table ``settings``): the known keys, their defaults and validation."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from core.errors import InputError
from core.store.connection import transaction

if TYPE_CHECKING:
    import sqlite_utils

#: Known settings: key -> (default, description). Values are non-negative integers.
SETTINGS: dict[str, tuple[int, str]] = {
    "annotations_per_item": (1, "how many annotators label each item (k, at least 1)"),
    "calibration_items": (0, "the first N items of each queue, shown to every annotator"),
    "queue_seed": (0, "seed of the queue orders and of the A/B orders"),
}
_MINIMUM = {"annotations_per_item": 1, "calibration_items": 0, "queue_seed": 0}


def get_setting(db: sqlite_utils.Database, key: str, default: str = "") -> str:
    """A value from table ``settings`` (text), or ``default``."""
    row = db.execute("select value from settings where key = ?", [key]).fetchone()
    return row[0] if row else default


def set_setting(db: sqlite_utils.Database, key: str, value: Any) -> None:
    """Set a value in table ``settings`` (no validation; see :func:`update_setting`)."""
    db.table("settings").upsert({"key": key, "value": str(value)}, pk="key")


def int_setting(db: sqlite_utils.Database, key: str) -> int:
    """A known integer setting, its default when unset or unreadable, never below its minimum."""
    default = SETTINGS[key][0]
    try:
        return max(_MINIMUM[key], int(get_setting(db, key, str(default))))
    except ValueError:
        return default


def all_settings(db: sqlite_utils.Database) -> dict[str, int]:
    """Every known setting with its current value."""
    return {key: int_setting(db, key) for key in SETTINGS}


def update_setting(db: sqlite_utils.Database, key: str, value: Any) -> int:
    """Validate and store a known setting; return the stored value. Bad input writes nothing."""
    if key not in SETTINGS:
        raise InputError(f"unknown setting {key!r}; known: {', '.join(SETTINGS)}")
    try:
        number = int(str(value).strip())
    except ValueError:
        raise InputError(f"{key} must be a whole number, not {value!r}") from None
    if number < _MINIMUM[key]:
        raise InputError(f"{key} must be at least {_MINIMUM[key]}")
    with transaction(db):
        set_setting(db, key, number)
    return number
