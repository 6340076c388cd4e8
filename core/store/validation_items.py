"""Table ``validation_items``: the only module with SQL on it (items put into the team's queue
with an overlap so that an auto-rater can be validated; see
:mod:`core.store.migrations.m0680_validation_items`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Self

from core.store.connection import rows, utcnow

if TYPE_CHECKING:
    from core.store.engine import Database


@dataclass(frozen=True, slots=True, kw_only=True)
class NewValidationItem:
    """A request that ``overlap`` distinct people label item ``item_key`` of ``task``, so that
    auto-rater ``rater`` can be validated, made by ``requested_by``."""

    task: str  # a registered label task's name
    item_key: str
    rater: str
    overlap: int
    requested_by: str
    created_at: str = field(default_factory=utcnow)


@dataclass(frozen=True, slots=True, kw_only=True)
class ValidationItem(NewValidationItem):
    """A stored row of ``validation_items``."""

    id: int

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> Self:
        """The record of a ``validation_items`` row."""
        return cls(
            id=int(row["id"]),
            task=str(row["task"]),
            item_key=row["item_key"],
            rater=row["rater"],
            overlap=int(row["overlap"]),
            requested_by=row["requested_by"],
            created_at=row["created_at"],
        )


def insert_validation_items(db: Database, found: Iterable[NewValidationItem]) -> int:
    """Append requests; one already made for the same task, item and rater is left as it is.
    Returns the rows added."""
    added = 0
    for new in found:
        cur = db.execute(
            "insert or ignore into validation_items "
            "(task, item_key, rater, overlap, requested_by, created_at) values (?, ?, ?, ?, ?, ?)",
            [str(new.task), new.item_key, new.rater, new.overlap, new.requested_by, new.created_at],
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


def validation_requests(db: Database, task: str, rater: str | None = None) -> list[ValidationItem]:
    """Every request of ``task`` (of ``rater`` when given), oldest first."""
    where, params = "task = ?", [task]
    if rater is not None:
        where, params = where + " and rater = ?", [task, rater]
    found = rows(db, f"select * from validation_items where {where} order by id", params)
    return [ValidationItem.from_row(r) for r in found]
