"""The store's own database layer over the standard library's ``sqlite3`` (no sqlite-utils).

It offers exactly the part of sqlite-utils' API the workbench uses, with the same names and
meaning, so callers did not change: :class:`Database` (``query`` -> dict rows, ``execute`` -> a
cursor, ``conn``, ``table``/``[name]``, ``table_names``, ``view_names``, ``close``) and
:class:`Table` (``insert``, ``insert_all``, ``update``, ``upsert``, ``get``, ``count``, ``rows``,
``last_pk``). Values that are dicts, lists or tuples are stored as JSON text, dates as ISO text
(as sqlite-utils did); reading JSON back is :func:`core.store.connection.decode_row`'s job.

:class:`Table`'s helpers build SQLAlchemy Core statements on the tables declared in
:data:`core.store.tables.metadata` and run them, compiled, with bound parameters, on either
database alike. What depends on the dialect (which insert offers ``on_conflict_do_*``, the
compiler, how the text is sent, the new row's key, ``BEGIN``, the catalogue queries for table
names, primary keys and columns) is in one :class:`Dialect` object: SQLite's :data:`SQLITE`
(:mod:`core.store.dialect`) or :data:`core.store.postgres.POSTGRES` (issue 25, psycopg 3).
:class:`Connection` and :class:`Cursor` are the parts of ``sqlite3``'s connection and cursor the
store uses, which the psycopg ones also offer.
Measured against sqlite-utils in ``benchmarks/store_layer.py``.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, Self

import sqlalchemy as sa

# The declared tables (each module adds its own to ``metadata``): statements are built on them.
from core.store import tables_exam, tables_more, tables_people, tables_reads  # noqa: F401
from core.store.dialect import SQLITE as SQLITE
from core.store.dialect import Compiled as Compiled
from core.store.dialect import Conflict as Conflict
from core.store.dialect import Connection as Connection
from core.store.dialect import Cursor as Cursor
from core.store.dialect import Dialect as Dialect
from core.store.dialect import NotFoundError as NotFoundError
from core.store.dialect import Params as Params
from core.store.dialect import PkValue as PkValue
from core.store.dialect import plain as plain
from core.store.dialect import storable as storable
from core.store.dialect import unique_keys as unique_keys
from core.store.tables import metadata


class Database:
    """A database connection with sqlite-utils' calling conventions (see the module)."""

    def __init__(self, conn: Connection, dialect: Dialect = SQLITE) -> None:
        self.conn = conn
        self.dialect = dialect
        #: Values read once for a short-lived borrower (an app script run), by the module that
        #: owns each key (e.g. :func:`core.store.settings.get_setting`); ``None`` (the default,
        #: every long-lived connection): nothing is kept, every read asks the database.
        self.run_memo: dict[str, Any] | None = None

    def execute(self, sql: str, params: Params | None = None) -> Cursor:
        """Run one statement and return its cursor (autocommit unless in a transaction)."""
        if params is None:
            return plain(self.conn, sql)
        cursor: Cursor = self.conn.execute(sql, params)
        return cursor

    def executemany(self, sql: str, rows: Iterable[Params]) -> Cursor:
        """Run one statement once per parameter row."""
        cursor: Cursor = self.conn.executemany(sql, list(rows))
        return cursor

    def query(self, sql: str, params: Params | None = None) -> Iterator[dict[str, Any]]:
        """Run a query; its rows as dicts (all fetched before returning, so no cursor is left
        open on a shared connection). A statement that returns no rows is a ``ValueError``."""
        cursor = self.execute(sql, params)
        if cursor.description is None:
            raise ValueError("query() is for statements that return rows; use execute()")
        keys = unique_keys(d[0] for d in cursor.description)
        return iter(list(map(dict, map(zip, itertools.repeat(keys), cursor))))

    def table(self, name: str) -> Table:
        """The table ``name`` (not checked until used)."""
        return Table(self, name)

    def __getitem__(self, name: str) -> Table:
        return Table(self, name)

    def table_names(self) -> list[str]:
        """Every table's name (SQLite's own included, e.g. ``sqlite_sequence``)."""
        return [r[0] for r in plain(self.conn, self.dialect.table_names_sql).fetchall()]

    def view_names(self) -> list[str]:
        """Every view's name."""
        return [r[0] for r in plain(self.conn, self.dialect.view_names_sql).fetchall()]

    def close(self) -> None:
        """Close the connection."""
        self.conn.close()

    @contextlib.contextmanager
    def _atomic(self) -> Iterator[None]:
        """A savepoint: inside a transaction it nests, outside it is a transaction of its own
        (PostgreSQL: a savepoint only nests, so ``BEGIN`` ... ``COMMIT`` there, under the
        connection's lock: another thread's transaction cannot end between the check and the
        savepoint)."""
        shared = None if self.dialect is SQLITE else getattr(self.conn, "write_lock", None)
        with shared or contextlib.nullcontext():
            with self._atomic_unlocked():
                yield

    @contextlib.contextmanager
    def _atomic_unlocked(self) -> Iterator[None]:
        if self.dialect is not SQLITE and not self.conn.in_transaction:
            plain(self.conn, "begin")
            try:
                yield
            except BaseException:
                plain(self.conn, "rollback")
                raise
            plain(self.conn, "commit")
            return
        plain(self.conn, "savepoint engine_write")
        try:
            yield
        except BaseException:
            if self.conn.in_transaction:  # SQLite may have rolled back already (disk full)
                plain(self.conn, "rollback to engine_write")
                plain(self.conn, "release engine_write")
            raise
        plain(self.conn, "release engine_write")


class Table:
    """One table of a :class:`Database`; ``last_pk`` is the key of the row written last.

    Every statement is SQLAlchemy Core against the table as :data:`core.store.tables.metadata`
    declares it (a bare table clause for one it does not, or for a column it does not know),
    compiled once per shape and dialect (:func:`_compiled`) and run with bound parameters."""

    def __init__(self, db: Database, name: str) -> None:
        self.db = db
        self.name = name
        self.last_pk: PkValue | None = None
        self.last_rowid: int | None = None

    def _send(self, sql: str, params: Sequence[Any]) -> Cursor:
        cursor: Cursor = self.db.dialect.send(self.db.conn, sql, params)
        return cursor

    def _rows(self, sql: str, params: Sequence[Any] = ()) -> Iterator[dict[str, Any]]:
        cursor = self._send(sql, params)
        keys = unique_keys(d[0] for d in cursor.description)
        return iter([dict(zip(keys, row, strict=True)) for row in cursor.fetchall()])

    @property
    def count(self) -> int:
        """How many rows the table has."""
        sql, _ = _compiled(self.db.dialect, _count, self.name)
        return int(self._send(sql, ()).fetchone()[0])

    @property
    def rows(self) -> Iterator[dict[str, Any]]:
        """Every row as a dict, in storage order."""
        return self._rows(_compiled(self.db.dialect, _every_row, self.name)[0])

    @property
    def pks(self) -> list[str]:
        """The primary-key columns (``["rowid"]`` for a table without one)."""
        return self.db.dialect.primary_key(self.db.conn, self.name)

    def _key(self, pk_values: PkValue) -> tuple[tuple[str, ...], dict[str, Any]]:
        """The key columns and the parameters ``_k0``, ``_k1``, ... of :func:`_key_match`."""
        values = list(pk_values) if isinstance(pk_values, list | tuple) else [pk_values]
        pks = self.pks
        if len(values) != len(pks):
            raise NotFoundError(f"{self.name} needs {len(pks)} primary key value(s)")
        return tuple(pks), {f"_k{i}": v for i, v in enumerate(values)}

    def get(self, pk_values: PkValue) -> dict[str, Any]:
        """The row with this primary key (a tuple for a compound key); else ``NotFoundError``."""
        pks, params = self._key(pk_values)
        sql, names = _compiled(self.db.dialect, _get, self.name, pks)
        found = next(self._rows(sql, [params[n] for n in names]), None)
        if found is None:
            raise NotFoundError(f"{self.name} has no row {pk_values!r}")
        self.last_pk = pk_values
        return found

    def insert(
        self,
        row: Mapping[str, Any],
        *,
        replace: bool = False,
        ignore: bool = False,
        alter: bool = False,
    ) -> Self:
        """Insert one row (``replace``: overwrite the row with the same primary key, as
        ``insert or replace`` does: its columns not given get their defaults; ``ignore``: keep
        it). ``last_pk`` becomes the written row's id. Adding columns (``alter``) is not offered."""
        conflict = _conflict(replace, ignore, alter)
        dialect = self.db.dialect
        pk = self.pks if dialect.returns_key or conflict == "replace" else []
        shape = self._shape(tuple(row), conflict, pk)
        sql, names = _compiled(dialect, _insert, *shape, dialect.returned_key(pk, conflict))
        cursor = self._send(sql, [storable(row[n]) for n in names])
        self.last_rowid = self.last_pk = dialect.last_insert_id(cursor)
        return self

    def insert_all(
        self,
        rows: Iterable[Mapping[str, Any]],
        *,
        batch_size: int = 100,
        replace: bool = False,
        ignore: bool = False,
        alter: bool = False,
    ) -> Self:
        """Insert many rows, ``batch_size`` at a time, each batch atomic (one ``executemany``).
        A batch's columns are the union of its rows' keys (a missing key is NULL, i.e. not the
        column default); ``replace`` and ``ignore`` as :meth:`insert`."""
        conflict = _conflict(replace, ignore, alter)
        dialect = self.db.dialect
        self.last_rowid = self.last_pk = None
        source = iter(rows)
        while batch := list(itertools.islice(source, max(1, batch_size))):
            columns = tuple(dict.fromkeys(k for r in batch for k in r))
            pk = self.pks if conflict == "replace" else []
            sql, names = _compiled(dialect, _insert, *self._shape(columns, conflict, pk), None)
            values = [[storable(r.get(n)) for n in names] for r in batch]
            with self.db._atomic():
                dialect.send_many(self.db.conn, sql, values)
        return self

    def _shape(
        self, columns: tuple[str, ...], conflict: Conflict, pk: Sequence[str]
    ) -> tuple[str, tuple[str, ...], bool, tuple[str, ...], tuple[str, ...]]:
        """The arguments of :func:`_insert` after the dialect: a replace collides on the primary
        key and sets every other column the table has (``excluded``: the given value, else the
        column's default)."""
        if conflict != "replace":
            return self.name, columns, conflict == "ignore", (), ()
        every = self.db.dialect.column_names(self.db.conn, self.name)
        return self.name, columns, False, tuple(pk), tuple(c for c in every if c not in pk)

    def update(self, pk_values: PkValue, updates: Mapping[str, Any] | None = None) -> Self:
        """Set the given columns of the row with this primary key (``NotFoundError`` if none)."""
        if not updates:
            self.get(pk_values)
            return self
        pks, params = self._key(pk_values)
        columns = tuple(updates)
        params |= {f"_v{i}": storable(updates[c]) for i, c in enumerate(columns)}
        sql, names = _compiled(self.db.dialect, _update, self.name, pks, columns)
        if self._send(sql, [params[n] for n in names]).rowcount == 0:
            raise NotFoundError(f"{self.name} has no row {pk_values!r}")
        self.last_pk = pk_values
        return self

    def upsert(self, row: Mapping[str, Any], *, pk: str | Sequence[str]) -> Self:
        """Insert ``row``, or update the given columns of the row with the same ``pk``."""
        keys = (pk,) if isinstance(pk, str) else tuple(pk)
        if any(row.get(k) is None for k in keys):
            raise ValueError(f"upsert into {self.name} needs a value for {', '.join(keys)}")
        columns = tuple(row)
        sets = tuple(c for c in columns if c not in keys)
        sql, names = _compiled(
            self.db.dialect, _insert, self.name, columns, False, keys, sets, None
        )
        self._send(sql, [storable(row[n]) for n in names])
        self.last_pk = row[keys[0]] if len(keys) == 1 else tuple(row[k] for k in keys)
        return self


@functools.lru_cache(maxsize=1024)
def _compiled(dialect: Dialect, build: Callable[..., Any], *args: Any) -> Compiled:
    """The statement ``build(*args)`` compiled for ``dialect``: its SQL and its parameters'
    names in mark order (an insert's are its columns). Each shape is compiled once per process:
    a bulk insert costs what a bare ``executemany`` of the same text does."""
    if build is _insert:  # the columns are bound by name; the insert is the dialect's
        return dialect.compiled(_insert(dialect, *args), list(args[1]))
    return dialect.compiled(build(*args))


def _clause(name: str, columns: Iterable[str] = ()) -> Any:
    """Table ``name`` as :data:`core.store.tables.metadata` declares it (its column types), or a
    bare table clause with ``columns`` if it is not declared or lacks one of them."""
    declared = metadata.tables.get(name)
    if declared is not None and all(c in declared.c for c in columns):
        return declared
    return sa.table(name, *(sa.column(c) for c in dict.fromkeys(columns)))


def _count(name: str) -> Any:
    return sa.select(sa.func.count()).select_from(_clause(name))


def _every_row(name: str) -> Any:
    return sa.select(sa.text("*")).select_from(_clause(name))


def _key_match(table: Any, pks: Sequence[str]) -> Any:
    """The row whose key columns ``pks`` equal the parameters ``_k0``, ``_k1``, ..."""
    return sa.and_(*(table.c[k] == sa.bindparam(f"_k{i}") for i, k in enumerate(pks)))


def _get(name: str, pks: tuple[str, ...]) -> Any:
    table = _clause(name, pks)
    return sa.select(sa.text("*")).select_from(table).where(_key_match(table, pks))


def _update(name: str, pks: tuple[str, ...], columns: tuple[str, ...]) -> Any:
    """Set ``columns`` to the parameters ``_v0``, ``_v1``, ... in the row with key ``pks``."""
    table = _clause(name, (*pks, *columns))
    sets: dict[str, Any] = {c: sa.bindparam(f"_v{i}") for i, c in enumerate(columns)}
    return sa.update(table).where(_key_match(table, pks)).values(sets)


def _insert(
    dialect: Dialect,
    name: str,
    columns: tuple[str, ...],
    ignore: bool,
    keys: tuple[str, ...],
    sets: tuple[str, ...],
    returned: str | None,
) -> Any:
    """The dialect's insert of ``columns``; on a collision fail, skip (``ignore``) or, on one
    with key ``keys``, overwrite the columns ``sets`` with the new row's (``excluded``).
    ``returned``: the column the insert returns (:meth:`Dialect.returned_key`)."""
    table = _clause(name, (*columns, *keys, *sets))
    statement = dialect.insert_core(table)
    if ignore:
        statement = statement.on_conflict_do_nothing()
    elif keys and sets:
        excluded = {c: statement.excluded[c] for c in sets}
        statement = statement.on_conflict_do_update(index_elements=list(keys), set_=excluded)
    elif keys:
        statement = statement.on_conflict_do_nothing(index_elements=list(keys))
    if returned is not None:
        column = table.c[returned] if returned in table.c else sa.literal_column(returned)
        statement = statement.returning(column)
    return statement


def _conflict(replace: bool, ignore: bool, alter: bool) -> Conflict:
    if alter:
        raise ValueError("adding columns on insert (alter=True) is not supported: add a migration")
    if replace and ignore:
        raise ValueError("use either ignore=True or replace=True, not both")
    return "replace" if replace else "ignore" if ignore else "error"
