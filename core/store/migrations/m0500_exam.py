"""EXAM schema: exam banks, their queries and questions, articles per system/query, graded answers.

The exam questions live in their own table (``exam_questions``), never in ``questions``, so no
answering system's input can pick them up. A bank derived from this project's generated
long-span questions points back at them with ``source_question_id``.

``exam_runs`` extends ``runs`` (same id, ``runs.kind = 'exam'``): one run = one bank graded with
one Q/A model and one verification rule over every stored article of the bank.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.store.schema import execute_script

if TYPE_CHECKING:
    from core.store.engine import Database

SCHEMA = """
create table exam_banks (
    id text primary key,
    name text not null default '',
    source text not null,              -- car-y3 | generated | jsonl
    path text not null default '',
    document_id text references documents(id),   -- derived banks: the book
    n_queries integer not null default 0,
    n_questions integer not null default 0,
    metadata text not null default '{}',
    created_at text not null
);

create table exam_queries (
    bank_id text not null references exam_banks(id) on delete cascade,
    query_id text not null,
    query_text text not null default '',
    document_id text references documents(id),
    primary key (bank_id, query_id)
);

create table exam_questions (
    id text primary key,               -- '<bank_id>::<qid>'
    bank_id text not null references exam_banks(id) on delete cascade,
    query_id text not null,
    qid text not null,                 -- the id in the source file
    question text not null,
    choices text,                      -- JSON {key: text} for multiple choice, NULL for free text
    correct_key text,
    correct text,
    answers text not null default '[]',   -- reference answers (free text), JSON list
    facet_id text not null default '',
    source_question_id text references questions(id),
    line integer,
    metadata text not null default '{}',
    foreign key (bank_id, query_id) references exam_queries(bank_id, query_id)
);
create index exam_questions_query on exam_questions(bank_id, query_id);

create table exam_articles (
    id integer primary key,
    bank_id text not null references exam_banks(id) on delete cascade,
    query_id text not null,
    system text not null,              -- '_gold_' for the gold article
    kind text not null,                -- gold | retrieval | generated | imported
    text text not null,
    n_tokens integer not null default 0,
    metadata text not null default '{}',
    run_id text references runs(id),
    created_at text not null,
    unique (bank_id, query_id, system),
    foreign key (bank_id, query_id) references exam_queries(bank_id, query_id)
);

create table exam_runs (
    id text primary key references runs(id),
    bank_id text not null references exam_banks(id) on delete cascade,
    qa_model text not null,            -- offline:mc-bm25 | offline:extractive | provider:model
    verification text not null,        -- answer_key | ground_truth | self_rating
    threshold real,                    -- self_rating: minimum grade (4); ground_truth: min F1
    config text not null default '{}',
    created_at text not null
);

create table exam_grades (
    id integer primary key,
    run_id text not null references exam_runs(id) on delete cascade,
    article_id integer not null references exam_articles(id) on delete cascade,
    question_id text not null references exam_questions(id) on delete cascade,
    answer text not null default '',
    self_rating integer,               -- 0-5 (self_rating verification)
    score real,                        -- choice margin / token F1 / lexical coverage
    correct integer,                   -- 1 answered correctly, 0 not, NULL unparsed/error
    status text not null default 'ok',      -- ok | abstained | unparsed | error
    raw text not null default '',
    prompt_hash text not null default '',
    created_at text not null,
    unique (run_id, article_id, question_id)
);
create index exam_grades_run on exam_grades(run_id, article_id);
"""


def apply(db: Database) -> None:
    """Create the EXAM tables."""
    execute_script(db, SCHEMA)
