"""Question generation: replies that could not be turned into questions are kept, not lost.

``generation_failures`` holds one row per failed generation call (provider error or unparseable
reply) with the raw reply, so a re-run can retry and a reviewer can see what the model said.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.store.schema import execute_script

if TYPE_CHECKING:
    from core.store.engine import Database

SCHEMA = """
create table generation_failures (
    id integer primary key,
    run_id text references runs(id),
    document_id text references documents(id) on delete cascade,
    entity_id integer references entities(id) on delete set null,
    model text not null,
    prompt_hash text not null default '',
    kind text not null,             -- provider_error | unparsed | empty
    error text not null default '',
    raw text not null default '',
    created_at text not null
);
create index generation_failures_document on generation_failures(document_id);
"""


def apply(db: Database) -> None:
    """Create the generation_failures table."""
    execute_script(db, SCHEMA)
