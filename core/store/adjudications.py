"""Table ``adjudications``: the only module with SQL on it (an adjudicator's settled label of
an item people disagree on).

Adjudications are append-only (triggers abort UPDATE and DELETE): a changed decision is a new row
whose ``supersedes`` names the adjudicator's previous one. The "not superseded" condition is
:func:`core.store.statements.not_superseded`. SQLAlchemy Core over
:mod:`core.store.tables_people` (issue 33): nothing here is translated for PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any, Self

import sqlalchemy as sa

from core.store.connection import utcnow
from core.store.statements import all_rows, not_superseded, run
from core.store.tables_people import adjudications

if TYPE_CHECKING:
    from core.store.engine import Database

_A = adjudications.alias("a")
#: The effective (not superseded) adjudications, alias ``a``.
_EFFECTIVE = sa.select(_A).where(not_superseded(adjudications, _A))


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
    added = run(db, sa.insert(adjudications).values(**row).returning(adjudications.c.id))
    return int(added.fetchone()[0])


def _latest(db: Database, query: sa.Select[Any]) -> Adjudication | None:
    found = all_rows(db, query.order_by(_A.c.id.desc()).limit(1))
    return Adjudication.from_row(found[0]) if found else None


def effective_adjudications(db: Database, task: str) -> list[Adjudication]:
    """The effective (not superseded) adjudications of ``task``, oldest first."""
    query = _EFFECTIVE.where(_A.c.task == task).order_by(_A.c.id)
    return [Adjudication.from_row(r) for r in all_rows(db, query)]


def own_adjudication(
    db: Database, task: str, item_key: str, adjudicator: str
) -> Adjudication | None:
    """``adjudicator``'s effective decision on ``item_key`` of ``task`` (the row their next
    decision supersedes), or None."""
    return _latest(
        db,
        _EFFECTIVE.where(
            _A.c.task == task, _A.c.item_key == item_key, _A.c.adjudicator == adjudicator
        ),
    )


def item_adjudication(db: Database, task: str, item_key: str) -> Adjudication | None:
    """The effective adjudication of ``item_key`` of ``task`` (the latest of any adjudicator),
    or None."""
    return _latest(db, _EFFECTIVE.where(_A.c.task == task, _A.c.item_key == item_key))
