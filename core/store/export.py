"""Whole tables out (``python -m core export``): the names that can be exported and a cursor
over one table's rows (the judgments table as the effective verdicts unless every row is asked
for). SQLAlchemy Core (issue 33): nothing here is translated for PostgreSQL; the catalogue
queries are the dialect's own (:attr:`core.store.engine.Dialect.table_names_sql`), sent as
they are."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa

from core.store.judgments import JudgmentStatus
from core.store.statements import not_superseded, run
from core.store.tables import judgments

if TYPE_CHECKING:
    from core.store.engine import Database


def exportable(db: Database) -> set[str]:
    """Names of the tables and views that can be exported (SQLite's own left out)."""
    names = {
        str(r[0])
        for sql in (db.dialect.table_names_sql, db.dialect.view_names_sql)
        for r in run(db, sa.text(sql)).fetchall()
    }
    return {n for n in names if not n.startswith("sqlite")}


def export_rows(
    db: Database, table: str, *, all_rows: bool = False
) -> tuple[list[str], Iterator[tuple[Any, ...]]]:
    """``(column names, rows)`` of ``table`` (one of :func:`exportable`); ``judgments`` gives
    the effective parsed verdicts unless ``all_rows``."""
    if table not in exportable(db):
        raise ValueError(f"no table or view {table!r}")
    if table == "judgments" and not all_rows:
        j = judgments.alias("j")
        query = (
            sa.select(j)
            .where(
                not_superseded(judgments, j),
                j.c.status == JudgmentStatus.OK,
                j.c.verdict.is_not(None),
            )
            .order_by(j.c.id)
        )
    else:
        query = sa.select(sa.literal_column("*")).select_from(sa.table(table))
    cursor = run(db, query)
    return [d[0] for d in cursor.description], iter(cursor)
