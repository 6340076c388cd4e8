"""What a revision imports: the ``DDL`` it runs for its connection's dialect (the triggers of
:mod:`core.store.triggers`, defined once; no SQL is rewritten) and the text column type of the
collation rule (:data:`Text`).

A revision runs them on its connection: ``for ddl in append_only("notes", bind.dialect.name):
op.execute(ddl)``.
"""

from __future__ import annotations

import sqlalchemy as sa

from core.store import triggers
from core.store.column_types import Text as Text  # defined outside this package: no cycle


def append_only(table: str, dialect: str) -> list[sa.DDL]:
    """The ``DDL`` that makes ``table`` append-only (an UPDATE or DELETE aborts with
    ``<table> is append-only: add a superseding row``) on ``dialect``: SQLite's
    ``raise(abort, ...)`` triggers, or PostgreSQL's PL/pgSQL function and trigger per operation
    (:func:`core.store.triggers.append_only`, the label tables' own)."""
    return [ddl for trigger in triggers.append_only(table) for ddl in trigger.ddl(dialect)]
