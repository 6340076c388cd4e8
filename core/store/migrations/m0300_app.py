"""App/views indexes: finding the effective (not superseded) labels and per-rater lookups fast.

A label is effective when no row names it in ``supersedes``; without an index on ``supersedes``
that test scans the whole table once per row.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.store.schema import execute_script

if TYPE_CHECKING:
    from core.store.engine import Database

INDEXES = """
create index if not exists judgments_supersedes on judgments(supersedes);
create index if not exists judgments_rater_kind on judgments(rater_kind, kind);
create index if not exists reviews_supersedes on reviews(supersedes);
create index if not exists dispute_resolutions_supersedes on dispute_resolutions(supersedes);
create index if not exists dispute_resolutions_dispute on dispute_resolutions(dispute_id);
"""


def apply(db: Database) -> None:
    """Create the indexes."""
    execute_script(db, INDEXES)
