"""Whole tables out (``python -m core export``): the names that can be exported and a cursor
over one table's rows (the judgments table as the effective verdicts unless every row is asked
for)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from core.store.judgments import effective_query

if TYPE_CHECKING:
    from core.store.engine import Database


def exportable(db: Database) -> set[str]:
    """Names of the tables and views that can be exported (SQLite's own left out)."""
    names = set(db.table_names()) | set(db.view_names())
    return {n for n in names if not n.startswith("sqlite")}


def export_rows(
    db: Database, table: str, *, all_rows: bool = False
) -> tuple[list[str], Iterator[tuple[Any, ...]]]:
    """``(column names, rows)`` of ``table`` (one of :func:`exportable`); ``judgments`` gives
    the effective parsed verdicts unless ``all_rows``."""
    if table not in exportable(db):
        raise ValueError(f"no table or view {table!r}")
    if table == "judgments" and not all_rows:
        cursor = db.execute(*effective_query(None, status="ok", with_verdict=True))
    else:
        cursor = db.execute(f"select * from [{table}]")
    return [d[0] for d in cursor.description], iter(cursor)
