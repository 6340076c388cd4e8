"""Entity edits: a person's merge / split / rename / retype / drop of a document's entities.

``entity_edits`` is append-only: each row is one edit (``payload`` holds its arguments as JSON),
who made it and when; an undo is a new row (``action = 'undo'``, ``undoes`` = the edit's id).
``entity_bases`` keeps the extraction output an edit was applied to (one row per document,
method and extraction run), so the effective entities are always that output with the edits
replayed in order (:mod:`core.generation.entity_edits`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.store.schema import append_only, execute_script

if TYPE_CHECKING:
    from core.store.engine import Database

SCHEMA = """
create table entity_edits (
    id integer primary key,
    document_id text not null,
    action text not null check (action in ('merge', 'split', 'rename', 'retype', 'drop', 'undo')),
    payload text not null default '{}',
    made_by text not null,
    created_at text not null,
    undoes integer references entity_edits(id)
);
create index entity_edits_document on entity_edits(document_id, id);
create unique index entity_edits_one_undo on entity_edits(undoes) where undoes is not null;

create table entity_bases (
    document_id text not null,
    method text not null,
    run_id text not null,
    entities text not null,
    created_at text not null,
    primary key (document_id, method, run_id)
);
"""


def apply(db: Database) -> None:
    """Create ``entity_edits`` (append-only) and ``entity_bases``."""
    execute_script(db, SCHEMA)
    append_only(db, "entity_edits")
