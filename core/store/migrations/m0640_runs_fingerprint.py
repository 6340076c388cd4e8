"""Indexes that keep the app's cache key cheap (:func:`core.store.fingerprints.data_version`).

The key reads the runs still ``running`` (their calls and cost move during a run) and the latest
``finished_at`` (every :func:`core.store.runs.finish_run` sets it). With these two indexes both
are index lookups, so computing the key does not scan a runs table that grows with every run.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.store.schema import execute_script

if TYPE_CHECKING:
    from core.store.engine import Database

SCHEMA = """
create index if not exists runs_status on runs(status);
create index if not exists runs_finished on runs(finished_at);
"""


def apply(db: Database) -> None:
    """Create the two indexes."""
    execute_script(db, SCHEMA)
