"""The store's database layer: sqlite-utils against the stdlib layer ``core.store.engine``.

Measured in one run, each figure the median of ``RUNS`` runs, every run in a fresh subprocess
(so no import or page cache of an earlier run is reused inside the interpreter):

1. start-up: the wall time of ``python -m core status`` on a migrated database, as it is
   (``status_s``) and with ``sqlite_utils`` imported first (``status_with_sqlite_utils_s``, what
   the CLI paid while ``open_db`` loaded sqlite-utils);
2. import cost: the wall time of ``python -c "import sqlite_utils"`` (it imports pandas and
   numpy) against ``python -c "import sqlite3, core.store.engine"``, less ``python -c "pass"``;
3. insert throughput: 50,000 judgment-like rows (14 columns, one JSON column) with
   ``insert_all`` (batch 500) into a fresh WAL database, per layer;
4. query throughput: ``select *`` of those 50,000 rows as dicts (``db.query``), per layer.

Ratios are sqlite-utils / engine (above 1: the engine is faster). Last printed line: one JSON
object with the figures.

Measured 2026-12-01 on the shared 2-core machine under load from other jobs (medians of 5):
status 0.62 s vs 2.34 s with sqlite-utils (1.72 s saved, 3.8x); import sqlite-utils 2.14 s vs
0.13 s for sqlite3 + engine; insert_all 50k rows 2.89 s vs 3.80 s (ratio 1.31); dict-row query
0.69 s vs 0.86 s (ratio 1.24; 0.77 vs 0.78 s in an earlier run: equal within the noise).
Conclusion: the start-up gain is real and throughput is no worse, so ``open_db`` uses the engine.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
RUNS = 5
N_ROWS = 50_000
BATCH = 500

#: One subprocess run of steps 3 and 4: prints {"insert_s": ..., "query_s": ...}. The insert goes
#: into a new file; the query reads the shared, checkpointed ``query.db`` (the same file for both
#: layers, so neither reads pages still in its own write-ahead log).
THROUGHPUT = r"""
import json, sys, time
sys.path.insert(0, {root!r})
layer, path, query_path, n, batch = sys.argv[1], sys.argv[2], sys.argv[3], *map(int, sys.argv[4:])
from core.store.connection import connect
if layer == "sqlite_utils":
    import sqlite_utils
    Layer = sqlite_utils.Database
else:
    from core.store.engine import Database as Layer
db = Layer(connect(path))
db.execute(
    "create table judgments (id integer primary key, question_id text, kind text, rater text,"
    " rater_kind text, system_a text, system_b text, verdict text, order_shown text,"
    " status text, raw text, evidence text, latency_ms real, created_at text)"
)
rows = [
    {{"question_id": f"q{{i % 2000}}", "kind": "pairwise", "rater": f"auto:judge-{{i % 7}}",
      "rater_kind": "auto", "system_a": f"sys-{{i % 11}}", "system_b": f"sys-{{(i + 3) % 11}}",
      "verdict": "ABEN"[i % 4], "order_shown": "ab", "status": "ok",
      "raw": "The first answer names the right character and quotes the passage." * 2,
      "evidence": ["He said their name.", f"passage {{i}}"], "latency_ms": 12.5 + i % 90,
      "created_at": "2026-12-01T00:00:00.000+00:00"}}
    for i in range(n)
]
start = time.perf_counter()
db.table("judgments").insert_all(rows, batch_size=batch)
insert_s = time.perf_counter() - start
if query_path == "-":
    db.execute("pragma wal_checkpoint(truncate)")
    raise SystemExit(0)
db = Layer(connect(query_path))
start = time.perf_counter()
got = list(db.query("select * from judgments where id > ?", [0]))
query_s = time.perf_counter() - start
assert len(got) == n and got[0]["evidence"].startswith("[")
print(json.dumps({{"insert_s": insert_s, "query_s": query_s}}))
"""


def wall(args: list[str], env: dict[str, str] | None = None) -> float:
    """Seconds one subprocess takes from start to exit (it must succeed)."""
    start = time.perf_counter()
    subprocess.run(args, check=True, cwd=ROOT, env=env, capture_output=True)
    return time.perf_counter() - start


def throughput(layer: str, folder: str, k: int | None) -> dict[str, float]:
    """One fresh-subprocess run of ``layer``: insert into a new file, then query ``query.db``
    (``k`` None: build ``query.db`` itself and measure nothing)."""
    path = os.path.join(folder, "query.db" if k is None else f"{layer}-{k}.db")
    query_path = "-" if k is None else os.path.join(folder, "query.db")
    script = THROUGHPUT.format(root=str(ROOT))
    out = subprocess.run(
        [PY, "-c", script, layer, path, query_path, str(N_ROWS), str(BATCH)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return dict(json.loads(out.strip().splitlines()[-1])) if k is not None else {}


def main() -> dict[str, float]:
    with tempfile.TemporaryDirectory() as folder:
        env = dict(os.environ, WORKBENCH_DB=os.path.join(folder, "status.db"))
        subprocess.run(
            [PY, "-m", "core", "init"], check=True, cwd=ROOT, env=env, capture_output=True
        )
        status = [PY, "-m", "core", "status"]
        with_su = [
            PY,
            "-c",
            "import sqlite_utils, runpy; runpy.run_module('core', run_name='__main__')",
            "status",
        ]
        figures: dict[str, float] = {}
        # Interleave the variants run by run so a load spike on the shared machine hits both.
        samples: dict[str, list[float]] = {
            k: [] for k in ("status", "status_su", "bare", "su", "std")
        }
        for _ in range(RUNS):
            samples["status"].append(wall(status, env))
            samples["status_su"].append(wall(with_su, env))
            samples["bare"].append(wall([PY, "-c", "pass"]))
            samples["su"].append(wall([PY, "-c", "import sqlite_utils"]))
            samples["std"].append(wall([PY, "-c", "import sqlite3, core.store.engine"]))
        med = {k: statistics.median(v) for k, v in samples.items()}
        figures["status_s"] = med["status"]
        figures["status_with_sqlite_utils_s"] = med["status_su"]
        figures["startup_saved_s"] = med["status_su"] - med["status"]
        figures["import_sqlite_utils_s"] = med["su"] - med["bare"]
        figures["import_engine_s"] = med["std"] - med["bare"]
        runs: dict[str, list[dict[str, float]]] = {"sqlite_utils": [], "engine": []}
        throughput("engine", folder, None)
        for k in range(RUNS):
            for layer in runs:
                runs[layer].append(throughput(layer, folder, k))
    for layer, results in runs.items():
        for key in ("insert_s", "query_s"):
            figures[f"{layer}_{key}"] = statistics.median(r[key] for r in results)
        figures[f"{layer}_insert_rows_per_s"] = N_ROWS / figures[f"{layer}_insert_s"]
        figures[f"{layer}_query_rows_per_s"] = N_ROWS / figures[f"{layer}_query_s"]
    figures["insert_ratio"] = figures["sqlite_utils_insert_s"] / figures["engine_insert_s"]
    figures["query_ratio"] = figures["sqlite_utils_query_s"] / figures["engine_query_s"]
    figures["startup_ratio"] = figures["status_with_sqlite_utils_s"] / figures["status_s"]
    return {k: round(v, 4) for k, v in figures.items()}


if __name__ == "__main__":
    result = main()
    for key, value in result.items():
        print(f"{key:34} {value}")
    print(json.dumps(result))
