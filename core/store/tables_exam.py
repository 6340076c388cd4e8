"""The EXAM tables :mod:`core.store.exam_results` reads, for SQLAlchemy Core (issue 33), in
:data:`core.store.tables.metadata` (same rules as :mod:`core.store.tables`: each declaration is
the schema its migrations made, column for column, checked on both backends by
``tests/store/test_store_contract.py``)."""

from __future__ import annotations

import sqlalchemy as sa

from core.store.tables import Int, Real, Text, metadata

#: m0500: the questions of an EXAM bank.
exam_questions = sa.Table(
    "exam_questions",
    metadata,
    sa.Column("id", Text, primary_key=True),
    sa.Column("bank_id", Text, nullable=False),
    sa.Column("query_id", Text, nullable=False),
    sa.Column("qid", Text, nullable=False),
    sa.Column("question", Text, nullable=False),
    sa.Column("choices", Text),
    sa.Column("correct_key", Text),
    sa.Column("correct", Text),
    sa.Column("answers", Text, nullable=False, server_default="[]"),
    sa.Column("facet_id", Text, nullable=False, server_default=""),
    sa.Column("source_question_id", Text),
    sa.Column("line", Int),
    sa.Column("metadata", Text, nullable=False, server_default="{}"),
)

#: m0500: the articles graded (one per bank, query and system).
exam_articles = sa.Table(
    "exam_articles",
    metadata,
    sa.Column("id", Int, primary_key=True),
    sa.Column("bank_id", Text, nullable=False),
    sa.Column("query_id", Text, nullable=False),
    sa.Column("system", Text, nullable=False),
    sa.Column("kind", Text, nullable=False),
    sa.Column("text", Text, nullable=False),
    sa.Column("n_tokens", Int, nullable=False, server_default="0"),
    sa.Column("metadata", Text, nullable=False, server_default="{}"),
    sa.Column("run_id", Text),
    sa.Column("created_at", Text, nullable=False),
)

#: m0500: EXAM grading runs.
exam_runs = sa.Table(
    "exam_runs",
    metadata,
    sa.Column("id", Text, primary_key=True),
    sa.Column("bank_id", Text, nullable=False),
    sa.Column("qa_model", Text, nullable=False),
    sa.Column("verification", Text, nullable=False),
    sa.Column("threshold", Real),
    sa.Column("config", Text, nullable=False, server_default="{}"),
    sa.Column("created_at", Text, nullable=False),
)

#: m0500 (``rater``: m0660): one grade per run, article and question.
exam_grades = sa.Table(
    "exam_grades",
    metadata,
    sa.Column("id", Int, primary_key=True),
    sa.Column("run_id", Text, nullable=False),
    sa.Column("article_id", Int, nullable=False),
    sa.Column("question_id", Text, nullable=False),
    sa.Column("answer", Text, nullable=False, server_default=""),
    sa.Column("self_rating", Int),
    sa.Column("score", Real),
    sa.Column("correct", Int),
    sa.Column("status", Text, nullable=False, server_default="ok"),
    sa.Column("raw", Text, nullable=False, server_default=""),
    sa.Column("prompt_hash", Text, nullable=False, server_default=""),
    sa.Column("created_at", Text, nullable=False),
    sa.Column("rater", Text, nullable=False, server_default=""),
)

#: m0510: EXAM against Bradley-Terry on one book.
exam_book_correlations = sa.Table(
    "exam_book_correlations",
    metadata,
    sa.Column("id", Int, primary_key=True),
    sa.Column("document_id", Text, nullable=False),
    sa.Column("exam_run_id", Text, nullable=False),
    sa.Column("experiment", Text, nullable=False),
    sa.Column("rater", Text, nullable=False),
    sa.Column("n_systems", Int, nullable=False),
    sa.Column("n_questions", Int, nullable=False),
    sa.Column("spearman", Real),
    sa.Column("kendall", Real),
    sa.Column("spearman_ties", Real),
    sa.Column("kendall_ties", Real),
    sa.Column("repeats", Int),
    sa.Column("seed", Int),
    sa.Column("n_judgments", Int),
    sa.Column("n_decisive", Int),
    sa.Column("bt_estimate", Text, nullable=False, server_default=""),
    sa.Column("systems", Text, nullable=False, server_default="[]"),
    sa.Column("created_at", Text, nullable=False),
    sa.UniqueConstraint("document_id", "exam_run_id", "rater"),
)
