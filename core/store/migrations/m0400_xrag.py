"""XRAG schema: article pairs, per-article notes, cross-document items, distractors, results.

Articles themselves are ``documents`` rows (``kind='article'``, ``language`` set, metadata
``{"published": "YYYY-MM-DD", "url": ...}``); a translated version of an article is a document
whose ``parent_id`` is the English article. Cross-document questions and their translations are
``questions`` rows (``origin='xrag'``; a translation has ``parent_id`` = the English question).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.store.schema import execute_script

if TYPE_CHECKING:
    from core.store.engine import Database

SCHEMA = """
create table article_pairs (
    id integer primary key,
    article_a text not null references documents(id),   -- the earlier-published article
    article_b text not null references documents(id),
    shared_entities text not null default '[]',          -- title entities both share
    days_apart integer not null,
    method text not null default 'title-entities',       -- title-entities | title-entities+model
    related text,                                         -- model check: yes | no | NULL (not asked)
    status text not null default 'active',                -- active | rejected
    provenance text not null default '{}',
    created_at text not null,
    unique (article_a, article_b)
);

create table xrag_article_notes (
    id integer primary key,
    article_id text not null references documents(id),
    kind text not null,                 -- summary | qa
    question text not null default '',  -- qa: the single-step question
    answer text not null default '',    -- qa: its answer; summary: the summary text
    language text not null default 'en',
    provenance text not null default '{}',   -- {"builder": "llm"|"xquad-human", model, prompt_hash}
    created_at text not null
);
create index xrag_article_notes_article on xrag_article_notes(article_id, kind);

create table xrag_items (
    question_id text primary key references questions(id),   -- the English question
    pair_id integer not null references article_pairs(id),
    qtype text not null,                -- aggregation | comparison | multihop | set
    sub_questions text not null default '[]',  -- [{"article": "A"|"B", "question", "answer"}]
    builder text not null,              -- llm | baseline:xquad-compose
    created_at text not null
);
create index xrag_items_pair on xrag_items(pair_id);

create table xrag_distractors (
    pair_id integer not null references article_pairs(id),
    language text not null,             -- en, or the non-English language X of the version
    rank integer not null,              -- 1 = most related
    document_id text not null references documents(id),
    english_id text not null references documents(id),  -- the English article it is a version of
    score real not null,
    primary key (pair_id, language, rank)
);

create table xrag_results (
    id integer primary key,
    question_id text not null references questions(id),  -- the question as asked (any language)
    item_id text not null references questions(id),      -- the English question of the item
    language text not null,             -- the question's language
    setting text not null,              -- english | monolingual | multilingual | none | oracle | controlled:q?-s?-d?
    model text not null,
    qtype text not null default '',
    documents text not null default '[]',  -- ids in the order shown
    answer text not null default '',
    answer_status text not null default 'ok',  -- ok | error
    response_language text,             -- lingua's detection; NULL = undetermined
    language_ok integer,                -- 1 | 0 | NULL (undetermined)
    votes text not null default '[]',   -- [{"judge", "verdict", "status"}]
    content_verdict text,               -- the panel majority on content: yes | no | NULL
    panel_status text not null,         -- ok | tie | unparsed | error
    verdict text,                       -- final: yes | no | NULL (no majority)
    judge_panel text not null default '',
    run_id text references runs(id),
    created_at text not null,
    unique (question_id, setting, model, judge_panel)
);
create index xrag_results_setting on xrag_results(setting, language, model);
"""


def apply(db: Database) -> None:
    """Create the XRAG tables."""
    execute_script(db, SCHEMA)
