"""Running SQLAlchemy Core statements on a store :class:`~core.store.engine.Database` (issue 33).

A converted store module builds its statements with Core over :mod:`core.store.tables` (or with
``text()`` and bound parameters) and runs them here: :func:`compiled` spells a statement in the
database's own dialect (SQLite's ``?`` marks, psycopg's ``%(name)s``, each dialect's upsert),
and :func:`run` sends it on the database's connection as it is: nothing rewrites SQL (the
PostgreSQL connection refuses SQLite's spelling: :func:`core.store.pg_connection.refuse_sqlite_marks`).
Same connection, same locks and transactions (:func:`core.store.connection.transaction`) as
every other statement.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import sqlite
from sqlalchemy.engine.interfaces import Dialect as SaDialect
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.util import LRUCache

from core.store.connection import decode_row
from core.store.engine import Cursor, Database, unique_keys
from core.store.pg_connection import PgConnection


@functools.cache
def sa_dialect(name: str) -> SaDialect:
    """SQLAlchemy's dialect for a store dialect name (``sqlite`` or ``postgresql``)."""
    if name == "postgresql":  # imported here: a SQLite workbench never loads it
        from sqlalchemy.dialects.postgresql import psycopg

        return psycopg.dialect()  # type: ignore[no-untyped-call]
    return sqlite.pysqlite.dialect()


class json_text(sa.sql.functions.GenericFunction[str]):  # noqa: N801 (an SQL function)
    """``json_text(column, path)``: the value at ``path`` (keys joined by dots: ``a.b``) of a
    JSON text column (SQLite: ``json_extract(column, '$.' || path)``, typed; PostgreSQL:
    ``column::jsonb #>> string_to_array(path, '.')``, text: cast to compare)."""

    type = sa.Text()
    inherit_cache = True


@compiles(json_text, "sqlite")
def _json_text_sqlite(element: json_text, compiler: Any, **kw: Any) -> str:
    column, key = element.clauses
    return f"json_extract({compiler.process(column, **kw)}, '$.' || {compiler.process(key, **kw)})"


@compiles(json_text, "postgresql")
def _json_text_postgresql(element: json_text, compiler: Any, **kw: Any) -> str:
    column, key = element.clauses
    path = f"string_to_array({compiler.process(key, **kw)}, '.')"
    return f"(({compiler.process(column, **kw)})::jsonb #>> {path})"


def not_superseded(table: sa.Table, row: sa.FromClause) -> sa.ColumnElement[bool]:
    """Row ``row`` (``table`` or an alias of it) of an append-only label table is effective: no
    row of ``table`` names it in ``supersedes`` (the Core form of
    :func:`core.store.schema.not_superseded`)."""
    later = table.alias("s")
    # ``select 1``, not ``exists()``'s ``select *``: SQLite reads only the covering index then
    return ~sa.exists(sa.select(sa.literal_column("1")).where(later.c.supersedes == row.c.id))


def insert(db: Database, table: sa.Table) -> Any:
    """The insert of ``db``'s dialect for ``table``: the one with ``on_conflict_do_nothing`` /
    ``on_conflict_do_update`` (SQLite's and PostgreSQL's spell the same clause)."""
    return db.dialect.insert_core(table)


def upsert(db: Database, table: sa.Table, row: Mapping[str, Any]) -> Any:
    """Insert ``row`` into ``table``, or on a primary-key collision overwrite the row's other
    given columns (each dialect's ``on_conflict_do_update``; columns not given keep theirs)."""
    keys = [c.name for c in table.primary_key.columns]
    new = insert(db, table).values(**row)
    sets = {name: new.excluded[name] for name in row if name not in keys}
    return new.on_conflict_do_update(index_elements=keys, set_=sets)


@functools.cache
def _compiled_cache(name: str) -> Any:
    """The dialect's cache of compiled statements: a statement of the same shape is compiled
    once per process, as SQLAlchemy's own execution does (bounded: shapes made from data, such
    as an ``in`` list's length, do not grow it for ever)."""
    return LRUCache(2000)


def compiled(db: Database, statement: sa.Executable) -> tuple[str, Any]:
    """``statement`` as SQL text in ``db``'s dialect and its parameters (a list for SQLite's
    ``?`` marks, a dict for psycopg's named ones); ``in`` lists expanded.

    Through SQLAlchemy's statement cache (``_compile_w_cache``: a cache key, the compiled form
    of that shape, the new statement's values put in), the path its own ``execute`` takes;
    ``SQLAlchemy`` is pinned, and ``tests/store/test_store_contract.py`` checks this against
    a plain ``compile`` on both dialects."""
    name = db.dialect.name
    found: tuple[Any, ...] = statement._compile_w_cache(
        sa_dialect(name), compiled_cache=_compiled_cache(name), column_keys=[]
    )
    done, extracted, collected = found[:3]
    params = done.construct_params(extracted_parameters=extracted, _collected_params=collected)
    sql, order = done.string, done.positiontup
    if done.post_compile_params:  # ``in`` lists: SQLAlchemy's expansion, as in its execution
        expanded = done._process_parameters_for_postcompile(params)
        sql, params, order = expanded.statement, expanded.parameters, expanded.positiontup
    if done.positional:
        return sql, [params[n] for n in order]
    return sql, params


def run_many(
    db: Database, statement: sa.Executable, rows: Sequence[Mapping[str, Any]]
) -> Cursor | None:
    """Run a Core statement once per row (one ``executemany``): each row gives the values of
    the columns named by the first row's keys. Nothing is run for no rows."""
    if not rows:
        return None
    names = list(rows[0])
    done = statement.compile(  # type: ignore[attr-defined]
        dialect=sa_dialect(db.dialect.name), column_keys=names
    )
    sql = str(done)
    if isinstance(db.conn, PgConnection):
        return db.conn.executemany(sql, [dict(r) for r in rows])
    order = done.positiontup
    cursor: Cursor = db.conn.executemany(sql, [[r[name] for name in order] for r in rows])
    return cursor


def many_sender(
    db: Database, statement: sa.Executable, names: Sequence[str]
) -> Callable[[Iterable[Sequence[Any]]], Cursor]:
    """``statement`` compiled once for ``db``'s dialect, as a function that runs it once per
    row of values given in ``names`` order (tuples: no dict per row on SQLite, the hot path of
    long imports; psycopg takes them by name)."""
    done = statement.compile(  # type: ignore[attr-defined]
        dialect=sa_dialect(db.dialect.name), column_keys=list(names)
    )
    sql = str(done)
    if isinstance(db.conn, PgConnection):
        conn = db.conn
        return lambda rows: conn.executemany(sql, [dict(zip(names, r, strict=True)) for r in rows])
    order = [list(names).index(name) for name in done.positiontup]
    if order == list(range(len(names))):
        return lambda rows: db.conn.executemany(sql, rows)
    return lambda rows: db.conn.executemany(sql, ([r[i] for i in order] for r in rows))


def run(db: Database, statement: sa.Executable) -> Cursor:
    """Run a Core statement on ``db``'s connection (autocommit unless in a transaction)."""
    sql, params = compiled(db, statement)
    if isinstance(db.conn, PgConnection):
        return db.conn.execute(sql, params)
    cursor: Cursor = db.conn.execute(sql, params)
    return cursor


def run_later(db: Database, statement: sa.Executable) -> None:
    """Run a Core statement whose result nobody reads (a row lock): on PostgreSQL sent with the
    connection's next statement, in its round trip (:meth:`PgConnection.defer`, issue 33; its
    error raised there), on SQLite now."""
    if isinstance(db.conn, PgConnection):
        db.conn.defer(*compiled(db, statement))
    else:
        run(db, statement)


def all_rows(
    db: Database, statement: sa.Executable, also: Sequence[str] = ()
) -> list[dict[str, Any]]:
    """A Core query's rows as dicts, JSON columns decoded (:func:`core.store.connection.rows`;
    ``also``: more JSON columns, by their labels)."""
    cursor = run(db, statement)
    keys = unique_keys(d[0] for d in cursor.description)
    return [decode_row(dict(zip(keys, row, strict=True)), also) for row in cursor.fetchall()]
