"""Bulk reads of table ``judgments`` for the analysis views: the verdicts summed up per rater
and item (Agreement, gold) and the pairwise feed the live leaderboard reads incrementally.

Plain columns only (nothing to decode); the effective-rows condition is the one of
:func:`core.store.judgments.effective_query`.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from core.store.fingerprints import recent_count_sql
from core.store.judgments import effective_query, max_judgment_id

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


def _summary_key(db: Database, kind: str) -> tuple[Any, ...] | None:
    """The memo key of a summary, or None for a database without a file or inside an open
    transaction (rows it reads could still be rolled back and their ids reused): nothing kept.
    PostgreSQL: the database (name, oid, server port and start time) and the judgments' largest
    id and recent count (a smaller id can commit after a larger one there:
    :func:`core.store.fingerprints.recent_count_sql`)."""
    if db.conn.in_transaction:
        return None
    if db.dialect.name == "postgresql":
        found = db.execute(
            "select current_database(), (select oid from pg_database where datname = "
            "current_database()), inet_server_port(), pg_postmaster_start_time()::text, "
            f"coalesce(max(id), 0), {recent_count_sql('judgments')} from judgments"
        ).fetchone()
        return (*found, kind)
    path = next((r[2] for r in db.execute("pragma database_list") if r[1] == "main"), "")
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
    keys = ", ".join(SUMMARY_KEYS[kind])
    inner, params = effective_query(
        ["rater", "rater_kind", *SUMMARY_KEYS[kind], "id"],
        kind=kind,
        status="ok",
        with_verdict=True,
        ordered=False,
    )
    sql = (
        f"select g.rater, g.rater_kind, {', '.join(f'g.{k}' for k in SUMMARY_KEYS[kind])}, g.n, "
        "g.first_id, f.verdict, g.last_id, l.verdict from ("
        # max(rater_kind): one per rater, but PostgreSQL takes no bare column beside group by
        f"select rater, max(rater_kind) as rater_kind, {keys}, count(*) as n, "
        f"min(id) as first_id, max(id) as last_id from ({inner}) e group by rater, {keys}) g "
        "join judgments f on f.id = g.first_id join judgments l on l.id = g.last_id "
        "order by g.last_id"
    )
    return [tuple(r) for r in db.execute(sql, params).fetchall()]


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
)


def pairwise_records_since(db: Database, last_id: int) -> list[tuple[Any, ...]]:
    """Pairwise judgments (superseded ones too) with id > ``last_id``, in id order, as tuples of
    :data:`PAIRWISE_SINCE_COLUMNS` (the columns an incremental aggregate needs; plain columns,
    nothing to decode). ``kind || ''`` keeps SQLite off the ``kind`` index whether or not the
    planner has statistics (without them it walked every pairwise row and sorted them: 40-80 ms
    a refresh at 107,677 verdicts; now a range of the primary key, core/store/planner.py)."""
    found: list[tuple[Any, ...]] = db.conn.execute(
        f"select {', '.join(PAIRWISE_SINCE_COLUMNS)} from judgments where kind || '' = "
        "'pairwise' and id > ? order by id",
        [last_id],
    ).fetchall()
    return found


def pairwise_count(db: Database, up_to: int, above: int, above_next: int) -> tuple[int, int] | None:
    """How many pairwise judgments have ``above < id <= up_to``, and how many ``above_next < id
    <= up_to`` (one statement, one snapshot), where that can still grow (PostgreSQL: a
    transaction holding a smaller id may commit after a larger one,
    :attr:`core.store.engine.Dialect.ids_in_commit_order`); ``None`` on SQLite, where it cannot
    (no query). A range of the primary key: callers keep it within
    :data:`core.store.fingerprints.LATE_WINDOW` ids."""
    if db.dialect.ids_in_commit_order:
        return None
    low = min(above, above_next)
    found = db.execute(
        "select count(*) filter (where id > ?), count(*) filter (where id > ?) from judgments "
        "where kind = 'pairwise' and id > ? and id <= ?",
        [above, above_next, low, up_to],
    ).fetchone()
    return int(found[0]), int(found[1])


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
    where = ["kind = 'pairwise'", "id <= ?", "status = 'ok'", "verdict is not null"]
    params: list[Any] = [up_to]
    for col, value in (filters or {}).items():
        if col not in ("rater", "rater_kind", "criterion"):
            raise ValueError(f"not a filter of counted_pairwise: {col!r}")
        where.append(f"{col} = ?")
        params.append(value)
    if raters is not None:
        where.append(f"rater in ({', '.join('?' for _ in raters) or 'null'})")
        params.extend(raters)
    found = db.execute(
        "select id, question_id, system_a, system_b, verdict from judgments where "
        f"{' and '.join(where)} order by id",
        params,
    ).fetchall()
    gone = db.execute(
        "select supersedes from judgments where kind = 'pairwise' and id <= ? "
        "and supersedes is not null",
        [up_to],
    ).fetchall()
    last = db.execute(
        "select coalesce(max(id), 0) from judgments where kind = 'pairwise' and id <= ?", [up_to]
    ).fetchone()[0]
    return found, {int(r[0]) for r in gone}, int(last)
