"""Gold sources, as the Team page lists them (imported raters: :func:`core.views.team.imported_raters`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd

from core.corpus.evaluation_ratings import is_slot
from core.store.gold_sources import active_gold_sources
from core.store.judgments import human_raters

if TYPE_CHECKING:
    from core.store.engine import Database


def gold_source_table(db: Database) -> pd.DataFrame:
    """The current gold sources: ``rater``, ``marked_by``, ``since``."""
    found = [(r.rater, r.marked_by, r.created_at) for r in active_gold_sources(db)]
    return pd.DataFrame(found, columns=["rater", "marked_by", "since"])


def gold_source_candidates(db: Database) -> list[str]:
    """Human raters (``human:NAME``, not anonymous slots) that are not gold sources yet."""
    sources = {r.rater for r in active_gold_sources(db)}
    return [r for r in human_raters(db) if not is_slot(r) and r not in sources]
