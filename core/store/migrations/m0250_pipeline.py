"""Pipeline tables: registered judges (auto-raters) and experiments.

``judges`` mirrors ``systems``: a named auto-rater = kind + model + context strategy + prompt, so a
rater name (``auto:<name>``) always means one configuration. ``experiments`` records what an
experiment file asked for (config, sampled question ids) so a report can be rebuilt from the
store alone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.store.schema import execute_script

if TYPE_CHECKING:
    from core.store.engine import Database

SCHEMA = """
create table judges (
    name text primary key,
    kind text not null,             -- autoais | side_by_side | reference_absolute | reference_side_by_side
    model text not null,            -- provider:model
    context text not null,          -- none | rag | full (what the rater reads besides the answers)
    params text not null default '{}',
    prompt text not null default '',
    family text not null default '',
    description text not null default '',
    created_at text not null
);

create table experiments (
    name text primary key,
    path text not null default '',
    config text not null default '{}',
    question_ids text not null default '[]',
    status text not null default 'planned',   -- planned | running | done | failed
    summary text not null default '{}',
    run_id text references runs(id),
    created_at text not null,
    updated_at text not null
);

create index answers_system on answers(system);
create index judgments_pair on judgments(question_id, rater, system_a, system_b);
create index judgments_answer on judgments(answer_id, rater);
"""


def apply(db: Database) -> None:
    """Create the judges and experiments tables and lookup indexes."""
    execute_script(db, SCHEMA)
