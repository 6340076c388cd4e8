"""Round trips of a served Side by side label on PostgreSQL, counted in a real served run (issue 33).

Runs ``benchmarks/team_load.py --configs postgresql:1 --n 1 --actions A`` (one annotator, the
protocol client, closed loop) with ``benchmarks/team_bench/trip_hook`` on the app server's
``PYTHONPATH``: the server notes every statement psycopg sends and its round trips (a statement
on its own is one, a pipeline one however many it holds: ``tests/pg_round_trips.py`` counts the
same way under AppTest), one line a Streamlit script run. A label is a run that stored a
verdict (an ``INSERT INTO judgments``: the verdict key's action and the decision area's
fragment run that follows, one script run). Prints each label's statements and round trips and
the round trips of the most common label, each with its statements in order. Last line: one
JSON object: ``labels``, ``statements`` and ``round_trips`` (the most common), ``per_label``
([statements, round trips] each), ``trips`` (that label's, each a list of statement texts cut to
90 characters).

    .venv/bin/python benchmarks/label_round_trips.py [--actions 10] [--demo-db PATH]
        [--db postgresql | postgresql://USER@HOST/DB]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
HOOK = ROOT / "benchmarks" / "team_bench" / "trip_hook"


def label_runs(lines: list[str]) -> list[dict[str, Any]]:
    """The script runs (the hook's JSON lines) that stored a verdict, in order."""
    runs = [json.loads(line) for line in lines if line.strip()]
    return [
        run
        for run in runs
        if any(s.startswith("INSERT INTO judgments") for trip in run["list"] for s in trip)
    ]


def summary(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The labels' counts: the most common (statements, round trips) and one such label's round
    trips (the first); ``labels`` 0 and None counts when no run stored a verdict."""
    per_label = [[run["statements"], run["trips"]] for run in runs]
    if not per_label:
        return {"labels": 0, "statements": None, "round_trips": None, "per_label": [], "trips": []}
    (statements, trips), _ = Counter(map(tuple, per_label)).most_common(1)[0]
    first = next(r for r in runs if (r["statements"], r["trips"]) == (statements, trips))
    return {
        "labels": len(runs),
        "statements": statements,
        "round_trips": trips,
        "per_label": per_label,
        "trips": first["list"],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--actions", type=int, default=10, help="labels to count (one annotator)")
    parser.add_argument("--demo-db", help="an existing SQLite demo database (copied, not changed)")
    parser.add_argument("--db", default="postgresql", help="as team_load.py's --db")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="label_trips_") as folder:
        prefix = Path(folder) / "trips"
        paths = [str(HOOK), *filter(None, [os.environ.get("PYTHONPATH")])]
        env = {
            **os.environ,
            "WORKBENCH_COUNT_TRIPS": str(prefix),
            "PYTHONPATH": os.pathsep.join(paths),
        }
        command = [sys.executable, str(ROOT / "benchmarks" / "team_load.py")]
        command += ["--configs", "postgresql:1", "--n", "1", "--actions", str(args.actions)]
        command += ["--db", args.db] + (["--demo-db", args.demo_db] if args.demo_db else [])
        done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
        if done.returncode:
            print(done.stdout[-2000:] + done.stderr[-2000:], file=sys.stderr)
            return done.returncode
        lines = [line for found in Path(folder).glob("trips.*") for line in found.open()]
    result = summary(label_runs(lines))
    print(f"labels: {result['labels']}; statements, round trips each: {result['per_label']}")
    for i, trip in enumerate(result["trips"], 1):
        print(f"round trip {i} ({len(trip)}): " + " || ".join(s[:60] for s in trip))
    print(json.dumps(result))
    return 0 if result["labels"] else 1


if __name__ == "__main__":
    sys.exit(main())
