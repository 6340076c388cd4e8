"""Cheap fingerprints of the stored data: the app's cache keys.

Each is a few aggregate numbers of constant size (never a list that grows with the data), read
with one query, so computing a key on every page render stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from core.store.answers import answers_version
from core.store.judgments import max_judgment_id

if TYPE_CHECKING:
    from core.store.engine import Database

#: Append-mostly tables whose largest id moves on every new row.
_GROWING = (
    "judgments",
    "reviews",
    "dispute_resolutions",
    "disputes",
    "answers",
    "adjudications",
    "gold_sources",
    "entity_edits",
)


def data_version(db: Database) -> tuple[Any, ...]:
    """A fingerprint of everything the pages show: changes on any new judgment, label, dispute,
    answer, question or document, and on any run started, finished or updated while running.

    Constant size; index lookups (migration ``m0640`` indexes ``runs.status`` and
    ``runs.finished_at``) but for the latest start, a scan of the small ``runs`` table. Runs are
    summarised by their count and latest start (not the largest ``rowid``: PostgreSQL has none,
    and ``ctid`` is no insertion order), the calls and cost of the runs still running, and the
    latest finish time (:func:`core.store.runs.finish_run` always sets ``finished_at``).
    """
    parts = [f"(select coalesce(max(id), 0) from {t})" for t in _GROWING]
    parts += [
        "(select count(*) from questions)",
        "(select count(*) from documents)",
        "(select count(*) from runs)",
        "(select coalesce(max(started_at), '') from runs)",
        "(select coalesce(max(finished_at), '') from runs)",
    ]
    head = tuple(db.execute(f"select {', '.join(parts)}").fetchone())
    running = db.execute(
        "select count(*), coalesce(sum(n_calls), 0), coalesce(sum(cost_usd), 0) from runs "
        "where status = 'running'"  # total() is SQLite's only
    ).fetchone()
    return head + tuple(running)


def judgments_version(db: Database) -> tuple[str, int]:
    """Fingerprint of the judgments (largest id: judgments are append-only)."""
    return ("judgments", max_judgment_id(db))


def answers_fingerprint(db: Database) -> tuple[Any, ...]:
    """Fingerprint of the answers table (answers are rewritten in place when retried)."""
    return ("answers", *answers_version(db))
