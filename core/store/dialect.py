"""The SQL dialect layer under :mod:`core.store.engine`: the spelling of every dialect-specific
statement (:class:`Dialect`, SQLite's :data:`SQLITE`; PostgreSQL's in :mod:`core.store.postgres`),
the parts of a DB-API connection and cursor the store uses (:class:`Connection`, :class:`Cursor`),
how a value is stored (:func:`storable`) and unique column keys for dict rows."""

from __future__ import annotations

import datetime
import decimal
import json
import sqlite3
import uuid
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, Literal, Protocol

#: Statement parameters: positional values or named ones (``:name``).
Params = Sequence[Any] | Mapping[str, Any]
#: A primary key value: one column's value, or a tuple for a compound key.
PkValue = Any
#: What an insert does when the row collides with a unique key.
Conflict = Literal["error", "ignore", "replace"]


class Cursor(Protocol):
    """What the store uses of a cursor (``sqlite3.Cursor`` or :class:`core.store.postgres.PgCursor`)."""

    @property
    def description(self) -> Any: ...  # noqa: D102
    @property
    def rowcount(self) -> int: ...  # noqa: D102
    @property
    def lastrowid(self) -> int | None: ...  # noqa: D102
    def fetchone(self) -> Any: ...  # noqa: D102
    def fetchall(self) -> list[Any]: ...  # noqa: D102
    def __iter__(self) -> Iterator[Any]: ...


class Connection(Protocol):
    """What the store uses of a connection (``sqlite3.Connection`` in autocommit mode, or
    :class:`core.store.postgres.PgConnection`)."""

    @property
    def in_transaction(self) -> bool: ...  # noqa: D102
    def execute(self, sql: str, params: Any = ..., /) -> Any: ...  # noqa: D102
    def executemany(self, sql: str, params: Any, /) -> Any: ...  # noqa: D102
    def close(self) -> None: ...  # noqa: D102


def plain(conn: Connection, sql: str) -> Cursor:
    """Run ``sql``, a statement without parameters spelled alike in every dialect (``BEGIN``,
    ``COMMIT``, savepoints, a catalogue query), as it is: on PostgreSQL as a native statement
    (:class:`core.store.pg_connection.PgConnection` refuses any other)."""
    if getattr(conn, "native_only", False):
        native: Cursor = conn.execute(sql, None, native=True)  # type: ignore[call-arg]
        return native
    cursor: Cursor = conn.execute(sql)
    return cursor


class NotFoundError(KeyError):
    """No row has the given primary key (:meth:`Table.get`, :meth:`Table.update`)."""


class Dialect:
    """The spelling of every dialect-specific statement (SQLite's here).

    A dialect for another database (PostgreSQL, issue 25) overrides these members: ``param``
    (``?`` here, ``%s`` for psycopg), :meth:`quote`, :meth:`insert_sql` (``insert or ignore`` /
    ``insert or replace`` here; ``on conflict do nothing`` / ``... do update`` there),
    :meth:`upsert_sql`, :meth:`last_insert_id` (``cursor.lastrowid`` here; ``returning`` there),
    :attr:`table_names_sql`, :attr:`view_names_sql` and :meth:`primary_key`.
    """

    name = "sqlite"
    param = "?"
    #: How :func:`core.store.connection.transaction` opens a write transaction.
    begin_sql = "BEGIN IMMEDIATE"
    #: A statement serialising migrations between processes (SQLite's write lock already does).
    migration_lock_sql: str | None = None
    #: Whether a write path holds named locks (:mod:`core.store.row_locks`); not here:
    #: ``BEGIN IMMEDIATE`` took the one write lock.
    row_locks = False
    #: Whether inserts read the new row's key with ``returning`` (needs the primary key).
    returns_key = False
    #: Whether a committed row's id is always larger than every id committed before it (SQLite:
    #: one writer at a time). PostgreSQL: a transaction holding a smaller identity value can
    #: commit later, so "largest id" alone misses it (cache keys add a count).
    ids_in_commit_order = True
    table_names_sql = "select name from sqlite_master where type = 'table'"
    view_names_sql = "select name from sqlite_master where type = 'view'"

    def quote(self, identifier: str) -> str:
        """An identifier in double quotes (inner quotes doubled): ``a"b`` -> ``"a""b"``."""
        return '"{}"'.format(identifier.replace('"', '""'))

    def marks(self, n: int) -> str:
        """``n`` parameter marks separated by commas."""
        return ", ".join([self.param] * n)

    def insert_sql(
        self,
        table: str,
        columns: Sequence[str],
        conflict: Conflict = "error",
        pk: Sequence[str] = (),
    ) -> str:
        """One-row insert of ``columns``; on a unique-key collision fail, skip or replace
        (``pk``: the key a replace collides on, unused here)."""
        verb = {"error": "insert", "ignore": "insert or ignore", "replace": "insert or replace"}
        if not columns:
            return f"{verb[conflict]} into {self.quote(table)} default values"
        cols = ", ".join(self.quote(c) for c in columns)
        return f"{verb[conflict]} into {self.quote(table)} ({cols}) values ({self.marks(len(columns))})"

    def upsert_sql(self, table: str, columns: Sequence[str], pk: Sequence[str]) -> str:
        """Insert a row, or on a primary-key collision overwrite the given non-key columns
        (columns not given keep their values)."""
        sets = [f"{self.quote(c)} = excluded.{self.quote(c)}" for c in columns if c not in pk]
        action = "do update set " + ", ".join(sets) if sets else "do nothing"
        keys = ", ".join(self.quote(c) for c in pk)
        return f"{self.insert_sql(table, columns)} on conflict ({keys}) {action}"

    def insert_core(self, table: Any) -> Any:
        """A Core insert into ``table`` offering ``on_conflict_do_*`` (PostgreSQL's dialect; the
        SQLite path of :class:`Table` runs :meth:`insert_sql`'s strings)."""
        raise NotImplementedError(f"{self.name}: the engine runs its own SQL strings here")

    def run_core(self, conn: Any, statement: Any, rows: Sequence[Mapping[str, Any]] = ()) -> Any:
        """Run a Core statement compiled for this dialect on ``conn`` (``rows``: once per row,
        the values of the columns the first row names)."""
        raise NotImplementedError(f"{self.name}: the engine runs its own SQL strings here")

    def returning(self, pk: Sequence[str]) -> str:
        """The clause that makes an insert return its key (none here: ``lastrowid``)."""
        return ""

    def last_insert_id(self, cursor: Any) -> Any:
        """The rowid of the row the cursor's insert wrote."""
        return cursor.lastrowid

    def primary_key(self, conn: Any, table: str) -> list[str]:
        """The primary-key columns of ``table`` in key order (``["rowid"]`` if it has none)."""
        info = conn.execute(f"pragma table_info({self.quote(table)})").fetchall()
        if not info:
            raise sqlite3.OperationalError(f"no such table: {table}")
        keyed = sorted((row[5], row[1]) for row in info if row[5])
        return [name for _, name in keyed] or ["rowid"]


SQLITE = Dialect()


def storable(value: Any) -> Any:
    """A value as stored: bool -> 1/0 (what SQLite stores; PostgreSQL would store ``'true'`` in
    a text column and refuse it for an integer one), dict/list/tuple -> JSON text, date/time ->
    ISO text, Decimal -> float, UUID/timedelta -> text, anything else unchanged (sqlite-utils'
    conversions)."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, dict | list | tuple):
        return json.dumps(value, default=repr, ensure_ascii=False)
    if isinstance(value, datetime.date | datetime.time):
        return value.isoformat()
    if isinstance(value, decimal.Decimal):
        return float(value)
    if isinstance(value, datetime.timedelta | uuid.UUID):
        return str(value)
    return value


def unique_keys(names: Iterable[str]) -> list[str]:
    """Column names made unique for dict rows: a repeated name gets ``_2``, ``_3``, ... (never
    one that is already taken), so ``select a.*, b.*`` keeps both ``id`` columns."""
    keys = list(names)
    taken = set(keys)
    if len(taken) == len(keys):
        return keys
    seen: set[str] = set()
    out = []
    for key in keys:
        new, n = key, 2
        while new in seen or (new != key and new in taken):
            new, n = f"{key}_{n}", n + 1
        seen.add(new)
        out.append(new)
    return out
