"""A revoked account's labels left out of the team's figures (issue 38).

``accounts.labels_excluded_at`` / ``labels_excluded_by``: when an admin chose to leave a revoked
account's labels out of overlap, gold and agreement, and who (NULL: they count). The labels
themselves stay (judgments are append-only); the choice can be taken back.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from core.store.engine import Database


def apply(db: Database) -> None:
    """Add ``accounts.labels_excluded_at`` and ``accounts.labels_excluded_by``."""
    db.execute("alter table accounts add column labels_excluded_at text")
    db.execute("alter table accounts add column labels_excluded_by text")
