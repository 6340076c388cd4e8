"""The databases ``benchmarks/team_load.py`` labels on: built once per kind, a fresh copy per
configuration, the annotators' accounts, and the labels read back after a round."""

from __future__ import annotations

import argparse
import math
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

from app_pages import ROOT, add_verdicts, demo_db

from core.annotation.tasks import task_items
from core.store.accounts import create_account
from core.store.database import open_db
from core.store.judgments import effective_judgments, judgments_after
from core.store.settings import int_setting, set_setting
from scripts.throwaway_pg import create_database, database_name, database_url, drop_database

#: The throwaway server's settings: SQLite's durability (WAL, synchronous NORMAL: a crash may
#: lose the last commits, never corrupts) and room for every session's connection.
LOCAL_PG_SETTINGS = {"fsync": "on", "synchronous_commit": "off", "max_connections": "300"}


def build_sqlite(work: Path, args: argparse.Namespace) -> Path:
    """The SQLite database every configuration starts from: the demo (``--quick``: ``demo
    --quick``) plus stored verdicts; checkpointed, so a file copy is the whole database."""
    if args.quick and not args.demo_db:
        path = work / "bench.db"
        done = subprocess.run(
            [sys.executable, "-m", "core", "--db", str(path), "demo", "--quick"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode:
            raise SystemExit(f"demo --quick failed: {done.stderr.strip()[-2000:]}")
    else:
        path = demo_db(work, args.demo_db)
    add_verdicts(path, args.verdicts)
    db = open_db(path)
    db.conn.execute("pragma wal_checkpoint(truncate)")
    db.close()
    return path


def build_postgres(base: Path, target: str) -> None:
    """``base`` moved into the empty PostgreSQL database ``target`` (``migrate-db``: every row,
    ids kept, verified)."""
    done = subprocess.run(
        [sys.executable, "-m", "core", "migrate-db", str(base), target],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode:
        raise SystemExit(f"migrate-db into PostgreSQL failed: {done.stderr.strip()}")


class Databases:
    """A fresh database per configuration, from one built database per kind (see the module
    docstring); the PostgreSQL copies are dropped when the ``with`` block ends."""

    def __init__(self, work: Path, base: Path, pg_target: str | None) -> None:
        self.work, self.base, self.pg_target = work, base, pg_target
        self._made: list[str] = []

    def __enter__(self) -> Databases:
        return self

    def __exit__(self, *exc: object) -> None:
        for url in self._made:
            drop_database(database_url(url, "postgres"), database_name(url))

    def fresh(self, backend: str, name: str) -> Path | str:
        """A new copy of the ``backend`` database (``sqlite`` or ``postgresql``) named after
        ``name`` (letters, digits, ``_``)."""
        if backend == "sqlite":
            path = self.work / f"{name}.db"
            shutil.copy(self.base, path)
            return path
        assert self.pg_target is not None
        copy = create_database(
            database_url(self.pg_target, "postgres"),
            f"bench_team_{name}_{uuid.uuid4().hex[:8]}",
            template=database_name(self.pg_target),
        )
        self._made.append(copy)
        return copy


def accounts(
    location: Path | str, rounds: list[int], actions: int
) -> dict[int, list[tuple[str, str]]]:
    """One account per annotator of each round (fresh people, fresh queues): ``(name, token)``.
    If the side-by-side items cannot give everyone ``actions`` items with one label each
    (``annotations_per_item``), raises that setting until they can (printed)."""
    db = open_db(location)
    out = {
        n: [(f"load{n}-{i}", create_account(db, f"load{n}-{i}")) for i in range(n)] for n in rounds
    }
    items, k = len(task_items(db, "side-by-side")), int_setting(db, "annotations_per_item")
    needed = math.ceil(sum(rounds) * actions / max(1, items))
    if needed > k:
        set_setting(db, "annotations_per_item", needed)
        print(f"  annotations_per_item {k} -> {needed} ({items} side-by-side items)", flush=True)
    db.close()
    return out


def stored_check(location: Path | str, results: list[dict], since_id: int) -> tuple[int, int]:
    """(lost, doubled) labels of a round, read back through the store: lost = confirmed actions
    without an effective verdict of that person; doubled = that person's rows of the round beyond
    their effective verdicts (an item labelled twice) plus effective verdicts beyond key presses."""
    db = open_db(location)
    rows = judgments_after(db, since_id, ["rater"])
    lost = doubled = 0
    for r in results:
        rater = f"human:{r['name']}"
        effective = len(effective_judgments(db, kind="pairwise", rater=rater, with_verdict=True))
        raw = sum(1 for row in rows if row[0] == rater)
        lost += max(0, len(r["times"]) - effective)
        doubled += (raw - effective) + max(0, effective - r["pressed"])
    db.close()
    return lost, doubled
