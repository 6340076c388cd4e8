"""Table ``validation_items``: the only module with SQL on it (items put into the team's queue
with an overlap so that an auto-rater can be validated; see
:mod:`core.store.migrations.m0680_validation_items`)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from core.store.connection import rows

if TYPE_CHECKING:
    from core.store.engine import Database


def insert_validation_items(db: Database, found: Iterable[dict[str, Any]]) -> int:
    """Append rows (``task, item_key, rater, overlap, requested_by, created_at``); one already
    requested for the same task, item and rater is left as it is. Returns the rows added."""
    added = 0
    for row in found:
        cur = db.execute(
            "insert or ignore into validation_items "
            "(task, item_key, rater, overlap, requested_by, created_at) values (?, ?, ?, ?, ?, ?)",
            [
                row["task"],
                row["item_key"],
                row["rater"],
                row["overlap"],
                row["requested_by"],
                row["created_at"],
            ],
        )
        added += cur.rowcount
    return added


def validation_overlaps(db: Database, task: str) -> dict[str, int]:
    """Item key -> the largest overlap requested for it in ``task``, in order of first request."""
    found = rows(
        db,
        "select item_key, max(overlap) as overlap, min(id) as first from validation_items "
        "where task = ? group by item_key order by first",
        [task],
    )
    return {r["item_key"]: int(r["overlap"]) for r in found}


def validation_requests(db: Database, task: str, rater: str | None = None) -> list[dict[str, Any]]:
    """Every request of ``task`` (of ``rater`` when given), oldest first."""
    where, params = "task = ?", [task]
    if rater is not None:
        where, params = where + " and rater = ?", [task, rater]
    return rows(db, f"select * from validation_items where {where} order by id", params)
