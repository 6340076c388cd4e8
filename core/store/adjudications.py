"""Table ``adjudications``: the only module with SQL on it (an adjudicator's settled label of
an item people disagree on).

Adjudications are append-only (triggers abort UPDATE and DELETE): a changed decision is a new row
whose ``supersedes`` names the adjudicator's previous one. The "not superseded" condition is
:func:`core.store.schema.not_superseded`; rows come back decoded by
:func:`core.store.connection.rows`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from core.store.connection import rows
from core.store.schema import not_superseded

if TYPE_CHECKING:
    from core.store.engine import Database

_EFFECTIVE = not_superseded("adjudications", "a")


def insert_adjudication(db: Database, row: dict[str, Any]) -> int:
    """Append one adjudication row; returns its id."""
    return int(db.table("adjudications").insert(row).last_pk or 0)


def effective_adjudications(db: Database, task: str) -> list[dict[str, Any]]:
    """The effective (not superseded) adjudications of ``task``, oldest first."""
    return rows(
        db,
        f"select a.* from adjudications a where a.task = ? and {_EFFECTIVE} order by a.id",
        [task],
    )


def own_adjudication(
    db: Database, task: str, item_key: str, adjudicator: str
) -> dict[str, Any] | None:
    """``adjudicator``'s effective decision on ``item_key`` of ``task`` (the row their next
    decision supersedes), or None."""
    found = rows(
        db,
        "select a.* from adjudications a where a.task = ? and a.item_key = ? and "
        f"a.adjudicator = ? and {_EFFECTIVE} order by a.id desc limit 1",
        [task, item_key, adjudicator],
    )
    return found[0] if found else None


def item_adjudication(db: Database, task: str, item_key: str) -> dict[str, Any] | None:
    """The effective adjudication of ``item_key`` of ``task`` (the latest of any adjudicator),
    or None."""
    found = rows(
        db,
        f"select a.* from adjudications a where a.task = ? and a.item_key = ? and {_EFFECTIVE} "
        "order by a.id desc limit 1",
        [task, item_key],
    )
    return found[0] if found else None
