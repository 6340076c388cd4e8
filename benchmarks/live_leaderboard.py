"""The live leaderboard at a campaign's size (issue 37): a refresh after one new verdict with
``--verdicts`` (1,000,000) stored, the project's path against the old one, in the same run.

1. The database (SQLite): the key-free demo (``--quick``: ``demo --quick``; or ``--demo-db
   PATH``, copied) plus stored auto-rater verdicts on the demo's answer pairs up to
   ``--verdicts`` (``benchmarks/app_pages.py``'s ``add_verdicts``).
2. The old path, as the app refreshed before issue 37 (re-enacted here with today's functions),
   on a copy without the planner's statistics (``sqlite_stat1`` dropped, as a database the app
   never analysed): the new rows read with ``kind = 'pairwise' and id > ?`` (which then walks the
   ``(kind, rater)`` index over every pairwise row and sorts them), every stored row copied once
   (the old ``PairwiseCounts.arrays`` concatenated the new rows onto all the others), the system
   groups and the chosen group's counts each netting every row
   (:func:`core.views.net_rows.net_rows`, twice), the group's comparisons repeated once per
   judgment, and the fit over those rows.
3. The project's path: :class:`core.views.leaderboard.LiveLeaderboard` on the database after
   ``PRAGMA optimize`` (what every app connection runs before it closes; the first time it
   analyses the table: ``optimize_s``): the new rows by a primary-key range, written into spare
   room of the arrays, the netted rows merged in (:class:`core.views.net_rows.NetRows`), the
   group's distinct comparisons weighted by their counts, the fit.

Each path: its cold view (``cold_s`` / ``old_cold_s``: the first read of every verdict), then
``--repeats`` times one new verdict stored (its own transaction) and the refresh timed;
``refresh_ms`` / ``old_refresh_ms`` are the medians, ``ratio`` old / new. ``since_query_ms`` /
``old_since_query_ms``: the read of the new rows alone. The two paths alternate, so load on a
shared machine falls on both; the load average is printed with the figures.

``--postgres``: then the same database moved into a throwaway local PostgreSQL server
(``scripts/throwaway_pg.py``, ``python -m core migrate-db``, which vacuums and analyses it) and
the project's path timed there too: ``pg_cold_s``, ``pg_refresh_ms`` (median of ``--repeats``
refreshes, each after one new verdict) and ``pg_poll_ms`` (the 2 s change check,
:func:`core.store.fingerprints.judgments_version`, median of 21).

Last line: one JSON object.

    .venv/bin/python benchmarks/live_leaderboard.py [--verdicts 1000000] [--repeats 7]
        [--demo-db PATH] [--quick] [--postgres]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT))

from app_pages import add_verdicts, demo_db  # noqa: E402  (benchmarks/ is on the path)
from team_bench.databases import LOCAL_PG_SETTINGS, build_postgres  # noqa: E402

from core.stats.pairwise_counts import PairwiseCounts  # noqa: E402
from core.store.connection import transaction  # noqa: E402
from core.store.database import open_db  # noqa: E402
from core.store.engine import Database  # noqa: E402
from core.store.fingerprints import judgments_version  # noqa: E402
from core.store.judgments import (  # noqa: E402
    JudgmentKind,
    NewJudgment,
    RaterKind,
    insert_judgment,
)
from core.store.planner import optimize  # noqa: E402
from core.store.verdict_reads import pairwise_records_since  # noqa: E402
from core.views.leaderboard import (  # noqa: E402
    PAGE_RANKING,
    LiveLeaderboard,
    SystemGroup,
    fit_pairwise,
    group_counts,
    system_groups,
)
from core.views.live_leaderboard import StoreLeaderboard  # noqa: E402
from core.views.net_rows import net_rows  # noqa: E402
from scripts.throwaway_pg import create_database, throwaway_server  # noqa: E402


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--verdicts", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=7, help="new verdicts timed per path")
    parser.add_argument("--demo-db", help="an existing SQLite demo database (copied, not changed)")
    parser.add_argument(
        "--quick", action="store_true", help="demo --quick + 20,000 verdicts, 3 repeats"
    )
    parser.add_argument(
        "--postgres", action="store_true", help="also time the project's path on PostgreSQL"
    )
    args = parser.parse_args(argv)
    if args.quick:
        args.verdicts, args.repeats = min(args.verdicts, 20_000), min(args.repeats, 3)
    if args.verdicts < 1 or not 1 <= args.repeats <= 1000:
        parser.exit(2, "error: --verdicts must be >= 1 and --repeats from 1 to 1000\n")
    return args


def build(work: Path, args: argparse.Namespace) -> Path:
    """The demo plus verdicts, checkpointed (a file copy is the whole database)."""
    if args.quick and not args.demo_db:
        path = work / "bench.db"
        subprocess.run(
            [sys.executable, "-m", "core", "--db", str(path), "demo", "--quick"],
            cwd=ROOT,
            check=True,
            capture_output=True,
        )
    else:
        path = demo_db(work, args.demo_db)
    add_verdicts(path, args.verdicts)
    db = open_db(path)
    db.conn.execute("drop table if exists sqlite_stat1")  # as a database never analysed
    db.conn.execute("pragma wal_checkpoint(truncate)")
    db.close()
    return path


def old_group_counts(counts: PairwiseCounts, group: SystemGroup) -> PairwiseCounts:
    """``group_counts`` before issue 37: every row netted again, each comparison repeated once
    per judgment."""
    q, a, b, o, k = net_rows(counts)
    local = np.full(max(counts.n_systems, 1), -1, np.int64)
    for i, s in enumerate(group.systems):
        local[counts.systems.index(s)] = i
    rows = (local[a] >= 0) & (local[b] >= 0)
    q, a, b, o = (np.repeat(x[rows], k[rows]) for x in (q, local[a], local[b], o))
    names = list(group.systems)
    return PairwiseCounts.from_codes(
        q, list(counts.questions), a, names, b, names, o, ["A", "B", "Equal", "None"]
    )


def old_view(board: StoreLeaderboard, db: Database) -> None:
    """The refresh as before issue 37 (see the module docstring, step 2)."""
    board.refresh(db)
    [np.concatenate([x, x[:0]]) for x in board.counts.arrays()]  # the old arrays() copy
    groups, _ = system_groups(board.counts)
    if groups:
        fit_pairwise(old_group_counts(board.counts, groups[0]), PAGE_RANKING)


def new_verdict(db: Database, n: int) -> None:
    """One auto-rater verdict on a pair the demo has, in its own transaction."""
    row = db.execute(
        "select question_id, system_a, system_b from judgments where kind = 'pairwise' "
        "and status = 'ok' order by id desc limit 1"
    ).fetchone()
    with transaction(db):
        insert_judgment(
            db,
            NewJudgment(
                kind=JudgmentKind.PAIRWISE,
                question_id=row[0],
                rater=f"auto:bench-new-{n % 3}",
                rater_kind=RaterKind.AUTO,
                criterion="better",
                system_a=row[1],
                system_b=row[2],
                order_shown="ab",
                verdict="AB"[n % 2],
            ),
        )


def warm() -> None:
    """Import and run the fit once on three verdicts, so neither cold view pays the imports."""
    tiny = PairwiseCounts.from_records([("q", "x", "y", "A"), ("q", "y", "z", "B")])
    groups, _ = system_groups(tiny)
    fit_pairwise(group_counts(tiny, groups[0]), PAGE_RANKING)


def timed(fn: Callable[[], object]) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def since_ms(db: Database) -> float:
    top = db.execute("select max(id) from judgments").fetchone()[0]
    return 1000 * min(timed(lambda: pairwise_records_since(db, top - 1)) for _ in range(3))


def on_postgres(base: Path, repeats: int) -> dict[str, float]:
    """The project's path on ``base`` moved into a throwaway local PostgreSQL server: its cold
    view, the median refresh after one new verdict, the median change check (the 2 s poll)."""
    with throwaway_server(LOCAL_PG_SETTINGS) as server:
        url = create_database(server, "bench_live")
        build_postgres(base, url)
        db = open_db(url)
        try:
            warm()
            live = LiveLeaderboard()
            cold = timed(lambda: live.view(db))
            times = []
            for n in range(repeats):
                new_verdict(db, 1000 + n)
                times.append(timed(lambda: live.view(db)))
            poll = statistics.median(timed(lambda: judgments_version(db)) for _ in range(21))
        finally:
            db.close()
    return {
        "pg_cold_s": round(cold, 2),
        "pg_refresh_ms": round(1000 * statistics.median(times), 1),
        "pg_poll_ms": round(1000 * poll, 2),
    }


def main() -> None:
    args = parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench_live_"))
    try:
        t = time.perf_counter()
        base = build(work, args)
        print(f"demo + {args.verdicts:,} verdicts in {time.perf_counter() - t:.1f} s", flush=True)
        old_path = work / "old.db"
        shutil.copy(base, old_path)
        old_db, new_db = open_db(old_path), open_db(base)
        warm()
        load_start = os.getloadavg()
        old_board, live = StoreLeaderboard(), LiveLeaderboard()
        old_cold = timed(lambda: old_view(old_board, old_db))
        cold = timed(lambda: live.view(new_db))
        optimize_s = timed(lambda: optimize(new_db))  # the app's close after its first read
        old_since, since = since_ms(old_db), since_ms(new_db)
        old_times, new_times = [], []
        for n in range(args.repeats):
            new_verdict(old_db, n)
            old_times.append(timed(lambda: old_view(old_board, old_db)))
            new_verdict(new_db, n)
            new_times.append(timed(lambda: live.view(new_db)))
        assert len(live.board.counts) == len(old_board.counts), "the two paths disagree"
        old_db.close()
        new_db.close()
        pg = on_postgres(base, args.repeats) if args.postgres else {}
    finally:
        shutil.rmtree(work, ignore_errors=True)
    old_ms, new_ms = (1000 * statistics.median(x) for x in (old_times, new_times))
    figures = {
        "verdicts": args.verdicts,
        "refresh_ms": round(new_ms, 1),
        "old_refresh_ms": round(old_ms, 1),
        "ratio": round(old_ms / new_ms, 1),
        "cold_s": round(cold, 2),
        "old_cold_s": round(old_cold, 2),
        "optimize_s": round(optimize_s, 2),
        "since_query_ms": round(since, 2),
        "old_since_query_ms": round(old_since, 2),
        "repeats": args.repeats,
        "load_avg_start": [round(v, 2) for v in load_start],
        "load_avg_end": [round(v, 2) for v in os.getloadavg()],
        **pg,
    }
    print(
        f"refresh after one verdict: {new_ms:.1f} ms (old path {old_ms:.1f} ms, x{old_ms / new_ms:.1f}); "
        f"new rows read {since:.2f} ms (old {old_since:.2f} ms); cold view {cold:.2f} s "
        f"(old {old_cold:.2f} s); load average {figures['load_avg_start'][0]} -> "
        f"{figures['load_avg_end'][0]} on {os.cpu_count()} cores"
    )
    if pg:
        print(
            f"PostgreSQL: refresh after one verdict {pg['pg_refresh_ms']:.1f} ms; cold view "
            f"{pg['pg_cold_s']:.2f} s; change check {pg['pg_poll_ms']:.2f} ms"
        )
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
