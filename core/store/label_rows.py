"""What the two append-only label tables with skips and undo share: ``reviews`` (key
``question_id``, label ``decision``) and ``dispute_resolutions`` (key ``dispute_id``, label
``resolution``). A skip is a row whose label is :data:`SKIPPED`; an undo appends a row whose
label is :data:`WITHDRAWN`, superseding the row it takes back. The readers here return decoded
rows for :mod:`core.store.reviews` and :mod:`core.store.resolutions` to turn into records."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from core.store.connection import rows
from core.store.schema import not_superseded

if TYPE_CHECKING:
    from core.store.engine import Database

#: The label of a row recording that the annotator skipped the item.
SKIPPED = "skipped"
#: The label of a row that withdraws the annotator's previous label or skip (undo).
WITHDRAWN = "withdrawn"
#: Table -> (item key column, label column).
_COLUMNS = {
    "reviews": ("question_id", "decision"),
    "dispute_resolutions": ("dispute_id", "resolution"),
}


def own_row(db: Database, table: str, item: Any, annotator: str) -> dict[str, Any] | None:
    """``annotator``'s effective row on ``item`` (a skip or a withdrawal too): the row their next
    one supersedes; None when they have none."""
    key, _ = _COLUMNS[table]
    found = rows(
        db,
        f"select * from {table} r where r.{key} = ? and r.annotator = ? and "
        f"{not_superseded(table, 'r')} order by r.id desc limit 1",
        [item, annotator],
    )
    return found[0] if found else None


def last_row(db: Database, table: str, annotator: str) -> dict[str, Any] | None:
    """``annotator``'s latest effective label or skip (withdrawals left out): what an undo takes
    back; None when there is none."""
    _, label = _COLUMNS[table]
    found = rows(
        db,
        f"select * from {table} r where r.annotator = ? and {not_superseded(table, 'r')} "
        f"and r.{label} != '{WITHDRAWN}' order by r.id desc limit 1",
        [annotator],
    )
    return found[0] if found else None


def label_marks(db: Database, table: str) -> dict[str, dict[Any, set[str]]]:
    """Who marked which item, from the effective rows (withdrawals left out): ``{"ok": {item:
    annotators with a label}, "skipped": {item: annotators whose row is a skip}}`` (one query of
    item, annotator and label)."""
    key, label = _COLUMNS[table]
    marks: dict[str, dict[Any, set[str]]] = {"ok": {}, "skipped": {}}
    for item, annotator, value in db.execute(
        f"select {key}, annotator, {label} from {table} r where "
        f"{not_superseded(table, 'r')} and r.{label} != '{WITHDRAWN}'"
    ):
        marks["skipped" if value == SKIPPED else "ok"].setdefault(item, set()).add(annotator)
    return marks
