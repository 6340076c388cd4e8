"""Tables declared for SQLAlchemy Core (issue 33), continued: those of the converted read and
staging modules (:mod:`core.store.passage_stage`), in the one :data:`core.store.tables.metadata`.
Each declaration is the schema its migration made, column for column
(``tests/store/test_store_contract_reads.py`` compares it with the migrated database on both
backends)."""

from __future__ import annotations

import sqlalchemy as sa

from core.store.tables import Int, Text, metadata

#: m0750: a long document import's passages, staged in short transactions before the switch.
passage_stage = sa.Table(
    "passage_stage",
    metadata,
    sa.Column("stage", Text, primary_key=True),
    sa.Column("document_id", Text, nullable=False),
    sa.Column("idx", Int, primary_key=True),
    sa.Column("start", Int, nullable=False),
    sa.Column("end", Int, nullable=False),
    sa.Column("text", Text, nullable=False),
    sa.Column("n_tokens", Int, nullable=False),
)
