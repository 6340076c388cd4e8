"""More of the store's tables for SQLAlchemy Core (issue 33), in :data:`core.store.tables.metadata`.

:mod:`core.store.tables` continued (a module stays under 400 lines), same rules: each declaration
is the schema its migrations made, column for column, with the same per-dialect types
(``tests/store/test_store_contract.py`` compares each with the migrated table on both backends).
"""

from __future__ import annotations

import sqlalchemy as sa

from core.store import triggers
from core.store.tables import Int, Real, Text, metadata

#: m0685, append-only (triggers): which human raters are gold sources (latest row decides).
gold_sources = sa.Table(
    "gold_sources",
    metadata,
    sa.Column("id", Int, primary_key=True),
    sa.Column("rater", Text, nullable=False),
    sa.Column("action", Text, nullable=False),
    sa.Column("marked_by", Text, nullable=False),
    sa.Column("created_at", Text, nullable=False),
)
triggers.attach(gold_sources)  # append-only, no-replace, same-owner: core.store.triggers

#: m0001, append-only (triggers): people's reviews of questions (skips and undos are rows).
reviews = sa.Table(
    "reviews",
    metadata,
    sa.Column("id", Int, primary_key=True),
    sa.Column("question_id", Text, nullable=False),
    sa.Column("annotator", Text, nullable=False),
    sa.Column("decision", Text, nullable=False),
    sa.Column("checklist", Text, nullable=False, server_default="{}"),
    sa.Column("edited_question", Text),
    sa.Column("edited_answer", Text),
    sa.Column("note", Text, nullable=False, server_default=""),
    sa.Column("supersedes", Int),
    sa.Column("created_at", Text, nullable=False),
)
triggers.attach(reviews)  # append-only, no-replace, same-owner: core.store.triggers

#: m0001, append-only (triggers): people's resolutions of disputes (skips and undos are rows).
dispute_resolutions = sa.Table(
    "dispute_resolutions",
    metadata,
    sa.Column("id", Int, primary_key=True),
    sa.Column("dispute_id", Int, nullable=False),
    sa.Column("annotator", Text, nullable=False),
    sa.Column("resolution", Text, nullable=False),
    sa.Column("corrected_answer", Text),
    sa.Column("note", Text, nullable=False, server_default=""),
    sa.Column("supersedes", Int),
    sa.Column("created_at", Text, nullable=False),
)
triggers.attach(dispute_resolutions)  # append-only, no-replace, same-owner: core.store.triggers

#: m0001: the systems behind answer names.
systems = sa.Table(
    "systems",
    metadata,
    sa.Column("name", Text, primary_key=True),
    sa.Column("model", Text, nullable=False),
    sa.Column("context", Text, nullable=False),
    sa.Column("params", Text, nullable=False, server_default="{}"),
    sa.Column("prompt", Text, nullable=False, server_default=""),
    sa.Column("family", Text, nullable=False, server_default=""),
    sa.Column("description", Text, nullable=False, server_default=""),
    sa.Column("created_at", Text, nullable=False),
)

#: m0250: the judges behind ``auto:<name>`` raters.
judges = sa.Table(
    "judges",
    metadata,
    sa.Column("name", Text, primary_key=True),
    sa.Column("kind", Text, nullable=False),
    sa.Column("model", Text, nullable=False),
    sa.Column("context", Text, nullable=False),
    sa.Column("params", Text, nullable=False, server_default="{}"),
    sa.Column("prompt", Text, nullable=False, server_default=""),
    sa.Column("family", Text, nullable=False, server_default=""),
    sa.Column("description", Text, nullable=False, server_default=""),
    sa.Column("created_at", Text, nullable=False),
)

#: m0001: workbench settings (key and text value).
settings = sa.Table(
    "settings",
    metadata,
    sa.Column("key", Text, primary_key=True),
    sa.Column("value", Text, nullable=False),
)

#: m0100: provider batch jobs.
llm_batches = sa.Table(
    "llm_batches",
    metadata,
    sa.Column("id", Text, primary_key=True),
    sa.Column("provider", Text, nullable=False),
    sa.Column("model", Text, nullable=False),
    sa.Column("status", Text, nullable=False),
    sa.Column("n_requests", Int, nullable=False),
    sa.Column("n_imported", Int, nullable=False, server_default="0"),
    sa.Column("n_failed", Int, nullable=False, server_default="0"),
    sa.Column("run_id", Text),
    sa.Column("metadata", Text, nullable=False, server_default="{}"),
    sa.Column("created_at", Text, nullable=False),
    sa.Column("updated_at", Text, nullable=False),
)

#: m0100: one row per request of a batch job.
llm_batch_items = sa.Table(
    "llm_batch_items",
    metadata,
    sa.Column("batch_id", Text, primary_key=True),
    sa.Column("custom_id", Text, primary_key=True),
    sa.Column("cache_key", Text, nullable=False),
    sa.Column("request", Text, nullable=False),
    sa.Column("status", Text, nullable=False, server_default="pending"),
)

#: m0001 (``pid``, ``host``: m0630): one bookkeeping row per pipeline step.
runs = sa.Table(
    "runs",
    metadata,
    sa.Column("id", Text, primary_key=True),
    sa.Column("kind", Text, nullable=False),
    sa.Column("name", Text, nullable=False, server_default=""),
    sa.Column("config", Text, nullable=False, server_default="{}"),
    sa.Column("status", Text, nullable=False, server_default="running"),
    sa.Column("started_at", Text, nullable=False),
    sa.Column("finished_at", Text),
    sa.Column("n_calls", Int, nullable=False, server_default="0"),
    sa.Column("input_tokens", Int, nullable=False, server_default="0"),
    sa.Column("output_tokens", Int, nullable=False, server_default="0"),
    sa.Column("cost_usd", Real, nullable=False, server_default="0"),
    sa.Column("note", Text, nullable=False, server_default=""),
    sa.Column("pid", Int),
    sa.Column("host", Text),
)

#: m0784: the label scale each labelling task declares.
label_scales = sa.Table(
    "label_scales",
    metadata,
    sa.Column("task", Text, primary_key=True),
    sa.Column("scale", Text, nullable=False),
    sa.Column("labels", Text, nullable=False, server_default="[]"),
    sa.Column("declared", Int, nullable=False, server_default="0"),
    sa.Column("created_at", Text, nullable=False),
    sa.Column("updated_at", Text, nullable=False),
)

#: m0785: label tasks an admin defines.
custom_tasks = sa.Table(
    "custom_tasks",
    metadata,
    sa.Column("task", Text, primary_key=True),
    sa.Column("guideline", Text, nullable=False, server_default=""),
    sa.Column("defined_by", Text, nullable=False, server_default=""),
    sa.Column("created_at", Text, nullable=False),
    sa.Column("updated_at", Text, nullable=False),
)

#: m0785: the items of a custom task.
custom_task_items = sa.Table(
    "custom_task_items",
    metadata,
    sa.Column("task", Text, primary_key=True),
    sa.Column("item", Text, primary_key=True),
    sa.Column("question_id", Text, nullable=False),
    sa.Column("system", Text),
    sa.Column("answer", Text, nullable=False, server_default=""),
    sa.Column("position", Int, nullable=False),
    sa.Column("created_at", Text, nullable=False),
)

#: m0250: one row per experiment name.
experiments = sa.Table(
    "experiments",
    metadata,
    sa.Column("name", Text, primary_key=True),
    sa.Column("path", Text, nullable=False, server_default=""),
    sa.Column("config", Text, nullable=False, server_default="{}"),
    sa.Column("question_ids", Text, nullable=False, server_default="[]"),
    sa.Column("status", Text, nullable=False, server_default="planned"),
    sa.Column("summary", Text, nullable=False, server_default="{}"),
    sa.Column("run_id", Text),
    sa.Column("created_at", Text, nullable=False),
    sa.Column("updated_at", Text, nullable=False),
)

#: m0400: XRAG answers and their judge panel's votes.
xrag_results = sa.Table(
    "xrag_results",
    metadata,
    sa.Column("id", Int, primary_key=True),
    sa.Column("question_id", Text, nullable=False),
    sa.Column("item_id", Text, nullable=False),
    sa.Column("language", Text, nullable=False),
    sa.Column("setting", Text, nullable=False),
    sa.Column("model", Text, nullable=False),
    sa.Column("qtype", Text, nullable=False, server_default=""),
    sa.Column("documents", Text, nullable=False, server_default="[]"),
    sa.Column("answer", Text, nullable=False, server_default=""),
    sa.Column("answer_status", Text, nullable=False, server_default="ok"),
    sa.Column("response_language", Text),
    sa.Column("language_ok", Int),
    sa.Column("votes", Text, nullable=False, server_default="[]"),
    sa.Column("content_verdict", Text),
    sa.Column("panel_status", Text, nullable=False),
    sa.Column("verdict", Text),
    sa.Column("judge_panel", Text, nullable=False, server_default=""),
    sa.Column("run_id", Text),
    sa.Column("created_at", Text, nullable=False),
    sa.UniqueConstraint("question_id", "setting", "model", "judge_panel"),
)
