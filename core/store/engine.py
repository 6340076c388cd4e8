"""The store's own database layer over the standard library's ``sqlite3`` (no sqlite-utils).

It offers exactly the part of sqlite-utils' API the workbench uses, with the same names and
meaning, so callers did not change: :class:`Database` (``query`` -> dict rows, ``execute`` -> a
cursor, ``conn``, ``table``/``[name]``, ``table_names``, ``view_names``, ``close``) and
:class:`Table` (``insert``, ``insert_all``, ``update``, ``upsert``, ``get``, ``count``, ``rows``,
``last_pk``). Values that are dicts, lists or tuples are stored as JSON text, dates as ISO text
(as sqlite-utils did); reading JSON back is :func:`core.store.connection.decode_row`'s job.

Everything that depends on the SQL dialect (parameter marks, identifier quoting, ``insert or
ignore``/``or replace``, upsert, the last inserted id, ``BEGIN``, the catalogue queries for table
names and primary keys) is spelled in one :class:`Dialect` object, :data:`SQLITE`.
:data:`core.store.postgres.POSTGRES` (issue 25) is the second one, over psycopg 3; nothing outside
these two modules spells those statements. :class:`Connection` and :class:`Cursor` are the parts of
``sqlite3``'s connection and cursor the store uses, which the psycopg ones also offer.
Measured against sqlite-utils in ``benchmarks/store_layer.py``.
"""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, Self

import sqlalchemy as sa

from core.store.dialect import SQLITE as SQLITE
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


class Database:
    """A database connection with sqlite-utils' calling conventions (see the module)."""

    def __init__(self, conn: Connection, dialect: Dialect = SQLITE) -> None:
        self.conn = conn
        self.dialect = dialect

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
    """One table of a :class:`Database`; ``last_pk`` is the key of the row written last."""

    def __init__(self, db: Database, name: str) -> None:
        self.db = db
        self.name = name
        self.last_pk: PkValue | None = None
        self.last_rowid: int | None = None

    @property
    def _q(self) -> str:
        return self.db.dialect.quote(self.name)

    @property
    def _core(self) -> bool:
        """Whether statements are SQLAlchemy Core compiled for the dialect (PostgreSQL; SQLite
        runs the strings of :data:`SQLITE`, its own spelling)."""
        return self.db.dialect is not SQLITE

    def _clause(self, columns: Iterable[str] = ()) -> Any:
        """This table as a Core table clause with ``columns``."""
        return sa.table(self.name, *(sa.column(c) for c in dict.fromkeys(columns)))

    def _run(self, statement: Any) -> Cursor:
        cursor: Cursor = self.db.dialect.run_core(self.db.conn, statement)
        return cursor

    def _rows(self, statement: Any) -> Iterator[dict[str, Any]]:
        cursor = self._run(statement)
        keys = unique_keys(d[0] for d in cursor.description)
        return iter([dict(zip(keys, row, strict=True)) for row in cursor.fetchall()])

    @property
    def count(self) -> int:
        """How many rows the table has."""
        if self._core:
            statement = sa.select(sa.func.count()).select_from(self._clause())
            return int(self._run(statement).fetchone()[0])
        return int(self.db.execute(f"select count(*) from {self._q}").fetchone()[0])

    @property
    def rows(self) -> Iterator[dict[str, Any]]:
        """Every row as a dict, in storage order."""
        if self._core:
            return self._rows(sa.select(sa.text("*")).select_from(self._clause()))
        return self.db.query(f"select * from {self._q}")

    @property
    def pks(self) -> list[str]:
        """The primary-key columns (``["rowid"]`` for a table without one)."""
        return self.db.dialect.primary_key(self.db.conn, self.name)

    def _key_values(self, pk_values: PkValue) -> tuple[list[str], list[Any]]:
        values = list(pk_values) if isinstance(pk_values, list | tuple) else [pk_values]
        pks = self.pks
        if len(values) != len(pks):
            raise NotFoundError(f"{self.name} needs {len(pks)} primary key value(s)")
        return pks, values

    def _key_match(self, table: Any, pk_values: PkValue) -> Any:
        """The Core condition selecting the row with this primary key."""
        pks, values = self._key_values(pk_values)
        return sa.and_(*(table.c[k] == v for k, v in zip(pks, values, strict=True)))

    def _where_pk(self, pk_values: PkValue) -> tuple[str, list[Any]]:
        pks, values = self._key_values(pk_values)
        mark = self.db.dialect.param
        return " and ".join(f"{self.db.dialect.quote(k)} = {mark}" for k in pks), values

    def get(self, pk_values: PkValue) -> dict[str, Any]:
        """The row with this primary key (a tuple for a compound key); else ``NotFoundError``."""
        if self._core:
            table = self._clause(self.pks)
            statement = sa.select(sa.text("*")).select_from(table)
            found = next(self._rows(statement.where(self._key_match(table, pk_values))), None)
        else:
            where, values = self._where_pk(pk_values)
            found = next(self.db.query(f"select * from {self._q} where {where}", values), None)
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
        """Insert one row (``replace``: overwrite a row with the same key; ``ignore``: keep it).
        ``last_pk`` becomes the new row's id. Adding columns (``alter=True``) is not offered."""
        conflict = _conflict(replace, ignore, alter)
        columns = list(row)
        dialect = self.db.dialect
        pk = self.pks if dialect.returns_key else []
        if self._core:
            statement = self._insert(columns, conflict, pk)
            if columns:
                statement = statement.values({c: storable(row[c]) for c in columns})
            if len(pk) == 1:
                statement = statement.returning(statement.table.c[pk[0]])
            self.last_rowid = self.last_pk = dialect.last_insert_id(self._run(statement))
            return self
        sql = dialect.insert_sql(self.name, columns, conflict, pk) + dialect.returning(pk)
        cursor = self.db.execute(sql, [storable(row[c]) for c in columns])
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
        """Insert many rows, ``batch_size`` at a time, each batch atomic. A batch's columns are
        the union of its rows' keys (a missing key is NULL, i.e. not the column default)."""
        conflict = _conflict(replace, ignore, alter)
        self.last_rowid = self.last_pk = None
        source = iter(rows)
        while batch := list(itertools.islice(source, max(1, batch_size))):
            columns = list(dict.fromkeys(k for r in batch for k in r))
            pk = self.pks if conflict == "replace" and self.db.dialect.returns_key else []
            if self._core:
                dicts = [{c: storable(r.get(c)) for c in columns} for r in batch]
                with self.db._atomic():
                    self.db.dialect.run_core(
                        self.db.conn, self._insert(columns, conflict, pk), dicts
                    )
                continue
            sql = self.db.dialect.insert_sql(self.name, columns, conflict, pk)
            values = [[storable(r.get(c)) for c in columns] for r in batch]
            with self.db._atomic():
                self.db.executemany(sql, values)
        return self

    def _insert(self, columns: Sequence[str], conflict: Conflict, pk: Sequence[str]) -> Any:
        """The dialect's Core insert into this table: on a collision fail, skip (``ignore``) or
        overwrite the given non-key columns of the row with key ``pk`` (``replace``)."""
        statement = self.db.dialect.insert_core(self._clause([*columns, *pk]))
        if conflict == "ignore":
            return statement.on_conflict_do_nothing()
        if conflict == "replace" and pk:
            sets = {c: statement.excluded[c] for c in columns if c not in pk}
            if not sets:
                return statement.on_conflict_do_nothing(index_elements=list(pk))
            return statement.on_conflict_do_update(index_elements=list(pk), set_=sets)
        return statement

    def update(self, pk_values: PkValue, updates: Mapping[str, Any] | None = None) -> Self:
        """Set the given columns of the row with this primary key (``NotFoundError`` if none)."""
        if not updates:
            self.get(pk_values)
            return self
        if self._core:
            table = self._clause([*self.pks, *updates])
            statement = sa.update(table).where(self._key_match(table, pk_values))
            changed = statement.values({c: storable(v) for c, v in updates.items()})
            if self._run(changed).rowcount == 0:
                raise NotFoundError(f"{self.name} has no row {pk_values!r}")
            self.last_pk = pk_values
            return self
        where, values = self._where_pk(pk_values)
        mark = self.db.dialect.param
        sets = ", ".join(f"{self.db.dialect.quote(c)} = {mark}" for c in updates)
        args = [storable(v) for v in updates.values()] + values
        if self.db.execute(f"update {self._q} set {sets} where {where}", args).rowcount == 0:
            raise NotFoundError(f"{self.name} has no row {pk_values!r}")
        self.last_pk = pk_values
        return self

    def upsert(self, row: Mapping[str, Any], *, pk: str | Sequence[str]) -> Self:
        """Insert ``row``, or update the given columns of the row with the same ``pk``."""
        keys = [pk] if isinstance(pk, str) else list(pk)
        if any(row.get(k) is None for k in keys):
            raise ValueError(f"upsert into {self.name} needs a value for {', '.join(keys)}")
        columns = list(row)
        if self._core:
            statement = self._insert(columns, "replace", keys)
            self._run(statement.values({c: storable(row[c]) for c in columns}))
        else:
            sql = self.db.dialect.upsert_sql(self.name, columns, keys)
            self.db.execute(sql, [storable(row[c]) for c in columns])
        self.last_pk = row[keys[0]] if len(keys) == 1 else tuple(row[k] for k in keys)
        return self


def _conflict(replace: bool, ignore: bool, alter: bool) -> Conflict:
    if alter:
        raise ValueError("adding columns on insert (alter=True) is not supported: add a migration")
    if replace and ignore:
        raise ValueError("use either ignore=True or replace=True, not both")
    return "replace" if replace else "ignore" if ignore else "error"
