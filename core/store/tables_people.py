"""The team's tables (``accounts``, ``adjudications``) and EXAM's banks (``exam_banks``,
``exam_queries``) for SQLAlchemy Core (issue 33), in :data:`core.store.tables.metadata` (same
rules as :mod:`core.store.tables`: each declaration is the schema its migrations made, column
for column, checked on both backends by ``tests/store/test_store_contract_people.py``)."""

from __future__ import annotations

import sqlalchemy as sa

from core.store import triggers
from core.store.tables import Int, Text, metadata

#: m0600 (+ ``token_used_at`` m0683, ``labels_excluded_*`` m0773): the team's accounts.
accounts = sa.Table(
    "accounts",
    metadata,
    sa.Column("id", Int, primary_key=True),
    sa.Column("name", Text, nullable=False, unique=True),
    sa.Column("role", Text, nullable=False),
    sa.Column("token_id", Text, nullable=False, unique=True),
    sa.Column("salt", Text, nullable=False),
    sa.Column("token_hash", Text, nullable=False),
    sa.Column("created_at", Text, nullable=False),
    sa.Column("revoked_at", Text),
    sa.Column("token_used_at", Text),
    sa.Column("labels_excluded_at", Text),
    sa.Column("labels_excluded_by", Text),
)

#: m0601, append-only (triggers): an adjudicator's settled label of an item.
adjudications = sa.Table(
    "adjudications",
    metadata,
    sa.Column("id", Int, primary_key=True),
    sa.Column("task", Text, nullable=False),
    sa.Column("item_key", Text, nullable=False),
    sa.Column("label", Text, nullable=False),
    sa.Column("rationale", Text, nullable=False, server_default=""),
    sa.Column("adjudicator", Text, nullable=False),
    sa.Column("supersedes", Int),
    sa.Column("created_at", Text, nullable=False),
)
triggers.attach(adjudications)  # append-only, no-replace, same-owner: core.store.triggers

#: m0500: EXAM question banks.
exam_banks = sa.Table(
    "exam_banks",
    metadata,
    sa.Column("id", Text, primary_key=True),
    sa.Column("name", Text, nullable=False, server_default=""),
    sa.Column("source", Text, nullable=False),
    sa.Column("path", Text, nullable=False, server_default=""),
    sa.Column("document_id", Text),
    sa.Column("n_queries", Int, nullable=False, server_default="0"),
    sa.Column("n_questions", Int, nullable=False, server_default="0"),
    sa.Column("metadata", Text, nullable=False, server_default="{}"),
    sa.Column("created_at", Text, nullable=False),
)

#: m0500: the queries of an EXAM bank.
exam_queries = sa.Table(
    "exam_queries",
    metadata,
    sa.Column("bank_id", Text, primary_key=True),
    sa.Column("query_id", Text, primary_key=True),
    sa.Column("query_text", Text, nullable=False, server_default=""),
    sa.Column("document_id", Text),
)
