"""SQL helpers of the numbered migrations (run on an older SQLite database only): DDL scripts
inside a transaction, append-only triggers; and the one "effective row" condition."""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.store import triggers
from core.store.engine import plain
from core.store.sql_text import split_statements

if TYPE_CHECKING:
    from core.store.engine import Database


def execute_script(db: Database, script: str) -> None:
    """Run a multi-statement DDL script inside the current transaction.

    (``sqlite3.executescript`` would COMMIT first, breaking the migration's transaction.)
    Split at the semicolons outside quoted text, ``--`` comments removed
    (:func:`core.store.sql_text.split_statements`): ``default ';'`` and ``default '--'`` stay.
    """
    for statement in split_statements(script):
        plain(db.conn, statement)


def append_only(db: Database, table: str) -> None:
    """Install triggers that make ``table`` append-only (UPDATE and DELETE abort), in the
    database's own dialect (:func:`core.store.triggers.append_only`)."""
    for trigger in triggers.append_only(table):
        for statement in trigger.statements(db.dialect.name):
            plain(db.conn, statement)


def not_superseded(table: str, alias: str = "t") -> str:
    """SQL condition: row ``alias`` of the append-only ``table`` is effective (no later row's
    ``supersedes`` names it). The one place this condition is written."""
    return f"not exists (select 1 from {table} s where s.supersedes = {alias}.id)"
