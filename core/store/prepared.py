"""Core statements built once, with named :func:`sqlalchemy.bindparam` values, and compiled once
per dialect (issue 33): the store's hot paths (cache keys polled every two seconds, the live
leaderboard's feed, labelling queues) pay for neither building nor compiling a statement on each
call, and still send SQL spelled by SQLAlchemy for the database's own dialect, as written
(nothing rewrites SQL).

A statement given to :func:`run_bound` must be built once (a module constant, or a
``functools.cache`` builder keyed by its shape); its bound values come per call. ``in`` lists are
``bindparam(name, expanding=True)``, expanded per call as SQLAlchemy's own execution does
(an empty list selects no row on both databases).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple, TypeVar

import sqlalchemy as sa

from core.store.connection import decode_row
from core.store.engine import Cursor, Database, unique_keys
from core.store.pg_connection import PgConnection
from core.store.statements import sa_dialect

T = TypeVar("T")

#: (id of a statement, dialect) -> :class:`_Compiled`; cleared when it grows past
#: :data:`_KEPT` (a statement built per call by mistake cannot grow it for ever).
_COMPILED: dict[tuple[int, str], _Compiled] = {}
_KEPT = 4000


class _Compiled(NamedTuple):
    statement: sa.Executable  # kept: its id is not reused while the entry lives
    done: Any  # SQLAlchemy's compiled form
    sql: str  # its text (constant ``in`` lists expanded)
    order: Any  # the parameters' names in mark order (SQLite), else None
    literal: dict[str, Any]  # the values written into the statement
    plain: Any  # the parameters when no value is bound; None: ``in`` lists to expand per call


def _compiled(statement: sa.Executable, name: str) -> _Compiled:
    """``statement`` compiled for dialect ``name`` (once per process)."""
    key = (id(statement), name)
    found = _COMPILED.get(key)
    if found is None or found.statement is not statement:
        done = statement.compile(dialect=sa_dialect(name))  # type: ignore[attr-defined]
        literal = done.construct_params(_check=False)
        post = done.post_compile_params
        sql, order = done.string, done.positiontup
        if post and not any(p.required for p in post):
            # ``in`` lists of constants only: expanded once, here, not on every call
            expanded = done._process_parameters_for_postcompile(literal)
            sql, literal, order = expanded.statement, expanded.parameters, expanded.positiontup
            post = None
        order = order if done.positional else None
        plain = None if post else ([literal[n] for n in order] if order else literal)
        if len(_COMPILED) >= _KEPT:
            _COMPILED.clear()
        found = _COMPILED[key] = _Compiled(statement, done, sql, order, literal, plain)
    return found


def bound(
    db: Database, statement: sa.Executable, values: Mapping[str, Any] | None = None
) -> tuple[str, Any]:
    """The SQL text of ``statement`` in ``db``'s dialect and its parameters (a list for SQLite's
    ``?`` marks, a dict for psycopg's named ones), ``values`` bound by name."""
    found = _compiled(statement, db.dialect.name)
    if not values and found.plain is not None:
        return found.sql, found.plain
    params = {**found.literal, **values} if values else found.literal
    sql, order = found.sql, found.order
    if found.plain is None:  # ``in`` lists to bind: SQLAlchemy's expansion, as in its execution
        expanded = found.done._process_parameters_for_postcompile(params)
        sql, params, order = expanded.statement, expanded.parameters, expanded.positiontup
    if order is not None:
        return sql, [params[n] for n in order]
    return sql, params


def run_bound(
    db: Database, statement: sa.Executable, values: Mapping[str, Any] | None = None
) -> Cursor:
    """Run ``statement`` (built once) with ``values`` bound by name on ``db``'s connection."""
    return send(db, *bound(db, statement, values))


def fetch_each(
    db: Database, statements: Sequence[tuple[sa.Executable, Mapping[str, Any] | None]]
) -> list[list[tuple[Any, ...]]]:
    """Run each ``(statement, values)`` (built once, as for :func:`run_bound`) and return each
    one's rows: on PostgreSQL in one round trip (:meth:`PgConnection.fetch_each`), on SQLite one
    after the other (in the process, nothing to save)."""
    if isinstance(db.conn, PgConnection):
        return db.conn.fetch_each([bound(db, s, v) for s, v in statements])
    return [[tuple(r) for r in run_bound(db, s, v).fetchall()] for s, v in statements]


def run_ddl(db: Database, ddl: sa.ExecutableDDLElement) -> Cursor:
    """Run a Core DDL statement (``CreateTable``, ``DropTable``: no parameters), compiled for
    ``db``'s dialect each time (DDL is not cached)."""
    return send(db, str(ddl.compile(dialect=sa_dialect(db.dialect.name))), None)


def send(db: Database, sql: str, params: Any) -> Cursor:
    """Send SQL already spelled for ``db``'s dialect (by SQLAlchemy) on its connection, as it
    is; ``params``: None, a list or a dict."""
    if isinstance(db.conn, PgConnection):
        return db.conn.execute(sql, params)
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
    return _dict_rows(run_bound(db, statement, values), also)


def _dict_rows(cursor: Cursor, also: Sequence[str]) -> list[dict[str, Any]]:
    keys = unique_keys(d[0] for d in cursor.description)
    return [decode_row(dict(zip(keys, row, strict=True)), also) for row in cursor.fetchall()]


def scalar(db: Database, statement: sa.Executable, values: Mapping[str, Any] | None = None) -> Any:
    """The first column of the first row of ``statement`` (built once), or ``None``."""
    return _first(run_bound(db, statement, values))


def _first(cursor: Cursor) -> Any:
    found = cursor.fetchone()
    return None if found is None else found[0]


def _later(
    db: Database,
    statement: sa.Executable,
    values: Mapping[str, Any] | None,
    read: Callable[[Cursor], T],
) -> Callable[[], T]:
    """``read`` of ``statement``'s cursor (built once): on PostgreSQL the statement goes with
    the connection's next one, in its round trip (:meth:`PgConnection.defer`), and calling the
    result sends it first if nothing has; on SQLite it runs now."""
    if isinstance(db.conn, PgConnection):
        later = db.conn.defer(*bound(db, statement, values))
        return lambda: read(later.cursor())
    found = read(run_bound(db, statement, values))
    return lambda: found


def rows_later(
    db: Database, statement: sa.Executable, values: Mapping[str, Any] | None = None
) -> Callable[[], list[tuple[Any, ...]]]:
    """The rows of ``statement`` (built once) as tuples, sent as :func:`_later` says
    (independent reads of a page run sent together); call the result for the rows."""
    return _later(db, statement, values, lambda c: [tuple(r) for r in c.fetchall()])


def bound_rows_later(
    db: Database,
    statement: sa.Executable,
    values: Mapping[str, Any] | None = None,
    also: Sequence[str] = (),
) -> Callable[[], list[dict[str, Any]]]:
    """:func:`bound_rows`, sent as :func:`_later` says (for a read whose check can wait until
    the next statement is answered); call the result for the rows."""
    return _later(db, statement, values, lambda c: _dict_rows(c, also))


def scalar_later(
    db: Database, statement: sa.Executable, values: Mapping[str, Any] | None = None
) -> Callable[[], Any]:
    """:func:`scalar`, sent as :func:`_later` says (e.g. a transaction's last insert, sent with
    its ``COMMIT``); call the result for the value."""
    return _later(db, statement, values, _first)
