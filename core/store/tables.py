"""The store's tables declared once for SQLAlchemy Core (issue 33), with per-dialect types.

Only the tables of converted modules are here (docs/storage.md lists them); each declaration is
the schema its migrations made, column for column (``tests/store/test_tables.py`` compares it
with the migrated database on both backends). The migrations still create the tables: this is
what statements are built from, so no SQL text is rewritten for them.

Types: an ``integer`` column is SQLite's ``INTEGER`` and PostgreSQL's ``BIGINT`` (what the
migrations made there), a ``real`` one ``REAL`` / ``DOUBLE PRECISION``; text stays text (JSON
columns are stored as text on both and decoded by :func:`core.store.connection.decode_row`).
"""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

metadata = sa.MetaData()

#: SQLite ``integer`` / PostgreSQL ``bigint``.
Int = sa.Integer().with_variant(sa.BigInteger(), "postgresql")
#: SQLite ``real`` / PostgreSQL ``double precision``.
Real = sa.Float().with_variant(postgresql.DOUBLE_PRECISION(), "postgresql")

#: m0001, append-only (triggers): auto-raters' and people's verdicts.
judgments = sa.Table(
    "judgments",
    metadata,
    sa.Column("id", Int, primary_key=True),
    sa.Column("kind", sa.Text, nullable=False),
    sa.Column("question_id", sa.Text, nullable=False),
    sa.Column("rater", sa.Text, nullable=False),
    sa.Column("rater_kind", sa.Text, nullable=False),
    sa.Column("criterion", sa.Text, nullable=False, server_default=""),
    sa.Column("system", sa.Text),
    sa.Column("answer_id", Int),
    sa.Column("system_a", sa.Text),
    sa.Column("system_b", sa.Text),
    sa.Column("answer_a_id", Int),
    sa.Column("answer_b_id", Int),
    sa.Column("order_shown", sa.Text, nullable=False, server_default=""),
    sa.Column("verdict", sa.Text),
    sa.Column("status", sa.Text, nullable=False, server_default="ok"),
    sa.Column("evidence", sa.Text, nullable=False, server_default="[]"),
    sa.Column("rationale", sa.Text, nullable=False, server_default=""),
    sa.Column("raw", sa.Text, nullable=False, server_default=""),
    sa.Column("prompt_hash", sa.Text, nullable=False, server_default=""),
    sa.Column("context_kind", sa.Text, nullable=False, server_default=""),
    sa.Column("run_id", sa.Text),
    sa.Column("supersedes", Int),
    sa.Column("created_at", sa.Text, nullable=False),
)

#: m0760: failed sign-in attempts per client.
sign_in_failures = sa.Table(
    "sign_in_failures",
    metadata,
    sa.Column("id", Int, primary_key=True),
    sa.Column("client", sa.Text, nullable=False),
    sa.Column("failed_at", Real, nullable=False),
)

#: m0100: content-addressed model replies.
llm_cache = sa.Table(
    "llm_cache",
    metadata,
    sa.Column("key", sa.Text, primary_key=True),
    sa.Column("model", sa.Text, nullable=False),
    sa.Column("request", sa.Text, nullable=False, server_default="{}"),
    sa.Column("response", sa.Text, nullable=False),
    sa.Column("created_at", sa.Text, nullable=False),
)

#: m0100: the call ledger (one row per model call, cache hits and failures included).
#: ``system_name`` / ``judge_name`` are generated from ``tags`` (never inserted).
llm_calls = sa.Table(
    "llm_calls",
    metadata,
    sa.Column("id", Int, primary_key=True),
    sa.Column("run_id", sa.Text),
    sa.Column("model", sa.Text, nullable=False),
    sa.Column("provider", sa.Text, nullable=False),
    sa.Column("task", sa.Text, nullable=False, server_default=""),
    sa.Column("purpose", sa.Text, nullable=False, server_default=""),
    sa.Column("tags", sa.Text, nullable=False, server_default="{}"),
    sa.Column("system_name", sa.Text, sa.Computed("json_extract(tags, '$.system')")),
    sa.Column("judge_name", sa.Text, sa.Computed("json_extract(tags, '$.judge')")),
    sa.Column("cache_key", sa.Text),
    sa.Column("cache_hit", Int, nullable=False, server_default="0"),
    sa.Column("batch_id", sa.Text),
    sa.Column("status", sa.Text, nullable=False),
    sa.Column("error_kind", sa.Text),
    sa.Column("error", sa.Text, nullable=False, server_default=""),
    sa.Column("attempts", Int, nullable=False, server_default="1"),
    sa.Column("input_tokens", Int, nullable=False, server_default="0"),
    sa.Column("output_tokens", Int, nullable=False, server_default="0"),
    sa.Column("cached_tokens", Int, nullable=False, server_default="0"),
    sa.Column("cache_write_tokens", Int, nullable=False, server_default="0"),
    sa.Column("cost_usd", Real, nullable=False, server_default="0"),
    sa.Column("latency_s", Real, nullable=False, server_default="0"),
    sa.Column("finish_reason", sa.Text, nullable=False, server_default=""),
    sa.Column("request_id", sa.Text, nullable=False, server_default=""),
    sa.Column("created_at", sa.Text, nullable=False),
)

#: m0001 (index on ``system``: m0250): one answer per question and system.
answers = sa.Table(
    "answers",
    metadata,
    sa.Column("id", Int, primary_key=True),
    sa.Column("question_id", sa.Text, nullable=False),
    sa.Column("system", sa.Text, nullable=False),
    sa.Column("text", sa.Text, nullable=False, server_default=""),
    sa.Column("status", sa.Text, nullable=False, server_default="ok"),
    sa.Column("error", sa.Text, nullable=False, server_default=""),
    sa.Column("context_tokens", Int, nullable=False, server_default="0"),
    sa.Column("input_tokens", Int, nullable=False, server_default="0"),
    sa.Column("output_tokens", Int, nullable=False, server_default="0"),
    sa.Column("cost_usd", Real, nullable=False, server_default="0"),
    sa.Column("cache_key", sa.Text),
    sa.Column("run_id", sa.Text),
    sa.Column("metadata", sa.Text, nullable=False, server_default="{}"),
    sa.Column("created_at", sa.Text, nullable=False),
    sa.UniqueConstraint("question_id", "system"),
)

#: m0680: items put into the team's queue with an overlap, to validate an auto-rater.
validation_items = sa.Table(
    "validation_items",
    metadata,
    sa.Column("id", Int, primary_key=True),
    sa.Column("task", sa.Text, nullable=False),
    sa.Column("item_key", sa.Text, nullable=False),
    sa.Column("rater", sa.Text, nullable=False),
    sa.Column("overlap", Int, nullable=False),
    sa.Column("requested_by", sa.Text, nullable=False),
    sa.Column("created_at", sa.Text, nullable=False),
    sa.UniqueConstraint("task", "item_key", "rater"),
)

#: m0001: questions (generated, imported, exam, xrag), reference answers as JSON text.
questions = sa.Table(
    "questions",
    metadata,
    sa.Column("id", sa.Text, primary_key=True),
    sa.Column("document_id", sa.Text),
    sa.Column("context_document_id", sa.Text),
    sa.Column("context_kind", sa.Text, nullable=False, server_default="story"),
    sa.Column("question", sa.Text, nullable=False),
    sa.Column("answers", sa.Text, nullable=False, server_default="[]"),
    sa.Column("origin", sa.Text, nullable=False),
    sa.Column("split", sa.Text, nullable=False, server_default=""),
    sa.Column("qtype", sa.Text, nullable=False, server_default=""),
    sa.Column("entity_id", Int),
    sa.Column("language", sa.Text, nullable=False, server_default="en"),
    sa.Column("parent_id", sa.Text),
    sa.Column("status", sa.Text, nullable=False, server_default="pending"),
    sa.Column("provenance", sa.Text, nullable=False, server_default="{}"),
    sa.Column("metadata", sa.Text, nullable=False, server_default="{}"),
    sa.Column("run_id", sa.Text),
    sa.Column("created_at", sa.Text, nullable=False),
    sa.Column("updated_at", sa.Text, nullable=False),
)

#: m0001: answers whose ground-truth and context judgments disagree.
disputes = sa.Table(
    "disputes",
    metadata,
    sa.Column("id", Int, primary_key=True),
    sa.Column("question_id", sa.Text, nullable=False),
    sa.Column("answer_id", Int, nullable=False),
    sa.Column("system", sa.Text, nullable=False),
    sa.Column("gt_judgment_id", Int, nullable=False),
    sa.Column("ctx_judgment_id", Int, nullable=False),
    sa.Column("gt_verdict", sa.Text, nullable=False),
    sa.Column("ctx_verdict", sa.Text, nullable=False),
    sa.Column("run_id", sa.Text),
    sa.Column("created_at", sa.Text, nullable=False),
    sa.UniqueConstraint("gt_judgment_id", "ctx_judgment_id"),
)

#: m0400 (XRAG): pairs of related articles.
article_pairs = sa.Table(
    "article_pairs",
    metadata,
    sa.Column("id", Int, primary_key=True),
    sa.Column("article_a", sa.Text, nullable=False),
    sa.Column("article_b", sa.Text, nullable=False),
    sa.Column("shared_entities", sa.Text, nullable=False, server_default="[]"),
    sa.Column("days_apart", Int, nullable=False),
    sa.Column("method", sa.Text, nullable=False, server_default="title-entities"),
    sa.Column("related", sa.Text),
    sa.Column("status", sa.Text, nullable=False, server_default="active"),
    sa.Column("provenance", sa.Text, nullable=False, server_default="{}"),
    sa.Column("created_at", sa.Text, nullable=False),
    sa.UniqueConstraint("article_a", "article_b"),
)

#: m0400 (XRAG): an article's summaries and single-step QA notes.
xrag_article_notes = sa.Table(
    "xrag_article_notes",
    metadata,
    sa.Column("id", Int, primary_key=True),
    sa.Column("article_id", sa.Text, nullable=False),
    sa.Column("kind", sa.Text, nullable=False),
    sa.Column("question", sa.Text, nullable=False, server_default=""),
    sa.Column("answer", sa.Text, nullable=False, server_default=""),
    sa.Column("language", sa.Text, nullable=False, server_default="en"),
    sa.Column("provenance", sa.Text, nullable=False, server_default="{}"),
    sa.Column("created_at", sa.Text, nullable=False),
)

#: m0400 (XRAG): the cross-article item of an English question.
xrag_items = sa.Table(
    "xrag_items",
    metadata,
    sa.Column("question_id", sa.Text, primary_key=True),
    sa.Column("pair_id", Int, nullable=False),
    sa.Column("qtype", sa.Text, nullable=False),
    sa.Column("sub_questions", sa.Text, nullable=False, server_default="[]"),
    sa.Column("builder", sa.Text, nullable=False),
    sa.Column("created_at", sa.Text, nullable=False),
)

#: m0400 (XRAG): distractor articles of a pair, per language, in rank order.
xrag_distractors = sa.Table(
    "xrag_distractors",
    metadata,
    sa.Column("pair_id", Int, primary_key=True),
    sa.Column("language", sa.Text, primary_key=True),
    sa.Column("rank", Int, primary_key=True),
    sa.Column("document_id", sa.Text, nullable=False),
    sa.Column("english_id", sa.Text, nullable=False),
    sa.Column("score", Real, nullable=False),
)

#: m0001: books, stories, summaries, articles.
documents = sa.Table(
    "documents",
    metadata,
    sa.Column("id", sa.Text, primary_key=True),
    sa.Column("title", sa.Text, nullable=False, server_default=""),
    sa.Column("author", sa.Text, nullable=False, server_default=""),
    sa.Column("kind", sa.Text, nullable=False),
    sa.Column("source", sa.Text, nullable=False),
    sa.Column("language", sa.Text, nullable=False, server_default="en"),
    sa.Column("parent_id", sa.Text),
    sa.Column("text", sa.Text, nullable=False),
    sa.Column("n_chars", Int, nullable=False),
    sa.Column("n_tokens", Int, nullable=False),
    sa.Column("sha256", sa.Text, nullable=False),
    sa.Column("metadata", sa.Text, nullable=False, server_default="{}"),
    sa.Column("created_at", sa.Text, nullable=False),
    sa.Column("updated_at", sa.Text, nullable=False),
)

#: m0001: a document's passages in book order (``end``: a reserved word, quoted by Core).
passages = sa.Table(
    "passages",
    metadata,
    sa.Column("id", Int, primary_key=True),
    sa.Column("document_id", sa.Text, nullable=False),
    sa.Column("idx", Int, nullable=False),
    sa.Column("start", Int, nullable=False),
    sa.Column("end", Int, nullable=False),
    sa.Column("text", sa.Text, nullable=False),
    sa.Column("n_tokens", Int, nullable=False),
    sa.UniqueConstraint("document_id", "idx"),
)

#: m0001: a document's entities per extraction method, ranked.
entities = sa.Table(
    "entities",
    metadata,
    sa.Column("id", Int, primary_key=True),
    sa.Column("document_id", sa.Text, nullable=False),
    sa.Column("name", sa.Text, nullable=False),
    sa.Column("aliases", sa.Text, nullable=False, server_default="[]"),
    sa.Column("label", sa.Text, nullable=False, server_default=""),
    sa.Column("n_mentions", Int, nullable=False),
    sa.Column("rank", Int, nullable=False),
    sa.Column("method", sa.Text, nullable=False),
    sa.Column("run_id", sa.Text),
    sa.UniqueConstraint("document_id", "name", "method"),
)

#: m0001: an entity's mentions (character spans of the document).
mentions = sa.Table(
    "mentions",
    metadata,
    sa.Column("id", Int, primary_key=True),
    sa.Column("entity_id", Int, nullable=False),
    sa.Column("document_id", sa.Text, nullable=False),
    sa.Column("start", Int, nullable=False),
    sa.Column("end", Int, nullable=False),
    sa.Column("surface", sa.Text, nullable=False),
    sa.Column("passage_idx", Int),
)

#: m0690: people's edits of a document's entities (append-only; ``undoes`` names an undone one).
entity_edits = sa.Table(
    "entity_edits",
    metadata,
    sa.Column("id", Int, primary_key=True),
    sa.Column("document_id", sa.Text, nullable=False),
    sa.Column("action", sa.Text, nullable=False),
    sa.Column("payload", sa.Text, nullable=False, server_default="{}"),
    sa.Column("made_by", sa.Text, nullable=False),
    sa.Column("created_at", sa.Text, nullable=False),
    sa.Column("undoes", Int),
)

#: m0690: an extraction run's output, kept before its first edit.
entity_bases = sa.Table(
    "entity_bases",
    metadata,
    sa.Column("document_id", sa.Text, primary_key=True),
    sa.Column("method", sa.Text, primary_key=True),
    sa.Column("run_id", sa.Text, primary_key=True),
    sa.Column("entities", sa.Text, nullable=False),
    sa.Column("created_at", sa.Text, nullable=False),
)

#: m0200: failed question-generation calls with the raw reply.
generation_failures = sa.Table(
    "generation_failures",
    metadata,
    sa.Column("id", Int, primary_key=True),
    sa.Column("run_id", sa.Text),
    sa.Column("document_id", sa.Text),
    sa.Column("entity_id", Int),
    sa.Column("model", sa.Text, nullable=False),
    sa.Column("prompt_hash", sa.Text, nullable=False, server_default=""),
    sa.Column("kind", sa.Text, nullable=False),
    sa.Column("error", sa.Text, nullable=False, server_default=""),
    sa.Column("raw", sa.Text, nullable=False, server_default=""),
    sa.Column("created_at", sa.Text, nullable=False),
)

#: m0683: sign-in sessions (the cookie's id stored as its hash).
sessions = sa.Table(
    "sessions",
    metadata,
    sa.Column("id", Int, primary_key=True),
    sa.Column("id_hash", sa.Text, nullable=False, unique=True),
    sa.Column("name", sa.Text, nullable=False),
    sa.Column("token_id", sa.Text, nullable=False),
    sa.Column("created_at", sa.Text, nullable=False),
    sa.Column("revoked_at", sa.Text),
)
