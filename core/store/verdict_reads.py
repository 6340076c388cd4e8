"""Bulk reads of table ``judgments`` for the analysis views: the verdicts summed up per rater
and item (Agreement, gold) and the pairwise feed the live leaderboard reads incrementally.

Plain columns only (nothing to decode); the effective-rows condition is the one of
:func:`core.store.judgment_queries.effective_select`. SQLAlchemy Core over
:mod:`core.store.tables`, each statement built once (:mod:`core.store.prepared`; issue 33):
nothing here is translated for PostgreSQL.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Sequence
from functools import cache
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa

from core.store.fingerprints import recent_count
from core.store.judgment_queries import MAX_ID, effective_select
from core.store.judgments import JudgmentKind, JudgmentStatus, max_judgment_id
from core.store.prepared import fetch_each, run_bound
from core.store.tables import judgments

if TYPE_CHECKING:
    from core.store.engine import Database

#: The item columns of a :func:`verdict_summary` row of each kind, after ``rater, rater_kind``.
SUMMARY_KEYS = {
    "pairwise": ("question_id", "system_a", "system_b"),
    "absolute": ("question_id", "system", "criterion"),
    "label": ("question_id", "system", "criterion"),
}


#: verdict_summary results by (database file, inode, largest judgment id, kind): the
#: table is append-only (triggers refuse UPDATE and DELETE), so a new row always moves the key.
_SUMMARIES: OrderedDict[tuple[Any, ...], list[tuple[Any, ...]]] = OrderedDict()
_SUMMARIES_LOCK = threading.Lock()
_SUMMARIES_KEPT = 8


_PG_DATABASE = sa.table("pg_database", sa.column("oid"), sa.column("datname"))
#: PostgreSQL: the database (name, oid, server port and start time), the judgments' largest id
#: and recent count.
_PG_KEY = sa.select(
    sa.func.current_database(),
    sa.select(_PG_DATABASE.c.oid)
    .where(_PG_DATABASE.c.datname == sa.func.current_database())
    .scalar_subquery(),
    sa.func.inet_server_port(),
    sa.cast(sa.func.pg_postmaster_start_time(), sa.Text),
    sa.func.coalesce(sa.func.max(judgments.c.id), 0),
    recent_count("judgments"),
).select_from(judgments)
_DATABASES = sa.text("pragma database_list")


def _summary_key(db: Database, kind: str) -> tuple[Any, ...] | None:
    """The memo key of a summary, or None for a database without a file or inside an open
    transaction (rows it reads could still be rolled back and their ids reused): nothing kept.
    PostgreSQL: the database (name, oid, server port and start time) and the judgments' largest
    id and recent count (a smaller id can commit after a larger one there:
    :func:`core.store.fingerprints.recent_count_sql`)."""
    if db.conn.in_transaction:
        return None
    if db.dialect.name == "postgresql":
        return (*run_bound(db, _PG_KEY).fetchone(), kind)
    path = next((r[2] for r in run_bound(db, _DATABASES) if r[1] == "main"), "")
    if not path:
        return None
    try:
        inode = os.stat(path).st_ino
    except OSError:
        return None
    return (path, inode, max_judgment_id(db), kind)


def verdict_summary(
    db: Database, kind: str, raters: Sequence[str] | None = None
) -> list[tuple[Any, ...]]:
    """Effective parsed verdicts (status ok, verdict not null) of ``kind`` summed up per rater and
    item as shown, as tuples ``(rater, rater_kind, question_id, K1, K2, n, first_id,
    first_verdict, last_id, last_verdict)`` ordered by ``last_id``: ``K1, K2`` are ``system_a,
    system_b`` (pairwise, in the order shown) or ``system, criterion`` (absolute), ``n`` the
    verdicts, ``first_*`` the earliest and ``last_*`` the latest. A rater who judged the same item
    again gives one row, not one per verdict (plain columns only: nothing to decode).

    ``raters``: only their rows (taken from the whole summary, which is kept per database file
    and largest judgment id: the views of a page (agreement, gold, crowd, two raters) read the
    table once per new judgment)."""
    if kind not in SUMMARY_KEYS:
        raise ValueError(f"not a judgment kind: {kind!r}")
    every = _whole_summary(db, kind)
    if raters is None:
        return every
    wanted = set(raters)
    return [r for r in every if r[0] in wanted]


def _whole_summary(db: Database, kind: str) -> list[tuple[Any, ...]]:
    """Every rater's summary of ``kind``, kept per database file and largest judgment id (one
    read of the table serves every view and rater subset until a new judgment arrives)."""
    key = _summary_key(db, kind)
    with _SUMMARIES_LOCK:
        kept = _SUMMARIES.get(key) if key is not None else None
    if kept is not None:
        return list(kept)
    found = _read_summary(db, kind)
    if key is not None:
        with _SUMMARIES_LOCK:
            _SUMMARIES[key] = found
            while len(_SUMMARIES) > _SUMMARIES_KEPT:
                _SUMMARIES.popitem(last=False)
    return list(found)


def _read_summary(db: Database, kind: str) -> list[tuple[Any, ...]]:
    """The summary of every rater, read from the table (one grouped query)."""
    return [tuple(r) for r in run_bound(db, *_summary_query(kind)).fetchall()]


@cache
def _summary_query(kind: str) -> tuple[sa.Select[Any], dict[str, Any]]:
    """The grouped query of :func:`_read_summary` and its values (built once per kind)."""
    inner, values = effective_select(
        ["rater", "rater_kind", *SUMMARY_KEYS[kind], "id"],
        ordered=False,
        kind=kind,
        status="ok",
        with_verdict=True,
    )
    e = inner.subquery("e")
    keys = [e.c[k] for k in SUMMARY_KEYS[kind]]
    g = (
        # max(rater_kind): one per rater, but PostgreSQL takes no bare column beside group by
        sa.select(
            e.c.rater,
            sa.func.max(e.c.rater_kind).label("rater_kind"),
            *keys,
            sa.func.count().label("n"),
            sa.func.min(e.c.id).label("first_id"),
            sa.func.max(e.c.id).label("last_id"),
        )
        .group_by(e.c.rater, *keys)
        .subquery("g")
    )
    f, last = judgments.alias("f"), judgments.alias("l")
    query = (
        sa.select(
            g.c.rater,
            g.c.rater_kind,
            *(g.c[k] for k in SUMMARY_KEYS[kind]),
            g.c.n,
            g.c.first_id,
            f.c.verdict,
            g.c.last_id,
            last.c.verdict,
        )
        .join_from(g, f, f.c.id == g.c.first_id)
        .join(last, last.c.id == g.c.last_id)
        .order_by(g.c.last_id)
    )
    return query, values


#: The columns of :func:`pairwise_records_since`, in order.
PAIRWISE_SINCE_COLUMNS = (
    "id",
    "question_id",
    "system_a",
    "system_b",
    "verdict",
    "status",
    "supersedes",
    "rater",
    "rater_kind",
    "criterion",
    "context_kind",
)


_SINCE = (
    sa.select(*(judgments.c[c] for c in PAIRWISE_SINCE_COLUMNS))
    .where((judgments.c.kind + "") == "pairwise", judgments.c.id > sa.bindparam("last_id"))
    .order_by(judgments.c.id)
)


def pairwise_records_since(db: Database, last_id: int) -> list[tuple[Any, ...]]:
    """Pairwise judgments (superseded ones too) with id > ``last_id``, in id order, as tuples of
    :data:`PAIRWISE_SINCE_COLUMNS` (the columns an incremental aggregate needs; plain columns,
    nothing to decode). ``kind || ''`` keeps SQLite off the ``kind`` index whether or not the
    planner has statistics (without them it walked every pairwise row and sorted them: 40-80 ms
    a refresh at 107,677 verdicts; now a range of the primary key, core/store/planner.py)."""
    return [tuple(r) for r in run_bound(db, _SINCE, {"last_id": last_id}).fetchall()]


_ID = judgments.c.id
_PAIRWISE_COUNT = sa.select(
    sa.func.count().filter(_ID > sa.bindparam("above")),
    sa.func.count().filter(_ID > sa.bindparam("above_next")),
).where(
    judgments.c.kind == JudgmentKind.PAIRWISE,
    _ID > sa.bindparam("low"),
    _ID <= sa.bindparam("up_to"),
)


def pairwise_count(db: Database, up_to: int, above: int, above_next: int) -> tuple[int, int] | None:
    """How many pairwise judgments have ``above < id <= up_to``, and how many ``above_next < id
    <= up_to`` (one statement, one snapshot), where that can still grow (PostgreSQL: a
    transaction holding a smaller id may commit after a larger one,
    :attr:`core.store.engine.Dialect.ids_in_commit_order`); ``None`` on SQLite, where it cannot
    (no query). A range of the primary key: callers keep it within
    :data:`core.store.fingerprints.LATE_WINDOW` ids."""
    if db.dialect.ids_in_commit_order:
        return None
    values = {"above": above, "above_next": above_next, "low": min(above, above_next)}
    found = run_bound(db, _PAIRWISE_COUNT, {**values, "up_to": up_to}).fetchone()
    return int(found[0]), int(found[1])


#: :data:`_PAIRWISE_COUNT` with the largest judgment id in front (:func:`pairwise_changes`).
_TOP_AND_COUNT = _PAIRWISE_COUNT.with_only_columns(
    MAX_ID.scalar_subquery(), *_PAIRWISE_COUNT.selected_columns
)


def pairwise_changes(
    db: Database, last_id: int, above: int, above_next: int
) -> tuple[int, tuple[int, int] | None, list[tuple[Any, ...]]]:
    """What an incremental reader of the pairwise rows asks on each call, in one round trip on
    PostgreSQL (issue 33: a Side by side run asked it in three, holding the team marks' lock):
    the largest judgment id (:func:`core.store.judgments.max_judgment_id`), :func:`pairwise_count`
    with ``up_to = last_id`` (``None`` on SQLite) and :func:`pairwise_records_since` ``last_id``
    (on SQLite read only when the largest id is above ``last_id``)."""
    if db.dialect.ids_in_commit_order:
        top = max_judgment_id(db)
        return top, None, pairwise_records_since(db, last_id) if top > last_id else []
    values = {"above": above, "above_next": above_next, "low": min(above, above_next)}
    head, rows = fetch_each(
        db, [(_TOP_AND_COUNT, {**values, "up_to": last_id}), (_SINCE, {"last_id": last_id})]
    )
    top, seen, seen_next = head[0]
    return int(top), (int(seen), int(seen_next)), rows


_UP_TO = (judgments.c.kind == JudgmentKind.PAIRWISE, _ID <= sa.bindparam("up_to"))
_GONE = sa.select(judgments.c.supersedes).where(*_UP_TO, judgments.c.supersedes.is_not(None))
_LAST = sa.select(sa.func.coalesce(sa.func.max(_ID), 0)).where(*_UP_TO)


@cache
def _counted(equal: tuple[str, ...], raters: bool) -> sa.Select[Any]:
    """The rows of :func:`counted_pairwise` for one filter shape (values bound by name)."""
    where = [*_UP_TO, judgments.c.status == JudgmentStatus.OK, judgments.c.verdict.is_not(None)]
    where += [judgments.c[c] == sa.bindparam(c) for c in equal]
    if raters:
        where.append(judgments.c.rater.in_(sa.bindparam("raters", expanding=True)))
    columns = ("id", "question_id", "system_a", "system_b", "verdict")
    return sa.select(*(judgments.c[c] for c in columns)).where(*where).order_by(_ID)


def counted_pairwise(
    db: Database,
    up_to: int,
    filters: dict[str, str] | None = None,
    raters: Sequence[str] | None = None,
) -> tuple[list[tuple[Any, ...]], set[int], int]:
    """The live leaderboard's first read, narrow: ``(id, question_id, system_a, system_b,
    verdict)`` of the pairwise judgments with id <= ``up_to``, status ok and a verdict (and the
    ``filters``: equal ``rater``, ``rater_kind`` or ``criterion``; ``raters``: any of these), in
    id order; the ids that pairwise rows up to ``up_to`` supersede; and the largest pairwise id
    up to ``up_to`` (0 when none)."""
    values: dict[str, Any] = {"up_to": up_to}
    for col, value in (filters or {}).items():
        if col not in ("rater", "rater_kind", "criterion"):
            raise ValueError(f"not a filter of counted_pairwise: {col!r}")
        values[col] = value
    if raters is not None:
        values["raters"] = list(raters)
    query = _counted(tuple(c for c in (filters or {})), raters is not None)
    found = [tuple(r) for r in run_bound(db, query, values).fetchall()]
    gone = run_bound(db, _GONE, {"up_to": up_to}).fetchall()
    last = run_bound(db, _LAST, {"up_to": up_to}).fetchone()[0]
    return found, {int(r[0]) for r in gone}, int(last)
