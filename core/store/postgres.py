"""The PostgreSQL dialect of the store's engine (issue 25): psycopg 3 behind :class:`Database`.

:data:`POSTGRES` is the second :class:`core.store.engine.Dialect`. The store modules not yet
converted to SQLAlchemy Core write their SQL in SQLite's spelling with ``?`` marks; this dialect
rewrites each such statement before psycopg sees it (DDL is no longer rewritten: the schema is
Alembic's, written per dialect, ``core/store/revisions/``):

- parameter marks: ``?`` -> ``%s`` and ``:name`` -> ``%(name)s`` outside string literals, quoted
  identifiers and comments; a literal ``%`` -> ``%%`` (psycopg's own escape) when there are
  parameters; SQLite's ``[name]`` identifier quoting -> ``"name"``; ``rowid`` (SQLite's row
  address) -> ``ctid`` (PostgreSQL's), which serves chunked deletes, not ordering;
- ``sum(boolean)``, ``json_extract`` (text only: a number comes back as text, unlike SQLite) and
  ``json_valid``: functions the baseline revision creates (``revisions/baseline/postgresql.sql``);
- ``insert or ignore into`` (also in store modules' own SQL) -> ``on conflict do nothing``, ``insert or replace`` -> ``on conflict (pk)
  do update``, the new row's key via ``returning``; tables and views from the catalogue.

Queries that use SQLite-only functions (``json_extract``, ``glob``, ``rowid``, ``strftime``, ...)
are not rewritten: docs/storage.md lists the store modules that still have them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

from core.store.engine import Conflict, Dialect

_WORD = re.compile(r"\w+")
_BRACKETED = re.compile(r"\[([A-Za-z_]\w*)\]")


def marks_to_psycopg(sql: str, with_params: bool) -> str:
    """``sql`` with SQLite parameter marks and ``[name]`` quoting in psycopg's spelling.

    Marks inside ``'...'`` literals, ``"..."`` identifiers and ``--`` comments stay; ``::`` (a
    cast) is not a named mark. Without parameters psycopg sends the text as is, so only the
    ``[name]`` quoting changes.
    """
    if not with_params and "[" not in sql and "rowid" not in sql.lower():
        return sql
    pct = "%%" if with_params else "%"
    out: list[str] = []
    i, n = 0, len(sql)
    while i < n:
        ch = sql[i]
        if ch in "'\"":
            end = sql.find(ch, i + 1)
            while end != -1 and end + 1 < n and sql[end + 1] == ch:
                end = sql.find(ch, end + 2)
            end = n - 1 if end == -1 else end
            out.append(sql[i : end + 1].replace("%", pct))
            i = end + 1
            continue
        if ch == "-" and sql.startswith("--", i):
            end = sql.find("\n", i)
            end = n if end == -1 else end
            out.append(sql[i:end].replace("%", pct))
            i = end
            continue
        if ch.isalpha() or ch == "_":
            word = _WORD.match(sql, i)
            assert word is not None
            out.append("ctid" if word.group(0).lower() == "rowid" else word.group(0))
            i = word.end()
            continue
        bracketed = _BRACKETED.match(sql, i) if ch == "[" else None
        if bracketed:
            out.append(f'"{bracketed.group(1)}"')
            i = bracketed.end()
            continue
        if ch == "?" and with_params:
            out.append("%s")
        elif ch == "%":
            out.append(pct)
        elif ch == ":" and sql.startswith("::", i):
            out.append("::")
            i += 2
            continue
        elif (
            ch == ":" and with_params and i + 1 < n and (sql[i + 1].isalpha() or sql[i + 1] == "_")
        ):
            m = re.match(r"\w+", sql[i + 1 :])
            assert m is not None
            out.append(f"%({m.group(0)})s")
            i += 1 + m.end()
            continue
        else:
            out.append(ch)
        i += 1
    return "".join(out)


_INSERT_OR_IGNORE = re.compile(r"(\s*)insert\s+or\s+ignore\s+into\b", re.I)


def translate(sql: str, with_params: bool) -> list[str]:
    """The PostgreSQL statement for one store statement: ``insert or ignore`` as ``on conflict do
    nothing`` and the marks rewritten (:func:`marks_to_psycopg`); a list (one statement)."""
    ignore = _INSERT_OR_IGNORE.match(sql)
    if ignore and "on conflict" not in sql.lower():
        sql = f"{ignore.group(1)}insert into{sql[ignore.end() :].rstrip().rstrip(';')} on conflict do nothing"
    return [marks_to_psycopg(sql, with_params)]


#: SQLAlchemy's dialect for psycopg 3 (what :meth:`PostgresDialect.run_core` compiles for).
_PG_DIALECT = postgresql.psycopg.dialect()  # type: ignore[no-untyped-call]

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
    param = (
        "?"  # the engine writes store-spelled SQL; pg_connection.PgConnection turns it into ``%s``
    )
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

    #: SQLAlchemy's dialect for psycopg 3, with positional ``%s`` marks (as SQLite's ``?``).
    sqlalchemy_dialect = postgresql.psycopg.dialect(paramstyle="format")  # type: ignore[no-untyped-call]

    def insert_core(self, table: Any) -> Any:
        """PostgreSQL's Core insert into ``table`` (``on_conflict_do_nothing`` / ``_do_update``)."""
        return postgresql.insert(table)

    def send(self, conn: Any, sql: str, params: Sequence[Any]) -> Any:
        """Run SQL compiled by SQLAlchemy for PostgreSQL as it is (``native``)."""
        return conn.execute(sql, params, native=True)

    def send_many(self, conn: Any, sql: str, rows: Sequence[Sequence[Any]]) -> Any:
        """Run SQL compiled for PostgreSQL once per row of parameters (one ``executemany``)."""
        return conn.executemany(sql, rows, native=True)

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
