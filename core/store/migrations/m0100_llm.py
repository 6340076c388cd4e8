"""Model layer: reply cache, one row per call (tokens, cost, failures), batch jobs.

``llm_cache`` is content-addressed: ``key`` is the sha256 of provider, model, full input and
parameters (``LLMRequest.cache_key``); ``request`` keeps a summary with the context replaced by
its sha256 and length. ``llm_calls`` records every call (cache hits with ``cache_hit = 1`` and
zero cost; failures with ``status = 'error'`` and ``error_kind``). ``llm_batches`` and
``llm_batch_items`` make provider batch jobs resumable by batch id.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.store.schema import execute_script

if TYPE_CHECKING:
    from core.store.engine import Database

SCHEMA = """
create table llm_cache (
    key text primary key,
    model text not null,
    request text not null default '{}',
    response text not null,
    created_at text not null
);

create table llm_calls (
    id integer primary key,
    run_id text references runs(id),
    model text not null,
    provider text not null,
    task text not null default '',
    purpose text not null default '',
    tags text not null default '{}',
    system_name text generated always as (json_extract(tags, '$.system')) virtual,
    judge_name text generated always as (json_extract(tags, '$.judge')) virtual,
    cache_key text,
    cache_hit integer not null default 0,
    batch_id text,
    status text not null,            -- ok | error
    error_kind text,                 -- rate_limit | server | connection | timeout | bad_response | auth | ...
    error text not null default '',
    attempts integer not null default 1,
    input_tokens integer not null default 0,
    output_tokens integer not null default 0,
    cached_tokens integer not null default 0,
    cache_write_tokens integer not null default 0,
    cost_usd real not null default 0,
    latency_s real not null default 0,
    finish_reason text not null default '',
    request_id text not null default '',
    created_at text not null
);
create index llm_calls_run on llm_calls(run_id);
create index llm_calls_model on llm_calls(model);
create index llm_calls_key on llm_calls(cache_key);

create table llm_batches (
    id text primary key,             -- the provider's batch id
    provider text not null,
    model text not null,
    status text not null,            -- submitted | in_progress | completed | failed | expired | cancelled | imported
    n_requests integer not null,
    n_imported integer not null default 0,
    n_failed integer not null default 0,
    run_id text references runs(id),
    metadata text not null default '{}',
    created_at text not null,
    updated_at text not null
);

create table llm_batch_items (
    batch_id text not null references llm_batches(id),
    custom_id text not null,
    cache_key text not null,
    request text not null,           -- summary (context by hash), purpose and tags
    status text not null default 'pending',   -- pending | ok | error
    primary key (batch_id, custom_id)
);
"""


def apply(db: Database) -> None:
    """Create the model-layer tables."""
    execute_script(db, SCHEMA)
