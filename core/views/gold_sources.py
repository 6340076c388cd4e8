"""Gold sources and imported human raters, as the Team and Agreement pages list them."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd

from core.store.gold_sources import active_gold_sources
from core.store.judgments import human_raters, imported_human_raters
from core.views.agreement_view import is_slot

if TYPE_CHECKING:  # sqlite_utils imports pandas: loaded only when a database is opened
    import sqlite_utils


def gold_source_table(db: sqlite_utils.Database) -> pd.DataFrame:
    """The current gold sources: ``rater``, ``marked_by``, ``since``."""
    found = [(r["rater"], r["marked_by"], r["created_at"]) for r in active_gold_sources(db)]
    return pd.DataFrame(found, columns=["rater", "marked_by", "since"])


def imported_raters(db: sqlite_utils.Database) -> pd.DataFrame:
    """Human raters whose verdicts were imported from files, whatever their names: ``rater``,
    ``anonymous_slot`` (``NAME#k``: not a person) and ``gold_source``."""
    sources = {r["rater"] for r in active_gold_sources(db)}
    found = [(r, is_slot(r), r in sources) for r in imported_human_raters(db)]
    return pd.DataFrame(found, columns=["rater", "anonymous_slot", "gold_source"])


def gold_source_candidates(db: sqlite_utils.Database) -> list[str]:
    """Human raters (``human:NAME``, not anonymous slots) that are not gold sources yet."""
    sources = {r["rater"] for r in active_gold_sources(db)}
    return [r for r in human_raters(db) if not is_slot(r) and r not in sources]
