"""SQL text in a test, sent to either database with bound parameters (issue 33).

A test's own statement is written once, spelled alike on SQLite and PostgreSQL, with ``:name``
marks, and run through the store's own sender (:func:`core.store.statements.run`): SQLAlchemy's
``text()`` compiles it per dialect (``?`` for SQLite, ``%(name)s`` for psycopg). Nothing rewrites
it; a ``:`` that is not a mark is written ``\\:`` (``text()`` looks for marks inside quotes too).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import sqlalchemy as sa

from core.store.engine import Cursor, Database
from core.store.statements import all_rows, run, run_many


def run_sql(db: Database, sql: str, /, **values: Any) -> Cursor:
    """Run ``sql`` with ``values`` bound to its ``:name`` marks."""
    statement = sa.text(sql).bindparams(**values) if values else sa.text(sql)
    return run(db, statement)


def sql_rows(db: Database, sql: str, /, **values: Any) -> list[dict[str, Any]]:
    """The rows of ``sql`` (``values`` bound) as dicts of the values as stored."""
    cursor = run_sql(db, sql, **values)
    keys = [d[0] for d in cursor.description]
    return [dict(zip(keys, row, strict=True)) for row in cursor.fetchall()]


def run_sql_many(db: Database, sql: str, rows: Sequence[Mapping[str, Any]]) -> None:
    """Run ``sql`` once per row of values (one ``executemany``)."""
    run_many(db, sa.text(sql), rows)


def decoded_rows(db: Database, sql: str, /, **values: Any) -> list[dict[str, Any]]:
    """The rows of ``sql`` (``values`` bound) as dicts, JSON columns decoded as the store reads
    them (:func:`core.store.statements.all_rows`)."""
    statement = sa.text(sql).bindparams(**values) if values else sa.text(sql)
    return all_rows(db, statement)
