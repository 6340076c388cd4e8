"""The store's tables declared once for SQLAlchemy Core (issue 33), with per-dialect types.

Each declaration is the schema its revisions made, column for column
(``tests/store/test_store_contract.py`` compares it with the migrated database on both backends);
the append-only tables carry their triggers (:func:`core.store.triggers.attach`), the MetaData
PostgreSQL's functions (:mod:`core.store.sql_functions`). The revisions
create a database's tables: this is what statements are built from, so no SQL text is rewritten
for them (docs/storage.md, "Adding a table and a migration").

Types: an ``integer`` column is SQLite's ``INTEGER`` and PostgreSQL's ``BIGINT`` (what the
migrations made there), a ``real`` one ``REAL`` / ``DOUBLE PRECISION``; text stays text (JSON
columns are stored as text on both and decoded by :func:`core.store.connection.decode_row`).
"""

from __future__ import annotations

import sqlalchemy as sa

from core.store import sql_functions, triggers
from core.store.column_types import Text as Text  # SQLite ``text``, PostgreSQL ``collate "C"``

metadata = sa.MetaData()
sql_functions.attach(metadata)  # PostgreSQL's json_extract, sum(boolean): before the tables

#: SQLite ``integer`` / PostgreSQL ``bigint``.
Int = sa.Integer().with_variant(sa.BigInteger(), "postgresql")
#: SQLite ``real`` / PostgreSQL ``double precision``.
Real = sa.Float().with_variant(sa.DOUBLE_PRECISION(), "postgresql")

#: m0001, append-only (triggers): auto-raters' and people's verdicts.
judgments = sa.Table(
    "judgments",
    metadata,
    sa.Column("id", Int, primary_key=True),
    sa.Column("kind", Text, nullable=False),
    sa.Column("question_id", Text, nullable=False),
    sa.Column("rater", Text, nullable=False),
    sa.Column("rater_kind", Text, nullable=False),
    sa.Column("criterion", Text, nullable=False, server_default=""),
    sa.Column("system", Text),
    sa.Column("answer_id", Int),
    sa.Column("system_a", Text),
    sa.Column("system_b", Text),
    sa.Column("answer_a_id", Int),
    sa.Column("answer_b_id", Int),
    sa.Column("order_shown", Text, nullable=False, server_default=""),
    sa.Column("verdict", Text),
    sa.Column("status", Text, nullable=False, server_default="ok"),
    sa.Column("evidence", Text, nullable=False, server_default="[]"),
    sa.Column("rationale", Text, nullable=False, server_default=""),
    sa.Column("raw", Text, nullable=False, server_default=""),
    sa.Column("prompt_hash", Text, nullable=False, server_default=""),
    sa.Column("context_kind", Text, nullable=False, server_default=""),
    sa.Column("run_id", Text),
    sa.Column("supersedes", Int),
    sa.Column("created_at", Text, nullable=False),
)
triggers.attach(judgments)  # append-only, no-replace, same-owner: core.store.triggers

#: m0760: failed sign-in attempts per client.
sign_in_failures = sa.Table(
    "sign_in_failures",
    metadata,
    sa.Column("id", Int, primary_key=True),
    sa.Column("client", Text, nullable=False),
    sa.Column("failed_at", Real, nullable=False),
)

#: m0100: content-addressed model replies.
llm_cache = sa.Table(
    "llm_cache",
    metadata,
    sa.Column("key", Text, primary_key=True),
    sa.Column("model", Text, nullable=False),
    sa.Column("request", Text, nullable=False, server_default="{}"),
    sa.Column("response", Text, nullable=False),
    sa.Column("created_at", Text, nullable=False),
)

#: m0100: the call ledger (one row per model call, cache hits and failures included).
#: ``system_name`` / ``judge_name`` are generated from ``tags`` (never inserted).
llm_calls = sa.Table(
    "llm_calls",
    metadata,
    sa.Column("id", Int, primary_key=True),
    sa.Column("run_id", Text),
    sa.Column("model", Text, nullable=False),
    sa.Column("provider", Text, nullable=False),
    sa.Column("task", Text, nullable=False, server_default=""),
    sa.Column("purpose", Text, nullable=False, server_default=""),
    sa.Column("tags", sa.Text, nullable=False, server_default="{}"),  # JSON: not ordered (0002)
    sa.Column("system_name", Text, sa.Computed("json_extract(tags, '$.system')")),
    sa.Column("judge_name", Text, sa.Computed("json_extract(tags, '$.judge')")),
    sa.Column("cache_key", Text),
    sa.Column("cache_hit", Int, nullable=False, server_default="0"),
    sa.Column("batch_id", Text),
    sa.Column("status", Text, nullable=False),
    sa.Column("error_kind", Text),
    sa.Column("error", Text, nullable=False, server_default=""),
    sa.Column("attempts", Int, nullable=False, server_default="1"),
    sa.Column("input_tokens", Int, nullable=False, server_default="0"),
    sa.Column("output_tokens", Int, nullable=False, server_default="0"),
    sa.Column("cached_tokens", Int, nullable=False, server_default="0"),
    sa.Column("cache_write_tokens", Int, nullable=False, server_default="0"),
    sa.Column("cost_usd", Real, nullable=False, server_default="0"),
    sa.Column("latency_s", Real, nullable=False, server_default="0"),
    sa.Column("finish_reason", Text, nullable=False, server_default=""),
    sa.Column("request_id", Text, nullable=False, server_default=""),
    sa.Column("created_at", Text, nullable=False),
)

#: m0001 (index on ``system``: m0250): one answer per question and system.
answers = sa.Table(
    "answers",
    metadata,
    sa.Column("id", Int, primary_key=True),
    sa.Column("question_id", Text, nullable=False),
    sa.Column("system", Text, nullable=False),
    sa.Column("text", Text, nullable=False, server_default=""),
    sa.Column("status", Text, nullable=False, server_default="ok"),
    sa.Column("error", Text, nullable=False, server_default=""),
    sa.Column("context_tokens", Int, nullable=False, server_default="0"),
    sa.Column("input_tokens", Int, nullable=False, server_default="0"),
    sa.Column("output_tokens", Int, nullable=False, server_default="0"),
    sa.Column("cost_usd", Real, nullable=False, server_default="0"),
    sa.Column("cache_key", Text),
    sa.Column("run_id", Text),
    sa.Column("metadata", Text, nullable=False, server_default="{}"),
    sa.Column("created_at", Text, nullable=False),
    sa.UniqueConstraint("question_id", "system"),
)

#: m0680: items put into the team's queue with an overlap, to validate an auto-rater.
validation_items = sa.Table(
    "validation_items",
    metadata,
    sa.Column("id", Int, primary_key=True),
    sa.Column("task", Text, nullable=False),
    sa.Column("item_key", Text, nullable=False),
    sa.Column("rater", Text, nullable=False),
    sa.Column("overlap", Int, nullable=False),
    sa.Column("requested_by", Text, nullable=False),
    sa.Column("created_at", Text, nullable=False),
    sa.UniqueConstraint("task", "item_key", "rater"),
)
triggers.attach(validation_items)  # append-only, no-replace, same-owner: core.store.triggers

#: m0001: questions (generated, imported, exam, xrag), reference answers as JSON text.
questions = sa.Table(
    "questions",
    metadata,
    sa.Column("id", Text, primary_key=True),
    sa.Column("document_id", Text),
    sa.Column("context_document_id", Text),
    sa.Column("context_kind", Text, nullable=False, server_default="story"),
    sa.Column("question", Text, nullable=False),
    sa.Column("answers", Text, nullable=False, server_default="[]"),
    sa.Column("origin", Text, nullable=False),
    sa.Column("split", Text, nullable=False, server_default=""),
    sa.Column("qtype", Text, nullable=False, server_default=""),
    sa.Column("entity_id", Int),
    sa.Column("language", Text, nullable=False, server_default="en"),
    sa.Column("parent_id", Text),
    sa.Column("status", Text, nullable=False, server_default="pending"),
    sa.Column("provenance", Text, nullable=False, server_default="{}"),
    sa.Column("metadata", Text, nullable=False, server_default="{}"),
    sa.Column("run_id", Text),
    sa.Column("created_at", Text, nullable=False),
    sa.Column("updated_at", Text, nullable=False),
)

#: m0001: answers whose ground-truth and context judgments disagree.
disputes = sa.Table(
    "disputes",
    metadata,
    sa.Column("id", Int, primary_key=True),
    sa.Column("question_id", Text, nullable=False),
    sa.Column("answer_id", Int, nullable=False),
    sa.Column("system", Text, nullable=False),
    sa.Column("gt_judgment_id", Int, nullable=False),
    sa.Column("ctx_judgment_id", Int, nullable=False),
    sa.Column("gt_verdict", Text, nullable=False),
    sa.Column("ctx_verdict", Text, nullable=False),
    sa.Column("run_id", Text),
    sa.Column("created_at", Text, nullable=False),
    sa.UniqueConstraint("gt_judgment_id", "ctx_judgment_id"),
)

#: m0400 (XRAG): pairs of related articles.
article_pairs = sa.Table(
    "article_pairs",
    metadata,
    sa.Column("id", Int, primary_key=True),
    sa.Column("article_a", Text, nullable=False),
    sa.Column("article_b", Text, nullable=False),
    sa.Column("shared_entities", Text, nullable=False, server_default="[]"),
    sa.Column("days_apart", Int, nullable=False),
    sa.Column("method", Text, nullable=False, server_default="title-entities"),
    sa.Column("related", Text),
    sa.Column("status", Text, nullable=False, server_default="active"),
    sa.Column("provenance", Text, nullable=False, server_default="{}"),
    sa.Column("created_at", Text, nullable=False),
    sa.UniqueConstraint("article_a", "article_b"),
)

#: m0400 (XRAG): an article's summaries and single-step QA notes.
xrag_article_notes = sa.Table(
    "xrag_article_notes",
    metadata,
    sa.Column("id", Int, primary_key=True),
    sa.Column("article_id", Text, nullable=False),
    sa.Column("kind", Text, nullable=False),
    sa.Column("question", Text, nullable=False, server_default=""),
    sa.Column("answer", Text, nullable=False, server_default=""),
    sa.Column("language", Text, nullable=False, server_default="en"),
    sa.Column("provenance", Text, nullable=False, server_default="{}"),
    sa.Column("created_at", Text, nullable=False),
)

#: m0400 (XRAG): the cross-article item of an English question.
xrag_items = sa.Table(
    "xrag_items",
    metadata,
    sa.Column("question_id", Text, primary_key=True),
    sa.Column("pair_id", Int, nullable=False),
    sa.Column("qtype", Text, nullable=False),
    sa.Column("sub_questions", Text, nullable=False, server_default="[]"),
    sa.Column("builder", Text, nullable=False),
    sa.Column("created_at", Text, nullable=False),
)

#: m0400 (XRAG): distractor articles of a pair, per language, in rank order.
xrag_distractors = sa.Table(
    "xrag_distractors",
    metadata,
    sa.Column("pair_id", Int, primary_key=True),
    sa.Column("language", Text, primary_key=True),
    sa.Column("rank", Int, primary_key=True),
    sa.Column("document_id", Text, nullable=False),
    sa.Column("english_id", Text, nullable=False),
    sa.Column("score", Real, nullable=False),
)

#: m0001: books, stories, summaries, articles.
documents = sa.Table(
    "documents",
    metadata,
    sa.Column("id", Text, primary_key=True),
    sa.Column("title", Text, nullable=False, server_default=""),
    sa.Column("author", Text, nullable=False, server_default=""),
    sa.Column("kind", Text, nullable=False),
    sa.Column("source", Text, nullable=False),
    sa.Column("language", Text, nullable=False, server_default="en"),
    sa.Column("parent_id", Text),
    sa.Column("text", Text, nullable=False),
    sa.Column("n_chars", Int, nullable=False),
    sa.Column("n_tokens", Int, nullable=False),
    sa.Column("sha256", Text, nullable=False),
    sa.Column("metadata", Text, nullable=False, server_default="{}"),
    sa.Column("created_at", Text, nullable=False),
    sa.Column("updated_at", Text, nullable=False),
)

#: m0001: a document's passages in book order (``end``: a reserved word, quoted by Core).
passages = sa.Table(
    "passages",
    metadata,
    sa.Column("id", Int, primary_key=True),
    sa.Column("document_id", Text, nullable=False),
    sa.Column("idx", Int, nullable=False),
    sa.Column("start", Int, nullable=False),
    sa.Column("end", Int, nullable=False),
    sa.Column("text", Text, nullable=False),
    sa.Column("n_tokens", Int, nullable=False),
    sa.UniqueConstraint("document_id", "idx"),
)

#: m0001: a document's entities per extraction method, ranked.
entities = sa.Table(
    "entities",
    metadata,
    sa.Column("id", Int, primary_key=True),
    sa.Column("document_id", Text, nullable=False),
    sa.Column("name", Text, nullable=False),
    sa.Column("aliases", Text, nullable=False, server_default="[]"),
    sa.Column("label", Text, nullable=False, server_default=""),
    sa.Column("n_mentions", Int, nullable=False),
    sa.Column("rank", Int, nullable=False),
    sa.Column("method", Text, nullable=False),
    sa.Column("run_id", Text),
    sa.UniqueConstraint("document_id", "name", "method"),
)

#: m0001: an entity's mentions (character spans of the document).
mentions = sa.Table(
    "mentions",
    metadata,
    sa.Column("id", Int, primary_key=True),
    sa.Column("entity_id", Int, nullable=False),
    sa.Column("document_id", Text, nullable=False),
    sa.Column("start", Int, nullable=False),
    sa.Column("end", Int, nullable=False),
    sa.Column("surface", Text, nullable=False),
    sa.Column("passage_idx", Int),
)

#: m0690: people's edits of a document's entities (append-only; ``undoes`` names an undone one).
entity_edits = sa.Table(
    "entity_edits",
    metadata,
    sa.Column("id", Int, primary_key=True),
    sa.Column("document_id", Text, nullable=False),
    sa.Column("action", Text, nullable=False),
    sa.Column("payload", Text, nullable=False, server_default="{}"),
    sa.Column("made_by", Text, nullable=False),
    sa.Column("created_at", Text, nullable=False),
    sa.Column("undoes", Int),
)
triggers.attach(entity_edits)  # append-only, no-replace, same-owner: core.store.triggers

#: m0690: an extraction run's output, kept before its first edit.
entity_bases = sa.Table(
    "entity_bases",
    metadata,
    sa.Column("document_id", Text, primary_key=True),
    sa.Column("method", Text, primary_key=True),
    sa.Column("run_id", Text, primary_key=True),
    sa.Column("entities", Text, nullable=False),
    sa.Column("created_at", Text, nullable=False),
)

#: m0200: failed question-generation calls with the raw reply.
generation_failures = sa.Table(
    "generation_failures",
    metadata,
    sa.Column("id", Int, primary_key=True),
    sa.Column("run_id", Text),
    sa.Column("document_id", Text),
    sa.Column("entity_id", Int),
    sa.Column("model", Text, nullable=False),
    sa.Column("prompt_hash", Text, nullable=False, server_default=""),
    sa.Column("kind", Text, nullable=False),
    sa.Column("error", Text, nullable=False, server_default=""),
    sa.Column("raw", Text, nullable=False, server_default=""),
    sa.Column("created_at", Text, nullable=False),
)

#: m0683: sign-in sessions (the cookie's id stored as its hash).
sessions = sa.Table(
    "sessions",
    metadata,
    sa.Column("id", Int, primary_key=True),
    sa.Column("id_hash", Text, nullable=False, unique=True),
    sa.Column("name", Text, nullable=False),
    sa.Column("token_id", Text, nullable=False),
    sa.Column("created_at", Text, nullable=False),
    sa.Column("revoked_at", Text),
)
