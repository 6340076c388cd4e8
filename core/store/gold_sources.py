"""Table ``gold_sources``: the only module with SQL on it (which human raters are gold sources).

Append-only (triggers abort UPDATE and DELETE): marking and unmarking are rows; the latest row of a
rater decides. SQLAlchemy Core over :mod:`core.store.tables_more` (issue 33).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Self

import sqlalchemy as sa

from core.store.connection import utcnow
from core.store.statements import all_rows, run
from core.store.tables_more import gold_sources

if TYPE_CHECKING:
    from core.store.engine import Database


class GoldAction(StrEnum):
    """What a row of ``gold_sources`` does to its rater."""

    ADD = "add"
    REMOVE = "remove"


@dataclass(frozen=True, slots=True, kw_only=True)
class NewGoldSource:
    """A change to append: ``marked_by`` makes ``rater`` a gold source or stops it being one."""

    rater: str
    action: GoldAction
    marked_by: str
    created_at: str = field(default_factory=utcnow)


@dataclass(frozen=True, slots=True, kw_only=True)
class GoldSource(NewGoldSource):
    """A stored row of ``gold_sources``."""

    id: int

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> Self:
        """The record of a ``gold_sources`` row."""
        return cls(
            id=int(row["id"]),
            rater=row["rater"],
            action=GoldAction(row["action"]),
            marked_by=row["marked_by"],
            created_at=row["created_at"],
        )


def insert_gold_source_change(db: Database, new: NewGoldSource) -> GoldSource:
    """Append one ``add`` / ``remove`` row; returns it as stored."""
    row = {
        "rater": new.rater,
        "action": str(new.action),
        "marked_by": new.marked_by,
        "created_at": new.created_at,
    }
    new_id = run(db, sa.insert(gold_sources).values(**row).returning(gold_sources.c.id))
    row_id = int(new_id.fetchone()[0])
    return GoldSource.from_row({**row, "id": row_id})


def active_gold_sources(db: Database) -> list[GoldSource]:
    """The rows that make their rater a gold source now (each rater's latest row, when it is an
    ``add``), by rater."""
    g, h = gold_sources.alias("g"), gold_sources.alias("h")
    latest = sa.select(sa.func.max(h.c.id)).where(h.c.rater == g.c.rater).scalar_subquery()
    query = sa.select(g).where(g.c.id == latest, g.c.action == "add").order_by(g.c.rater)
    found = all_rows(db, query)
    return [GoldSource.from_row(r) for r in found]
