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


def visible_state(db: Database) -> tuple[Any, ...] | None:
    """On PostgreSQL, which data a read sees: the database (name, server port) and the current
    snapshot (``pg_current_snapshot()``: the transactions whose writes are visible); None on
    SQLite. Equal values mean equal visible data, whichever server or process wrote it.

    A largest id is no fingerprint there: identity values are handed out when a row is
    inserted, not when it commits, so another server's row with a smaller id can become
    visible after a larger one and leave ``max(id)`` unchanged (a cache keyed on it would
    hide that row until the next insert). A snapshot moves whenever any write commits."""
    if db.dialect.name != "postgresql":
        return None
    found = db.execute(
        "select current_database(), inet_server_port(), pg_current_snapshot()::text"
    ).fetchone()
    return tuple(found)


def data_version(db: Database) -> tuple[Any, ...]:
    """A fingerprint of everything the pages show: changes on any new judgment, label, dispute,
    answer, question or document, and on any run started, finished or updated while running.
    On PostgreSQL :func:`visible_state` is part of it (several servers write; ids commit out
    of order).

    Constant size and index lookups only (migration ``m0640`` indexes ``runs.status`` and
    ``runs.finished_at``): runs are summarised by their count and latest start, the calls and
    cost of the runs still running, and the latest finish time (:func:`core.store.runs.finish_run`
    always sets ``finished_at``).
    """
    state = visible_state(db)
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
        "select count(*), coalesce(sum(n_calls), 0), coalesce(sum(cost_usd), 0.0) from runs "
        "where status = 'running'"
    ).fetchone()
    return head + tuple(running) + (state,)


def judgments_version(db: Database) -> tuple[Any, ...]:
    """Fingerprint of the judgments (largest id: judgments are append-only), with
    :func:`visible_state` on PostgreSQL (a largest id does not move when a smaller one commits
    late)."""
    return ("judgments", max_judgment_id(db), visible_state(db))


def answers_fingerprint(db: Database) -> tuple[Any, ...]:
    """Fingerprint of the answers table (answers are rewritten in place when retried)."""
    return ("answers", *answers_version(db))
