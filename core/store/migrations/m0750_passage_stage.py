"""Staged passages of a document import (:mod:`core.store.passage_stage`): an import writes a
long book's passages here in short transactions, invisible to every reader, then moves them into
``passages`` in one short switch transaction. A stage left by a process that died is removed by
the next import."""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.store.schema import execute_script

if TYPE_CHECKING:
    from core.store.engine import Database

SCHEMA = """
create table if not exists passage_stage (
    stage text not null,            -- one import: '<host>:<pid>:<random>'
    document_id text not null,      -- the document the passages are for (no foreign key yet)
    idx integer not null,
    start integer not null,
    end integer not null,
    text text not null,
    n_tokens integer not null,
    primary key (stage, idx)
);
create index if not exists passage_stage_document on passage_stage(document_id);
"""


def apply(db: Database) -> None:
    """Create the staging table."""
    execute_script(db, SCHEMA)
