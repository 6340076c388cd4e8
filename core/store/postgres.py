"""The PostgreSQL dialect of the store's engine (issue 25): psycopg 3 behind :class:`Database`.

:data:`POSTGRES` is the second :class:`core.store.engine.Dialect`: the statements the engine
spells per dialect (``BEGIN``, the migration lock, the catalogue queries) and its table helpers'
Core statements compiled by SQLAlchemy for PostgreSQL (:meth:`PostgresDialect.run_core`). Nothing
rewrites SQL (issue 33): a store module's statement is SQLAlchemy Core or ``text()`` with bound
parameters, compiled per dialect (:mod:`core.store.statements`), and the connection refuses one
in SQLite's spelling (:func:`core.store.pg_connection.refuse_sqlite_marks`). The schema is
Alembic's, written per dialect (``core/store/revisions/``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

from core.store.engine import Conflict, Dialect

#: SQLAlchemy's dialect for psycopg 3 (what :meth:`PostgresDialect.run_core` compiles for).
_PG_DIALECT = postgresql.psycopg.dialect()  # type: ignore[no-untyped-call]

#: The primary-key columns of table ``:table`` (a quoted name) in key order.
_PRIMARY_KEY = sa.text(
    "select a.attname from pg_index i join pg_attribute a on a.attrelid = i.indrelid "
    "and a.attnum = any(i.indkey) where i.indrelid = cast(:table as regclass) and i.indisprimary "
    "order by array_position(cast(i.indkey as int2[]), a.attnum)"
)


class PostgresDialect(Dialect):
    """PostgreSQL's spelling of the engine's dialect-specific statements (see the module)."""

    name = "postgresql"
    param = "%s"  # psycopg's mark (the table helpers build Core statements here: run_core)
    begin_sql = "BEGIN"
    migration_lock_sql = "select pg_advisory_xact_lock(2025)"
    row_locks = True  # pg_advisory_xact_lock (core.store.row_locks)
    table_names_sql = (
        "select table_name from information_schema.tables "
        "where table_schema = current_schema() and table_type = 'BASE TABLE'"
    )
    view_names_sql = (
        "select table_name from information_schema.views where table_schema = current_schema()"
    )
    returns_key = True
    ids_in_commit_order = False  # concurrent transactions commit their identity values in any order

    def insert_sql(
        self,
        table: str,
        columns: Sequence[str],
        conflict: Conflict = "error",
        pk: Sequence[str] = (),
    ) -> str:
        """One-row insert; ``ignore`` -> ``on conflict do nothing``, ``replace`` -> ``on conflict
        (pk) do update`` of every given non-key column."""
        if not columns:
            base = f"insert into {self.quote(table)} default values"
        else:
            cols = ", ".join(self.quote(c) for c in columns)
            base = f"insert into {self.quote(table)} ({cols}) values ({self.marks(len(columns))})"
        if conflict == "ignore":
            return base + " on conflict do nothing"
        if conflict == "replace" and pk:
            sets = [f"{self.quote(c)} = excluded.{self.quote(c)}" for c in columns if c not in pk]
            action = "do update set " + ", ".join(sets) if sets else "do nothing"
            return f"{base} on conflict ({', '.join(self.quote(k) for k in pk)}) {action}"
        return base

    def insert_core(self, table: Any) -> Any:
        """PostgreSQL's Core insert into ``table`` (``on_conflict_do_nothing`` / ``_do_update``)."""
        return postgresql.insert(table)

    def run_core(self, conn: Any, statement: Any, rows: Sequence[Mapping[str, Any]] = ()) -> Any:
        """Run a Core statement compiled by SQLAlchemy for PostgreSQL, as it is; ``rows``: once
        per row (one ``executemany``), nothing for none."""
        if rows:
            done = statement.compile(dialect=_PG_DIALECT, column_keys=list(rows[0]))
            return conn.executemany(done.string, [dict(r) for r in rows])
        done = statement.compile(dialect=_PG_DIALECT)
        return conn.execute(done.string, done.params)

    def returning(self, pk: Sequence[str]) -> str:
        """``returning <key>`` for a one-column key (what :meth:`last_insert_id` reads)."""
        return f" returning {self.quote(pk[0])}" if len(pk) == 1 else ""

    def last_insert_id(self, cursor: Any) -> Any:
        """The key the insert's ``returning`` clause gave (``None`` if no row was written)."""
        if cursor.description is None:
            return None
        row = cursor.fetchone()
        return None if row is None else row[0]

    def primary_key(self, conn: Any, table: str) -> list[str]:
        """The primary-key columns of ``table`` in key order, from ``pg_index``."""
        found = self.run_core(conn, _PRIMARY_KEY.bindparams(table=self.quote(table))).fetchall()
        if not found:
            raise LookupError(f"table {table} has no primary key")
        return [str(r[0]) for r in found]


POSTGRES = PostgresDialect()
