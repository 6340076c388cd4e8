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

from collections.abc import Sequence
from functools import cached_property
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine.interfaces import Dialect as SaDialect

from core.store.engine import Conflict, Dialect

#: The primary-key columns of table ``:table`` (a quoted name) in key order.
_PRIMARY_KEY = sa.text(
    "select a.attname from pg_index i join pg_attribute a on a.attrelid = i.indrelid "
    "and a.attnum = any(i.indkey) where i.indrelid = cast(:table as regclass) and i.indisprimary "
    "order by array_position(cast(i.indkey as int2[]), a.attnum)"
)

#: The columns of table ``:table`` a row may set, in table order.
_COLUMNS = sa.text(
    "select column_name from information_schema.columns where table_schema = current_schema() "
    "and table_name = :table and is_generated = 'NEVER' order by ordinal_position"
)


class PostgresDialect(Dialect):
    """PostgreSQL's spelling of the engine's dialect-specific statements (see the module)."""

    name = "postgresql"
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

    @cached_property
    def sqlalchemy_dialect(self) -> SaDialect:  # type: ignore[override]
        """SQLAlchemy's dialect for psycopg 3, with positional ``%s`` marks (as SQLite's ``?``);
        imported on first use: a SQLite workbench never loads SQLAlchemy's PostgreSQL dialect."""
        from sqlalchemy.dialects.postgresql import psycopg

        return psycopg.dialect(paramstyle="format")  # type: ignore[no-untyped-call]

    def insert_core(self, table: Any) -> Any:
        """PostgreSQL's Core insert into ``table`` (``on_conflict_do_nothing`` / ``_do_update``)."""
        from sqlalchemy.dialects.postgresql import insert

        return insert(table)

    def send(self, conn: Any, sql: str, params: Sequence[Any]) -> Any:
        """Run SQL compiled by SQLAlchemy for PostgreSQL as it is."""
        return conn.execute(sql, params)

    def send_many(self, conn: Any, sql: str, rows: Sequence[Sequence[Any]]) -> Any:
        """Run SQL compiled for PostgreSQL once per row of parameters (one ``executemany``)."""
        return conn.executemany(sql, rows)

    def returned_key(self, pk: Sequence[str], conflict: Conflict) -> str | None:
        """Every insert returns a one-column key (what :meth:`last_insert_id` reads)."""
        return pk[0] if len(pk) == 1 else None

    def column_names(self, conn: Any, table: str) -> list[str]:
        """The columns of ``table`` a row may set, in table order (generated ones left out)."""
        found = self.run_core(conn, _COLUMNS.bindparams(table=table)).fetchall()
        return [str(r[0]) for r in found]

    def primary_key(self, conn: Any, table: str) -> list[str]:
        """The primary-key columns of ``table`` in key order, from ``pg_index``."""
        found = self.run_core(conn, _PRIMARY_KEY.bindparams(table=self.quote(table))).fetchall()
        if not found:
            raise LookupError(f"table {table} has no primary key")
        return [str(r[0]) for r in found]


POSTGRES = PostgresDialect()
