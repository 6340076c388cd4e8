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

from sqlalchemy.dialects import sqlite
from sqlalchemy.engine.interfaces import Dialect as SaDialect

#: Statement parameters: positional values or named ones (``:name``).
Params = Sequence[Any] | Mapping[str, Any]
#: A primary key value: one column's value, or a tuple for a compound key.
PkValue = Any
#: What an insert does when the row collides with a unique key.
Conflict = Literal["error", "ignore", "replace"]
#: A statement compiled for a dialect: its SQL and its parameters' names in mark order.
Compiled = tuple[str, tuple[str, ...]]


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
    ``COMMIT``, savepoints, a catalogue query), as it is on every database."""
    cursor: Cursor = conn.execute(sql)
    return cursor


class NotFoundError(KeyError):
    """No row has the given primary key (:meth:`Table.get`, :meth:`Table.update`)."""


class Dialect:
    """The dialect-specific parts of the engine (SQLite's here).

    :class:`core.store.engine.Table` builds every statement with SQLAlchemy Core; the dialect
    object chooses the insert that offers ``on_conflict_do_nothing`` / ``on_conflict_do_update``
    (:meth:`insert_core`), compiles for its database with positional marks (:meth:`compiled`,
    :attr:`sqlalchemy_dialect`) and sends the text with bound parameters (:meth:`send`,
    :meth:`send_many`). PostgreSQL's (:mod:`core.store.postgres`) overrides those, how an insert
    reports its key (:meth:`returned_key`), :attr:`table_names_sql`, :attr:`view_names_sql`,
    :meth:`primary_key` and :meth:`column_names`.
    """

    name = "sqlite"
    #: How :func:`core.store.connection.transaction` opens a write transaction.
    begin_sql = "BEGIN IMMEDIATE"
    #: A statement serialising migrations between processes (SQLite's write lock already does).
    migration_lock_sql: str | None = None
    #: Whether a write path holds named locks (:mod:`core.store.row_locks`); not here:
    #: ``BEGIN IMMEDIATE`` took the one write lock.
    row_locks = False
    #: Whether every insert reads the new row's key with ``returning`` (needs the primary key;
    #: here only a replace does, :meth:`returned_key`).
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

    #: SQLAlchemy's dialect this one compiles for (``?`` marks).
    sqlalchemy_dialect: SaDialect = sqlite.pysqlite.dialect()

    def insert_core(self, table: Any) -> Any:
        """A Core insert into ``table`` offering ``on_conflict_do_nothing`` / ``_do_update``."""
        return sqlite.insert(table)

    def compiled(self, statement: Any, column_keys: Sequence[str] | None = None) -> Compiled:
        """``statement`` as SQL text for this dialect and the names of its parameters in the
        order of their marks (``column_keys``: an insert's columns, bound by name)."""
        done = statement.compile(dialect=self.sqlalchemy_dialect, column_keys=column_keys)
        return done.string, tuple(done.positiontup or ())

    def run_core(self, conn: Any, statement: Any) -> Any:
        """Run a Core statement (its values bound as parameters) compiled for this dialect."""
        done = statement.compile(dialect=self.sqlalchemy_dialect)
        values = done.construct_params()
        return self.send(conn, done.string, [values[n] for n in done.positiontup or ()])

    def send(self, conn: Any, sql: str, params: Sequence[Any]) -> Any:
        """Run SQL :meth:`compiled` for this dialect with its positional parameters."""
        return conn.execute(sql, params)

    def send_many(self, conn: Any, sql: str, rows: Sequence[Sequence[Any]]) -> Any:
        """Run SQL :meth:`compiled` for this dialect once per row of parameters."""
        return conn.executemany(sql, rows)

    def returned_key(self, pk: Sequence[str], conflict: Conflict) -> str | None:
        """The column an insert returns as the written row's key: none here (``lastrowid``)
        but for a replace, which may update a row in place (``lastrowid`` stays the previous
        insert's there): its ``rowid``."""
        return "rowid" if conflict == "replace" else None

    def last_insert_id(self, cursor: Any) -> Any:
        """The key the insert's ``returning`` gave (``None``: no row written), else the
        cursor's ``lastrowid``."""
        if cursor.description is None:
            return cursor.lastrowid
        row = cursor.fetchone()
        return None if row is None else row[0]

    def primary_key(self, conn: Any, table: str) -> list[str]:
        """The primary-key columns of ``table`` in key order (``["rowid"]`` if it has none)."""
        info = conn.execute(f"pragma table_info({self.quote(table)})").fetchall()
        if not info:
            raise sqlite3.OperationalError(f"no such table: {table}")
        keyed = sorted((row[5], row[1]) for row in info if row[5])
        return [name for _, name in keyed] or ["rowid"]

    def column_names(self, conn: Any, table: str) -> list[str]:
        """The columns of ``table`` a row may set, in table order (generated ones left out)."""
        return [row[1] for row in conn.execute(f"pragma table_info({self.quote(table)})")]


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
