"""Core statements built once, with named :func:`sqlalchemy.bindparam` values, and compiled once
per dialect (issue 33): the store's hot paths (cache keys polled every two seconds, the live
leaderboard's feed, labelling queues) pay for neither building nor compiling a statement on each
call, and still send SQL spelled by SQLAlchemy for the database's own dialect, never through
:func:`core.store.postgres.translate`.

A statement given to :func:`run_bound` must be built once (a module constant, or a
``functools.cache`` builder keyed by its shape); its bound values come per call. ``in`` lists are
``bindparam(name, expanding=True)``, expanded per call as SQLAlchemy's own execution does
(an empty list selects no row on both databases).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import sqlalchemy as sa
from sqlalchemy.util import LRUCache

from core.store.connection import decode_row
from core.store.engine import Cursor, Database, unique_keys
from core.store.pg_connection import PgConnection
from core.store.statements import sa_dialect

#: (id of a statement, dialect) -> (the statement, its compiled form, its literal values);
#: bounded (a statement built per call by mistake cannot grow it for ever).
_COMPILED: Any = LRUCache(2000)


def _compiled(statement: sa.Executable, name: str) -> tuple[Any, dict[str, Any]]:
    """``statement`` compiled for dialect ``name`` (once per process) and its literal values."""
    key = (id(statement), name)
    found = _COMPILED.get(key)
    if found is None or found[0] is not statement:
        done = statement.compile(dialect=sa_dialect(name))  # type: ignore[attr-defined]
        found = (statement, done, done.construct_params(_check=False))
        _COMPILED[key] = found  # the statement is kept with it: its id is not reused meanwhile
    return found[1], found[2]


def bound(
    db: Database, statement: sa.Executable, values: Mapping[str, Any] | None = None
) -> tuple[str, Any]:
    """The SQL text of ``statement`` in ``db``'s dialect and its parameters (a list for SQLite's
    ``?`` marks, a dict for psycopg's named ones), ``values`` bound by name."""
    done, literal = _compiled(statement, db.dialect.name)
    params = {**literal, **values} if values else literal
    sql, order = done.string, done.positiontup
    if done.post_compile_params:  # ``in`` lists: SQLAlchemy's expansion, as in its execution
        expanded = done._process_parameters_for_postcompile(params)
        sql, params, order = expanded.statement, expanded.parameters, expanded.positiontup
    if done.positional:
        return sql, [params[n] for n in order]
    return sql, params


class _SqliteText:
    """A stand-in database of SQLite's dialect (only ``dialect.name`` is read by :func:`bound`)."""

    dialect = type("SqliteName", (), {"name": "sqlite"})()


def sqlite_text(statement: sa.Executable, values: Mapping[str, Any]) -> tuple[str, list[Any]]:
    """``statement`` as SQLite-spelled text (``?`` marks) and its parameters: for store callers
    that still write SQL text around a converted module's query."""
    sql, params = bound(_SqliteText(), statement, values)  # type: ignore[arg-type]
    return sql, list(params)


def run_bound(
    db: Database, statement: sa.Executable, values: Mapping[str, Any] | None = None
) -> Cursor:
    """Run ``statement`` (built once) with ``values`` bound by name on ``db``'s connection."""
    return send(db, *bound(db, statement, values))


def run_ddl(db: Database, ddl: sa.ExecutableDDLElement) -> Cursor:
    """Run a Core DDL statement (``CreateTable``, ``DropTable``: no parameters), compiled for
    ``db``'s dialect each time (DDL is not cached)."""
    return send(db, str(ddl.compile(dialect=sa_dialect(db.dialect.name))), None)


def send(db: Database, sql: str, params: Any) -> Cursor:
    """Send SQL already spelled for ``db``'s dialect (by SQLAlchemy) on its connection, as it
    is (never :func:`core.store.postgres.translate`d); ``params``: None, a list or a dict."""
    if isinstance(db.conn, PgConnection):
        return db.conn.execute(sql, params, native=True)
    cursor: Cursor = db.conn.execute(sql) if params is None else db.conn.execute(sql, params)
    return cursor


def bound_rows(
    db: Database,
    statement: sa.Executable,
    values: Mapping[str, Any] | None = None,
    also: Sequence[str] = (),
) -> list[dict[str, Any]]:
    """The rows of ``statement`` (built once) as dicts, JSON columns decoded
    (:func:`core.store.connection.decode_row`; ``also``: more JSON columns, by their labels)."""
    cursor = run_bound(db, statement, values)
    keys = unique_keys(d[0] for d in cursor.description)
    return [decode_row(dict(zip(keys, row, strict=True)), also) for row in cursor.fetchall()]


def scalar(db: Database, statement: sa.Executable, values: Mapping[str, Any] | None = None) -> Any:
    """The first column of the first row of ``statement`` (built once), or ``None``."""
    found = run_bound(db, statement, values).fetchone()
    return None if found is None else found[0]
