"""Table ``validation_items``: the only module with SQL on it (items put into the team's queue
with an overlap so that an auto-rater can be validated; see
:mod:`core.store.migrations.m0680_validation_items`). SQLAlchemy Core over
:mod:`core.store.tables` (issue 33): nothing here is translated for PostgreSQL."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Self

import sqlalchemy as sa

from core.store.connection import utcnow
from core.store.prepared import rows_later
from core.store.statements import all_rows, insert, run
from core.store.tables import validation_items as items

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
    """Append requests; one already made for the same task, item and rater is left as it is
    (each dialect's ``on conflict do nothing``). Returns the rows added."""
    added = 0
    for new in found:
        row = {
            "task": str(new.task),
            "item_key": new.item_key,
            "rater": new.rater,
            "overlap": new.overlap,
            "requested_by": new.requested_by,
            "created_at": new.created_at,
        }
        added += run(db, insert(db, items).values(**row).on_conflict_do_nothing()).rowcount
    return added


#: :func:`validation_overlaps`' query (built once: every Side by side run reads it, issue 37).
_OVERLAPS = (
    sa.select(items.c.item_key, sa.func.max(items.c.overlap))
    .where(items.c.task == sa.bindparam("task"))
    .group_by(items.c.item_key)
    .order_by(sa.func.min(items.c.id))
)


def validation_overlaps(db: Database, task: str) -> dict[str, int]:
    """Item key -> the largest overlap requested for it in ``task``, in order of first request."""
    return validation_overlaps_later(db, task)()


def validation_overlaps_later(db: Database, task: str) -> Callable[[], dict[str, int]]:
    """:func:`validation_overlaps`, its statement sent with the connection's next one on
    PostgreSQL (:func:`core.store.prepared.rows_later`); call the result for the overlaps."""
    found = rows_later(db, _OVERLAPS, {"task": task})
    return lambda: {r[0]: int(r[1]) for r in found()}


def validation_requests(db: Database, task: str, rater: str | None = None) -> list[ValidationItem]:
    """Every request of ``task`` (of ``rater`` when given), oldest first."""
    query = sa.select(items).where(items.c.task == task).order_by(items.c.id)
    if rater is not None:
        query = query.where(items.c.rater == rater)
    return [ValidationItem.from_row(r) for r in all_rows(db, query)]
