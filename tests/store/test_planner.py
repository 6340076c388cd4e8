"""The planner's statistics (issue 37): after ``PRAGMA optimize`` as SQLite advises, the live
leaderboard's read of the new pairwise rows is a range of the primary key, not a walk of the
``(kind, rater)`` index over every pairwise row followed by a sort."""

from __future__ import annotations

import sqlite3

from contract_registry import contract_case
from pairwise_rows import judgment

from core.store.engine import Database
from core.store.judgments import insert_judgments
from core.store.planner import optimize
from core.store.verdict_reads import pairwise_records_since

SINCE = "select id from judgments where kind = 'pairwise' and id > ? order by id"


def _plan(db: Database) -> str:
    return " ".join(str(row[-1]) for row in db.conn.execute(f"explain query plan {SINCE}", [0]))


@contract_case(insert_judgments, optimize, pairwise_records_since)
def test_optimize_makes_the_new_rows_read_a_primary_key_range(seeded: Database) -> None:
    db = seeded
    insert_judgments(db, [judgment(f"human:p{i % 7}", "A") for i in range(3000)])
    if db.dialect.name != "sqlite":
        assert optimize(db) is False  # PostgreSQL keeps its statistics itself
        return
    assert "judgments_kind" in _plan(db)  # without statistics: the index, then a sort
    assert len(pairwise_records_since(db, 2990)) == 10  # the query the connection used
    assert optimize(db) is True
    assert "PRIMARY KEY" in _plan(db) and "judgments_kind" not in _plan(db)
    assert optimize(db) is True  # again: nothing left to analyse, still fine


@contract_case(insert_judgments, optimize, pairwise_records_since)
def test_optimize_on_a_busy_database_is_skipped_not_raised(seeded: Database) -> None:
    """``ANALYZE`` writes: with another connection holding the write lock, ``optimize`` gives
    up (after the busy timeout) and says so instead of failing the page that closes."""
    db = seeded
    if db.dialect.name != "sqlite":
        return
    insert_judgments(db, [judgment("human:p", "A") for _ in range(50)])
    pairwise_records_since(db, 0)
    path = db.conn.execute("pragma database_list").fetchone()[2]
    other = sqlite3.connect(path, isolation_level=None)
    try:
        other.execute("begin immediate")
        db.conn.execute("pragma busy_timeout = 1")
        assert optimize(db) is False
    finally:
        other.execute("rollback")
        other.close()


def test_new_rows_read_a_primary_key_range_even_without_statistics(seeded: Database) -> None:
    """Before any ``PRAGMA optimize`` (a fresh import read at once, a CLI run) the live
    leaderboard's read of the new rows already takes the primary key (issue 39: it walked and
    sorted every pairwise row, 40-80 ms of a refresh at 4 x 26,919 verdicts)."""
    db = seeded
    insert_judgments(db, [judgment(f"human:p{i % 7}", "A") for i in range(3000)])
    if db.dialect.name != "sqlite":
        return
    statements: list[str] = []
    db.conn.set_trace_callback(statements.append)
    try:
        assert len(pairwise_records_since(db, 2990)) == 10
    finally:
        db.conn.set_trace_callback(None)
    (sql,) = [s for s in statements if s.lstrip().lower().startswith("select")]
    plan = " ".join(str(r[-1]) for r in db.conn.execute(f"explain query plan {sql}"))
    assert "PRIMARY KEY" in plan and "judgments_kind" not in plan and "TEMP B-TREE" not in plan
