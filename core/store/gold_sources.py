"""Table ``gold_sources``: the only module with SQL on it (which human raters are gold sources).

Append-only (triggers abort UPDATE and DELETE): marking and unmarking are rows; the latest row of a
rater decides.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from core.store.connection import rows

if TYPE_CHECKING:
    from core.store.engine import Database


def insert_gold_source_change(db: Database, row: dict[str, Any]) -> int:
    """Append one ``add`` / ``remove`` row (``rater``, ``action``, ``marked_by``,
    ``created_at``); returns its id."""
    return int(db.table("gold_sources").insert(row).last_pk or 0)


def active_gold_sources(db: Database) -> list[dict[str, Any]]:
    """The raters whose latest row is ``add``, by rater: ``rater``, ``marked_by``,
    ``created_at``."""
    return rows(
        db,
        "select g.rater, g.marked_by, g.created_at from gold_sources g where g.id = "
        "(select max(h.id) from gold_sources h where h.rater = g.rater) and g.action = 'add' "
        "order by g.rater",
    )
