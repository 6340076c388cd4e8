"""What the two append-only label tables with skips and undo share: ``reviews`` (key
``question_id``, label ``decision``) and ``dispute_resolutions`` (key ``dispute_id``, label
``resolution``). A skip is a row whose label is :data:`SKIPPED`; an undo appends a row whose
label is :data:`WITHDRAWN`, superseding the row it takes back. The readers here return decoded
rows for :mod:`core.store.reviews` and :mod:`core.store.resolutions` to turn into records.
SQLAlchemy Core over :mod:`core.store.tables_more` (issue 33)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import sqlalchemy as sa

from core.store.statements import all_rows, not_superseded, run
from core.store.tables_more import dispute_resolutions, reviews

if TYPE_CHECKING:
    from core.store.engine import Database

#: The label of a row recording that the annotator skipped the item.
SKIPPED = "skipped"
#: The label of a row that withdraws the annotator's previous label or skip (undo).
WITHDRAWN = "withdrawn"
#: Table -> (the table, its item key column, its label column).
_COLUMNS = {
    "reviews": (reviews, "question_id", "decision"),
    "dispute_resolutions": (dispute_resolutions, "dispute_id", "resolution"),
}


def _effective(table: str) -> tuple[sa.Table, sa.FromClause, str, str]:
    """``table``'s declaration, its alias ``r``, its key and label column names."""
    declared, key, label = _COLUMNS[table]
    return declared, declared.alias("r"), key, label


def own_row(db: Database, table: str, item: Any, annotator: str) -> dict[str, Any] | None:
    """``annotator``'s effective row on ``item`` (a skip or a withdrawal too): the row their next
    one supersedes; None when they have none."""
    declared, r, key, _ = _effective(table)
    query = sa.select(r).where(
        r.c[key] == item, r.c.annotator == annotator, not_superseded(declared, r)
    )
    found = all_rows(db, query.order_by(r.c.id.desc()).limit(1))
    return found[0] if found else None


def last_row(db: Database, table: str, annotator: str) -> dict[str, Any] | None:
    """``annotator``'s latest effective label or skip (withdrawals left out): what an undo takes
    back; None when there is none."""
    declared, r, _, label = _effective(table)
    query = sa.select(r).where(
        r.c.annotator == annotator, not_superseded(declared, r), r.c[label] != WITHDRAWN
    )
    found = all_rows(db, query.order_by(r.c.id.desc()).limit(1))
    return found[0] if found else None


def label_marks(db: Database, table: str) -> dict[str, dict[Any, set[str]]]:
    """Who marked which item, from the effective rows (withdrawals left out): ``{"ok": {item:
    annotators with a label}, "skipped": {item: annotators whose row is a skip}}`` (one query of
    item, annotator and label)."""
    declared, r, key, label = _effective(table)
    marks: dict[str, dict[Any, set[str]]] = {"ok": {}, "skipped": {}}
    query = sa.select(r.c[key], r.c.annotator, r.c[label]).where(
        not_superseded(declared, r), r.c[label] != WITHDRAWN
    )
    for item, annotator, value in run(db, query):
        marks["skipped" if value == SKIPPED else "ok"].setdefault(item, set()).add(annotator)
    return marks
