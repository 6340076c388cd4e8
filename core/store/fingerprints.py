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

#: On PostgreSQL a row can commit after rows with larger ids (its id was handed out when it was
#: inserted); the store keeps every write transaction well under a second, so fewer than this many
#: later ids are handed out before it commits. Counting the rows among the latest this-many ids
#: of a table (a range of its primary key) therefore changes when such a row lands, as a count of
#: the whole table does, without reading every row (issue 37: 98 ms of database CPU a poll at a
#: million verdicts).
LATE_WINDOW = 10_000


def recent_count_sql(table: str, window: int = LATE_WINDOW) -> str:
    """A scalar subquery: the rows of ``table`` (a store table with an integer ``id``) among
    its latest ``window`` ids."""
    return (
        f"(select count(*) from {table} where id > "
        f"(select coalesce(max(id), 0) from {table}) - {int(window)})"
    )


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
    always sets ``finished_at``). On PostgreSQL the growing tables' recent row counts are added
    (:func:`recent_count_sql`): there a row with a smaller id can commit after one with a larger
    id (:attr:`core.store.engine.Dialect.ids_in_commit_order`).
    """
    parts = [f"(select coalesce(max(id), 0) from {t})" for t in _GROWING]
    if not db.dialect.ids_in_commit_order:
        parts += [recent_count_sql(t) for t in _GROWING]
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
    the rows among the latest ids, :func:`recent_count_sql`: a late commit moves it,
    :attr:`core.store.engine.Dialect.ids_in_commit_order`). Two index lookups and a range of
    at most :data:`LATE_WINDOW` keys, never every row: the Leaderboard polls it every 2 s."""
    if not db.dialect.ids_in_commit_order:
        top, count = db.execute(
            f"select coalesce(max(id), 0), {recent_count_sql('judgments')} from judgments"
        ).fetchone()
        return ("judgments", int(top), int(count))
    return ("judgments", max_judgment_id(db))


def answers_fingerprint(db: Database) -> tuple[Any, ...]:
    """Fingerprint of the answers table (answers are rewritten in place when retried)."""
    return ("answers", *answers_version(db))
