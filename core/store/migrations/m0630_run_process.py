"""Runs record the process that runs them (``pid``, ``host``), so a run whose process died is
shown ``interrupted`` instead of ``running`` forever (core.store.runs.mark_dead_runs)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from core.store.engine import Database


def apply(db: Database) -> None:
    """Add ``runs.pid`` and ``runs.host``."""
    db.execute("alter table runs add column pid integer")
    db.execute("alter table runs add column host text")
