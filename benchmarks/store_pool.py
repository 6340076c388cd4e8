"""Opening the database per page run: the pooled engines (issue 33) against the old per-open path.

One figure per database and path, in one run: the median over ``ROUNDS`` rounds of the mean
milliseconds of "open + one query + close" (``OPS`` times per round), on a migrated database:

- ``old``: what ``open_db`` did before issue 33, spelled out here: a new connection (SQLite:
  ``core.store.connection.connect``; PostgreSQL: a new psycopg connection), the foreign-database
  check, WAL, the whole migration check, the dead-run and dead-stage bookkeeping;
- ``new``: ``core.store.database.open_db`` (a connection borrowed from the process's engine, the
  migration check done once per engine).

PostgreSQL runs on a throwaway server (``scripts/throwaway_pg.py``; skipped, with the reason,
without its binaries). Ratios are old / new (above 1: the engine is faster). Last printed line:
one JSON object with the figures.
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from core.store import connection  # noqa: E402
from core.store.database import migrate_db, open_db  # noqa: E402
from core.store.engine import Database  # noqa: E402
from core.store.foreign_db import refuse_foreign  # noqa: E402
from core.store.passage_stage import drop_dead_stages  # noqa: E402
from core.store.pg_connection import PgConnection, connect_psycopg  # noqa: E402
from core.store.postgres import POSTGRES  # noqa: E402
from core.store.runs import mark_dead_runs  # noqa: E402
from scripts import throwaway_pg  # noqa: E402

ROUNDS = 7
OPS = 40
QUERY = "select count(*) from judgments"


def old_open(target: str) -> Database:
    """``open_db`` as it was before issue 33 (a new connection and every check, each time)."""
    if target.startswith("postgresql://"):
        db = Database(PgConnection(connect_psycopg(target)), POSTGRES)
        refuse_foreign(db, target, create=True)
    else:
        db = Database(connection.connect(target, wal=False))
        refuse_foreign(db, target, create=False)
        connection.use_wal(db.conn)
    migrate_db(db)
    mark_dead_runs(db)
    drop_dead_stages(db)
    return db


def per_op_ms(opener: Callable[[str], Database], target: str) -> float:
    """Median over rounds of the mean ms of open + one query + close."""
    means = []
    for _ in range(ROUNDS):
        start = time.perf_counter()
        for _ in range(OPS):
            db = opener(target)
            db.execute(QUERY).fetchone()
            db.conn.close()
        means.append((time.perf_counter() - start) * 1000 / OPS)
    return statistics.median(means)


def measure(target: str) -> dict[str, float]:
    """Old and new figures for one database, interleaved warm-up first."""
    open_db(target).conn.close()
    old_open(target).conn.close()
    old = per_op_ms(old_open, target)
    new = per_op_ms(lambda t: open_db(t), target)
    return {"old_ms": round(old, 3), "new_ms": round(new, 3), "ratio": round(old / new, 2)}


def main() -> None:
    figures: dict[str, object] = {}
    with tempfile.TemporaryDirectory() as folder:
        path = str(Path(folder) / "bench.db")
        open_db(path, create=True).conn.close()
        figures["sqlite"] = measure(path)
        print("sqlite", figures["sqlite"], flush=True)
    try:
        with throwaway_pg.throwaway_server() as server:
            url = throwaway_pg.create_database(server, "bench_pool")
            figures["postgresql"] = measure(url)
            print("postgresql", figures["postgresql"], flush=True)
            from core.store.pool import dispose

            dispose()
    except throwaway_pg.PgUnavailable as exc:
        figures["postgresql"] = f"skipped: {exc}"
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
