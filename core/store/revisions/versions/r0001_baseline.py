"""Baseline: the schema the numbered migrations m0001 ... m0785 made, per dialect.

The DDL is text written out per dialect in ``core/store/revisions/baseline/`` (``sqlite.sql``,
``postgresql.sql``; statements separated by ``;`` and a blank line) and sent to the driver as
it is: nothing is rewritten. It was taken once from a database the numbered migrations built
(2026-12-04): SQLite's statements are that database's ``sqlite_master`` entries in creation
order; PostgreSQL's are the statements the numbered migrations ran there (the column types,
identity keys and stored JSON columns), after the functions the schema and the store call
(``sum(boolean)``, ``json_extract``, ``json_valid``: :mod:`core.store.sql_functions`, which the
MetaData makes too). The append-only, no-replace and
same-owner triggers come after the tables, from the ``DDL`` the MetaData attaches too
(:func:`core.store.triggers.create_all`; the same text the numbered migrations wrote).
``tests/store/test_schema_upgrade.py`` checks that a database made by this revision equals one
the previous release made, on both; ``tests/store/test_triggers.py`` that its triggers are the
MetaData's.

``schema_migrations`` keeps the numbered migrations' names: a database made here looks like
one those migrations made (:mod:`core.store.foreign_db` and ``migrate-db`` read it).

Revision ID: 0001
Revises:
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from core.errors import StoreError
from core.store import sql_functions, triggers
from core.store.connection import utcnow
from core.store.revisions import HERE

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

#: The numbered migrations whose schema this revision makes (``schema_migrations``' rows).
LEGACY = (
    "m0001_foundation",
    "m0100_llm",
    "m0200_generation",
    "m0250_pipeline",
    "m0300_app",
    "m0310_label_owner",
    "m0400_xrag",
    "m0500_exam",
    "m0510_exam_book_correlations",
    "m0600_accounts",
    "m0601_adjudications",
    "m0610_no_replace",
    "m0630_run_process",
    "m0640_runs_fingerprint",
    "m0660_exam_grade_rater",
    "m0670_adjudications_no_replace",
    "m0680_validation_items",
    "m0683_sessions",
    "m0685_gold_sources",
    "m0690_entity_edits",
    "m0740_judgments_summary_index",
    "m0750_passage_stage",
    "m0751_row_stage",
    "m0760_sign_in_failures",
    "m0773_excluded_labels",
    "m0784_label_scales",
    "m0785_custom_tasks",
)


def statements(dialect: str) -> list[str]:
    """The baseline's DDL statements for ``dialect`` (``sqlite`` or ``postgresql``), in order."""
    text = (HERE / "baseline" / f"{dialect}.sql").read_text(encoding="utf-8")
    return [s for s in text.split(";\n\n") if s.strip()]


def upgrade() -> None:
    """Create every function (PostgreSQL), table, index and trigger; record the numbered migrations."""
    bind = op.get_bind()
    sql_functions.create_all(bind)
    for statement in statements(bind.dialect.name):
        bind.exec_driver_sql(statement)
    triggers.create_all(bind)
    record = sa.table("schema_migrations", sa.column("name"), sa.column("applied_at"))
    now = utcnow()
    op.bulk_insert(record, [{"name": name, "applied_at": now} for name in LEGACY])


def downgrade() -> None:
    """Refused, by design: below the baseline there is no schema, so a downgrade would drop
    every table and every label in them. Nothing is changed; a copy is made with ``migrate-db``
    or the dataset export, not by downgrading."""
    raise StoreError(
        "the baseline revision is where the schema's history starts: downgrading it would drop "
        "every table and every label, so it is refused (nothing was changed); copy the data "
        "with `python -m core migrate-db` or export the dataset instead"
    )
