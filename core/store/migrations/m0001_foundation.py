"""Foundation schema: corpus, questions, systems, answers, judgments, reviews, disputes, runs.

JSON columns hold lists/objects encoded as text. Timestamps are UTC ISO-8601 strings.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.store.schema import append_only, execute_script

if TYPE_CHECKING:
    from core.store.engine import Database

SCHEMA = """
create table documents (
    id text primary key,            -- e.g. a NarrativeQA document_id, or '<id>#summary'
    title text not null default '',
    author text not null default '',
    kind text not null,             -- book | story | summary | article | movie | gold_article | generated_article
    source text not null,           -- narrativeqa | gutenberg | xquad | file | ...
    language text not null default 'en',
    parent_id text references documents(id),   -- a summary points at its story
    text text not null,
    n_chars integer not null,
    n_tokens integer not null,
    sha256 text not null,
    metadata text not null default '{}',
    created_at text not null,
    updated_at text not null
);
create index documents_kind on documents(kind);
create index documents_parent on documents(parent_id);

create table passages (
    id integer primary key,
    document_id text not null references documents(id) on delete cascade,
    idx integer not null,           -- position in the document (book order)
    start integer not null,         -- character offsets into documents.text, [start, end)
    end integer not null,
    text text not null,
    n_tokens integer not null,
    unique (document_id, idx)
);

create table runs (
    id text primary key,
    kind text not null,             -- import | generate | answer | judge | experiment | ...
    name text not null default '',
    config text not null default '{}',
    status text not null default 'running',   -- running | done | failed | interrupted
    started_at text not null,
    finished_at text,
    n_calls integer not null default 0,
    input_tokens integer not null default 0,
    output_tokens integer not null default 0,
    cost_usd real not null default 0,
    note text not null default ''
);

create table entities (
    id integer primary key,
    document_id text not null references documents(id) on delete cascade,
    name text not null,             -- canonical name
    aliases text not null default '[]',
    label text not null default '', -- PERSON | PLACE | ORG | ...
    n_mentions integer not null,
    rank integer not null,          -- 1 = most frequent
    method text not null,           -- proper-noun | spacy | llm-merge ...
    run_id text references runs(id),
    unique (document_id, name, method)
);

create table mentions (
    id integer primary key,
    entity_id integer not null references entities(id) on delete cascade,
    document_id text not null references documents(id) on delete cascade,
    start integer not null,
    end integer not null,
    surface text not null,
    passage_idx integer
);
create index mentions_entity on mentions(entity_id);

create table questions (
    id text primary key,
    document_id text references documents(id),        -- the book/story (or first article)
    context_document_id text references documents(id), -- what answers it: story, summary, ...
    context_kind text not null default 'story',         -- story | summary | article | articles
    question text not null,
    answers text not null default '[]',                 -- reference answers (list)
    origin text not null,           -- generated | narrativeqa | imported | exam | xrag
    split text not null default '',
    qtype text not null default '',
    entity_id integer references entities(id),
    language text not null default 'en',
    parent_id text references questions(id),           -- translation or edit of
    status text not null default 'pending',             -- pending | accepted | rejected | edited | discarded
    provenance text not null default '{}',
    metadata text not null default '{}',
    run_id text references runs(id),
    created_at text not null,
    updated_at text not null
);
create index questions_document on questions(document_id);
create index questions_origin on questions(origin);

create table systems (
    name text primary key,
    model text not null,            -- provider:model
    context text not null,          -- none | rag | full | oracle | ...
    params text not null default '{}',
    prompt text not null default '',
    family text not null default '',
    description text not null default '',
    created_at text not null
);

create table answers (
    id integer primary key,
    question_id text not null references questions(id),
    system text not null references systems(name),
    text text not null default '',
    status text not null default 'ok',  -- ok | abstained | error
    error text not null default '',
    context_tokens integer not null default 0,
    input_tokens integer not null default 0,
    output_tokens integer not null default 0,
    cost_usd real not null default 0,
    cache_key text,
    run_id text references runs(id),
    metadata text not null default '{}',
    created_at text not null,
    unique (question_id, system)
);

create table judgments (
    id integer primary key,
    kind text not null,             -- absolute | pairwise
    question_id text not null references questions(id),
    rater text not null,            -- e.g. auto:autoais-lexical  |  human:alice
    rater_kind text not null,       -- auto | human
    criterion text not null default '',  -- supported | better | matches-reference ...
    system text,                    -- absolute: the system rated
    answer_id integer references answers(id),
    system_a text,                  -- pairwise: the system SHOWN as A
    system_b text,                  -- pairwise: the system SHOWN as B
    answer_a_id integer references answers(id),
    answer_b_id integer references answers(id),
    order_shown text not null default '',  -- 'ab' when A is the canonically first system, else 'ba'
    verdict text,                   -- absolute: yes | no ; pairwise: A | B | Equal | None ; NULL if unparsed
    status text not null default 'ok',     -- ok | unparsed | error | skipped
    evidence text not null default '[]',   -- [{quote, verified, score, start}]
    rationale text not null default '',
    raw text not null default '',
    prompt_hash text not null default '',
    context_kind text not null default '',
    run_id text references runs(id),
    supersedes integer references judgments(id),
    created_at text not null
);
create index judgments_question on judgments(question_id);
create index judgments_rater on judgments(rater);
create index judgments_kind on judgments(kind, rater);

create table reviews (
    id integer primary key,
    question_id text not null references questions(id),
    annotator text not null,
    decision text not null,         -- accept | reject | edit
    checklist text not null default '{}',
    edited_question text,
    edited_answer text,
    note text not null default '',
    supersedes integer references reviews(id),
    created_at text not null
);
create index reviews_question on reviews(question_id);

create table disputes (
    id integer primary key,
    question_id text not null references questions(id),
    answer_id integer not null references answers(id),
    system text not null,
    gt_judgment_id integer not null references judgments(id),
    ctx_judgment_id integer not null references judgments(id),
    gt_verdict text not null,
    ctx_verdict text not null,
    run_id text references runs(id),
    created_at text not null,
    unique (gt_judgment_id, ctx_judgment_id)
);

create table dispute_resolutions (
    id integer primary key,
    dispute_id integer not null references disputes(id),
    annotator text not null,
    resolution text not null,       -- reference_wrong | model_wrong | both_acceptable | ambiguous
    corrected_answer text,
    note text not null default '',
    supersedes integer references dispute_resolutions(id),
    created_at text not null
);

create table settings (
    key text primary key,
    value text not null
);
"""


def apply(db: Database) -> None:
    """Create the foundation tables and the append-only triggers."""
    execute_script(db, SCHEMA)
    for table in ("judgments", "reviews", "dispute_resolutions"):
        append_only(db, table)
