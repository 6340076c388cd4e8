"""Table ``adjudications``: the only module with SQL on it (an adjudicator's settled label of
an item people disagree on).

Adjudications are append-only (triggers abort UPDATE and DELETE): a changed decision is a new row
whose ``supersedes`` names the adjudicator's previous one. The "not superseded" condition is
:func:`core.store.schema.not_superseded`; rows come back decoded by
:func:`core.store.connection.rows`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any, Self

from core.store.connection import rows, utcnow
from core.store.schema import not_superseded

if TYPE_CHECKING:
    from core.store.engine import Database

_EFFECTIVE = not_superseded("adjudications", "a")


@dataclass(frozen=True, slots=True, kw_only=True)
class NewAdjudication:
    """An adjudicator's settled ``label`` of an item (``item_key``) of ``task``, to append."""

    task: str  # a registered label task's name (core.annotation.task_registry)
    item_key: str
    label: str
    adjudicator: str
    rationale: str = ""
    supersedes: int | None = None
    created_at: str = field(default_factory=utcnow)


@dataclass(frozen=True, slots=True, kw_only=True)
class Adjudication(NewAdjudication):
    """A stored row of ``adjudications``."""

    id: int

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> Self:
        """The record of an ``adjudications`` row."""
        return cls(
            id=int(row["id"]),
            task=str(row["task"]),
            item_key=row["item_key"],
            label=row["label"],
            adjudicator=row["adjudicator"],
            rationale=row["rationale"],
            supersedes=row["supersedes"],
            created_at=row["created_at"],
        )


def insert_adjudication(db: Database, new: NewAdjudication) -> int:
    """Append one adjudication row; returns its id."""
    row = {f.name: getattr(new, f.name) for f in fields(NewAdjudication)}
    row["task"] = str(new.task)
    return int(db.table("adjudications").insert(row).last_pk or 0)


def effective_adjudications(db: Database, task: str) -> list[Adjudication]:
    """The effective (not superseded) adjudications of ``task``, oldest first."""
    found = rows(
        db,
        f"select a.* from adjudications a where a.task = ? and {_EFFECTIVE} order by a.id",
        [task],
    )
    return [Adjudication.from_row(r) for r in found]


def own_adjudication(
    db: Database, task: str, item_key: str, adjudicator: str
) -> Adjudication | None:
    """``adjudicator``'s effective decision on ``item_key`` of ``task`` (the row their next
    decision supersedes), or None."""
    found = rows(
        db,
        "select a.* from adjudications a where a.task = ? and a.item_key = ? and "
        f"a.adjudicator = ? and {_EFFECTIVE} order by a.id desc limit 1",
        [task, item_key, adjudicator],
    )
    return Adjudication.from_row(found[0]) if found else None


def item_adjudication(db: Database, task: str, item_key: str) -> Adjudication | None:
    """The effective adjudication of ``item_key`` of ``task`` (the latest of any adjudicator),
    or None."""
    found = rows(
        db,
        f"select a.* from adjudications a where a.task = ? and a.item_key = ? and {_EFFECTIVE} "
        "order by a.id desc limit 1",
        [task, item_key],
    )
    return Adjudication.from_row(found[0]) if found else None
