"""DDL a revision writes for each dialect, spelled out once here (no SQL is rewritten), and the
text column type of the collation rule (:data:`Text`).

A revision runs them on its connection: ``for s in append_only("notes", bind.dialect.name):
op.execute(s)``.
"""

from __future__ import annotations

from core.store.column_types import Text as Text  # defined outside this package: no cycle


def append_only(table: str, dialect: str) -> list[str]:
    """Triggers that make ``table`` append-only (an UPDATE or DELETE aborts with
    ``<table> is append-only: add a superseding row``): SQLite's ``raise(abort, ...)`` triggers,
    or PostgreSQL's PL/pgSQL function and trigger per operation."""
    message = f"'{table} is append-only: add a superseding row'"
    if dialect == "sqlite":
        return [
            f"create trigger if not exists {table}_no_{op} before {op} on {table} "
            f"begin select raise(abort, {message}); end"
            for op in ("update", "delete")
        ]
    if dialect != "postgresql":
        raise ValueError(f"no DDL for dialect {dialect!r}")
    out = []
    for op in ("update", "delete"):
        out.append(
            f"create or replace function {table}_no_{op}_fn() returns trigger "
            f"language plpgsql as $fn$ begin raise exception using message = {message}, "
            "errcode = 'P0001'; end $fn$"
        )
        out.append(
            f"create or replace trigger {table}_no_{op} before {op} on {table} "
            f"for each row execute function {table}_no_{op}_fn()"
        )
    return out
