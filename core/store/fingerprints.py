"""Cheap fingerprints of the stored data: the app's cache keys.

Each is a few aggregate numbers of constant size (never a list that grows with the data), read
with one query, so computing a key on every page render stays cheap.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa

from core.store.answers import answers_version, answers_version_later
from core.store.judgments import max_judgment_id
from core.store.prepared import run_bound
from core.store.runs import RunStatus
from core.store.tables import documents, questions
from core.store.tables_more import runs

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
    """A scalar subquery as SQL text: the rows of ``table`` (a store table with an integer
    ``id``) among its latest ``window`` ids (:func:`recent_count` is the Core form)."""
    return (
        f"(select count(*) from {table} where id > "
        f"(select coalesce(max(id), 0) from {table}) - {int(window)})"
    )


def _ids(table: str) -> sa.TableClause:
    """The ``id`` column of ``table``, all a fingerprint reads of it (no declaration needed)."""
    return sa.table(table, sa.column("id", sa.Integer))


def _max_id(table: sa.TableClause) -> sa.ColumnElement[Any]:
    return sa.select(sa.func.coalesce(sa.func.max(table.c.id), 0)).scalar_subquery()


def recent_count(table: str, window: int = LATE_WINDOW) -> sa.ColumnElement[Any]:
    """Core: the rows of ``table`` (a store table with an integer ``id``) among its latest
    ``window`` ids, as a scalar subquery (a range of the primary key)."""
    ids = _ids(table)
    low = _max_id(ids) - sa.literal_column(str(int(window)))
    return sa.select(sa.func.count()).select_from(ids).where(ids.c.id > low).scalar_subquery()


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
    head = tuple(run_bound(db, _data_head(db.dialect.ids_in_commit_order)).fetchone())
    return head + tuple(run_bound(db, _RUNNING).fetchone())


@cache
def _data_head(ids_in_commit_order: bool) -> sa.Select[Any]:
    """The first query of :func:`data_version` (recent counts where ids can commit late)."""
    parts = [_max_id(_ids(t)) for t in _GROWING]
    if not ids_in_commit_order:
        parts += [recent_count(t) for t in _GROWING]
    count = sa.func.count()
    parts += [
        sa.select(count).select_from(questions).scalar_subquery(),
        sa.select(count).select_from(documents).scalar_subquery(),
        sa.select(count).select_from(runs).scalar_subquery(),
        sa.select(sa.func.coalesce(sa.func.max(runs.c.started_at), "")).scalar_subquery(),
        sa.select(sa.func.coalesce(sa.func.max(runs.c.finished_at), "")).scalar_subquery(),
    ]
    return sa.select(*parts)


_RUNNING = sa.select(
    sa.func.count(),
    sa.func.coalesce(sa.func.sum(runs.c.n_calls), 0),
    sa.func.coalesce(sa.func.sum(runs.c.cost_usd), 0),
).where(runs.c.status == RunStatus.RUNNING)
_JUDGMENTS = _ids("judgments")
_LATE_JUDGMENTS = sa.select(_max_id(_JUDGMENTS), recent_count("judgments"))


def judgments_version(db: Database) -> tuple[Any, ...]:
    """Fingerprint of the judgments (largest id: judgments are append-only; on PostgreSQL also
    the rows among the latest ids, :func:`recent_count_sql`: a late commit moves it,
    :attr:`core.store.engine.Dialect.ids_in_commit_order`). Two index lookups and a range of
    at most :data:`LATE_WINDOW` keys, never every row: the Leaderboard polls it every 2 s."""
    if not db.dialect.ids_in_commit_order:
        top, count = run_bound(db, _LATE_JUDGMENTS).fetchone()
        return ("judgments", int(top), int(count))
    return ("judgments", max_judgment_id(db))


def answers_fingerprint(db: Database) -> tuple[Any, ...]:
    """Fingerprint of the answers table (answers are rewritten in place when retried)."""
    return ("answers", *answers_version(db))


def answers_fingerprint_later(db: Database) -> Callable[[], tuple[Any, ...]]:
    """:func:`answers_fingerprint`, sent with the connection's next statement on PostgreSQL
    (:func:`core.store.answers.answers_version_later`); call the result for the value."""
    version = answers_version_later(db)
    return lambda: ("answers", *version())
