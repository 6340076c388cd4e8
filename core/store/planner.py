"""The query planner's statistics: SQLite chooses an index from the statistics ``ANALYZE`` stores
in ``sqlite_stat1``, and without them it guesses. With a million verdicts the live leaderboard's
read of the new rows (``kind = 'pairwise' and id > ?``) took the ``(kind, rater)`` index and sorted
every pairwise row (0.2-0.5 s a refresh) instead of a range of the primary key (0.02 ms),
because nothing told it that every row has the same ``kind`` (issue 37).

:func:`optimize` is what SQLite advises for an application with short-lived connections: ``PRAGMA
optimize`` just before closing each one (https://sqlite.org/pragma.html#pragma_optimize). It runs
``ANALYZE`` only on the tables this connection's queries used whose statistics are missing or
far out of date (once for a large table, a few seconds at a million rows; afterwards it costs
microseconds). No ``analysis_limit``: a sample of the index misjudges a column whose every value
is the same (it calls ``kind`` selective). PostgreSQL keeps its own statistics (autovacuum)."""

from __future__ import annotations

import sqlite3

from core.store.engine import Database


def optimize(db: Database) -> bool:
    """``PRAGMA optimize`` on a SQLite connection (nothing on PostgreSQL); whether it ran. It is
    advice to the planner, so a database busy with another writer (``ANALYZE`` writes) or a
    read-only one skips it this time rather than fail the caller."""
    if db.dialect.name != "sqlite":
        return False
    try:
        db.conn.execute("pragma optimize")
    except sqlite3.Error:  # locked, busy, read-only or closed: the next close tries again
        return False
    return True
