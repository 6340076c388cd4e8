"""The SQL functions PostgreSQL needs before the schema (issue 33), defined once here and used by
both ways a schema is made: the baseline revision (``r0001_baseline`` runs :func:`create_all`
before its tables) and the MetaData (:func:`attach` makes them ``before_create``, so
``metadata.create_all`` works on an empty PostgreSQL database).

- ``json_extract(doc, path)``: SQLite's function of that name on a JSON text column (``$.a.b``),
  which ``llm_calls``' generated columns call (``core/store/tables.py``), with ``json_valid``;
- ``sum(boolean)``: an aggregate counting the true values, as SQLite's ``sum`` of 0/1 does.

SQLite has them built in: nothing is made there. And :class:`text_size`, a function compiled
per dialect (nothing to make). The text is what the numbered migrations made,
character for character (``tests/store/test_schema_upgrade.py``).
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.compiler import SQLCompiler

#: ``create or replace`` statements, in the order they depend on each other.
POSTGRESQL_FUNCTIONS = (
    "create or replace function workbench_sum_bool(s bigint, v boolean) returns bigint"
    " language sql immutable as $$ select case when v is null then s"
    " else coalesce(s, 0) + v::int end $$",
    "create or replace aggregate sum(boolean) (sfunc = workbench_sum_bool, stype = bigint)",
    "create or replace function json_extract(doc text, path text) returns text language sql"
    " immutable as $$ select (doc::jsonb) #>> string_to_array(replace(substr(path, 3), '\"', ''),"
    " '.') $$",
    "create or replace function json_valid(doc text) returns boolean language plpgsql immutable"
    " as $$ begin perform doc::jsonb; return doc is not null; exception when others then"
    " return false; end $$",
)


def ddl() -> list[sa.DDL]:
    """One ``DDL`` per function, run on PostgreSQL only."""
    return [
        sa.DDL(s).execute_if(dialect="postgresql")  # type: ignore[no-untyped-call]
        for s in POSTGRESQL_FUNCTIONS
    ]


def attach(metadata: sa.MetaData) -> None:
    """Make the functions before ``metadata``'s tables (``create_all``), on PostgreSQL."""
    for statement in ddl():
        sa.event.listen(metadata, "before_create", statement)


def create_all(conn: sa.Connection) -> None:
    """Make the functions on ``conn`` when it is PostgreSQL (nothing on SQLite)."""
    if conn.dialect.name == "postgresql":
        for statement in POSTGRESQL_FUNCTIONS:
            conn.exec_driver_sql(statement)


class text_size(sa.sql.functions.GenericFunction[int]):  # noqa: N801  (an SQL function's name)
    """A text's size for a fingerprint: SQLite's ``length`` (characters), PostgreSQL's
    ``octet_length`` (bytes), which PostgreSQL reads from the stored value's header without
    decompressing a long text (``length`` does: 5 ms a read of the demo's 776 answers against
    0.1 ms, issue 33). Either changes when a text's size does."""

    type = sa.Integer()
    inherit_cache = True


@compiles(text_size)
def _text_size_sqlite(element: text_size, compiler: SQLCompiler, **kw: Any) -> str:
    return f"length({compiler.process(element.clauses, **kw)})"


@compiles(text_size, "postgresql")
def _text_size_postgresql(element: text_size, compiler: SQLCompiler, **kw: Any) -> str:
    return f"octet_length({compiler.process(element.clauses, **kw)})"
