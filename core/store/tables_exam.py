"""The EXAM tables :mod:`core.store.exam_results` reads, for SQLAlchemy Core (issue 33), in
:data:`core.store.tables.metadata` (same rules as :mod:`core.store.tables`: each declaration is
the schema its migrations made, column for column, checked on both backends by
``tests/store/test_store_contract.py``)."""

from __future__ import annotations

import sqlalchemy as sa

from core.store.tables import Int, Real, metadata

#: m0500: the questions of an EXAM bank.
exam_questions = sa.Table(
    "exam_questions",
    metadata,
    sa.Column("id", sa.Text, primary_key=True),
    sa.Column("bank_id", sa.Text, nullable=False),
    sa.Column("query_id", sa.Text, nullable=False),
    sa.Column("qid", sa.Text, nullable=False),
    sa.Column("question", sa.Text, nullable=False),
    sa.Column("choices", sa.Text),
    sa.Column("correct_key", sa.Text),
    sa.Column("correct", sa.Text),
    sa.Column("answers", sa.Text, nullable=False, server_default="[]"),
    sa.Column("facet_id", sa.Text, nullable=False, server_default=""),
    sa.Column("source_question_id", sa.Text),
    sa.Column("line", Int),
    sa.Column("metadata", sa.Text, nullable=False, server_default="{}"),
)

#: m0500: the articles graded (one per bank, query and system).
exam_articles = sa.Table(
    "exam_articles",
    metadata,
    sa.Column("id", Int, primary_key=True),
    sa.Column("bank_id", sa.Text, nullable=False),
    sa.Column("query_id", sa.Text, nullable=False),
    sa.Column("system", sa.Text, nullable=False),
    sa.Column("kind", sa.Text, nullable=False),
    sa.Column("text", sa.Text, nullable=False),
    sa.Column("n_tokens", Int, nullable=False, server_default="0"),
    sa.Column("metadata", sa.Text, nullable=False, server_default="{}"),
    sa.Column("run_id", sa.Text),
    sa.Column("created_at", sa.Text, nullable=False),
)

#: m0500: EXAM grading runs.
exam_runs = sa.Table(
    "exam_runs",
    metadata,
    sa.Column("id", sa.Text, primary_key=True),
    sa.Column("bank_id", sa.Text, nullable=False),
    sa.Column("qa_model", sa.Text, nullable=False),
    sa.Column("verification", sa.Text, nullable=False),
    sa.Column("threshold", Real),
    sa.Column("config", sa.Text, nullable=False, server_default="{}"),
    sa.Column("created_at", sa.Text, nullable=False),
)

#: m0500 (``rater``: m0660): one grade per run, article and question.
exam_grades = sa.Table(
    "exam_grades",
    metadata,
    sa.Column("id", Int, primary_key=True),
    sa.Column("run_id", sa.Text, nullable=False),
    sa.Column("article_id", Int, nullable=False),
    sa.Column("question_id", sa.Text, nullable=False),
    sa.Column("answer", sa.Text, nullable=False, server_default=""),
    sa.Column("self_rating", Int),
    sa.Column("score", Real),
    sa.Column("correct", Int),
    sa.Column("status", sa.Text, nullable=False, server_default="ok"),
    sa.Column("raw", sa.Text, nullable=False, server_default=""),
    sa.Column("prompt_hash", sa.Text, nullable=False, server_default=""),
    sa.Column("created_at", sa.Text, nullable=False),
    sa.Column("rater", sa.Text, nullable=False, server_default=""),
)

#: m0510: EXAM against Bradley-Terry on one book.
exam_book_correlations = sa.Table(
    "exam_book_correlations",
    metadata,
    sa.Column("id", Int, primary_key=True),
    sa.Column("document_id", sa.Text, nullable=False),
    sa.Column("exam_run_id", sa.Text, nullable=False),
    sa.Column("experiment", sa.Text, nullable=False),
    sa.Column("rater", sa.Text, nullable=False),
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
    sa.Column("bt_estimate", sa.Text, nullable=False, server_default=""),
    sa.Column("systems", sa.Text, nullable=False, server_default="[]"),
    sa.Column("created_at", sa.Text, nullable=False),
    sa.UniqueConstraint("document_id", "exam_run_id", "rater"),
)
