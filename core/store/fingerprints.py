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

    Constant size and index lookups only (migration ``m0640`` indexes ``runs.status`` and
    ``runs.finished_at``): runs are summarised by their count and latest start, the calls and
    cost of the runs still running, and the latest finish time (:func:`core.store.runs.finish_run`
    always sets ``finished_at``). On PostgreSQL the growing tables' row counts are added: there
    a row with a smaller id can commit after one with a larger id
    (:attr:`core.store.engine.Dialect.ids_in_commit_order`).
    """
    parts = [f"(select coalesce(max(id), 0) from {t})" for t in _GROWING]
    if not db.dialect.ids_in_commit_order:
        parts += [f"(select count(*) from {t})" for t in _GROWING]
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
        "where status = 'running'"
    ).fetchone()
    return head + tuple(running)


def judgments_version(db: Database) -> tuple[Any, ...]:
    """Fingerprint of the judgments (largest id: judgments are append-only; on PostgreSQL also
    their count: :attr:`core.store.engine.Dialect.ids_in_commit_order`)."""
    if not db.dialect.ids_in_commit_order:
        top, count = db.execute("select coalesce(max(id), 0), count(*) from judgments").fetchone()
        return ("judgments", int(top), int(count))
    return ("judgments", max_judgment_id(db))


def answers_fingerprint(db: Database) -> tuple[Any, ...]:
    """Fingerprint of the answers table (answers are rewritten in place when retried)."""
    return ("answers", *answers_version(db))
