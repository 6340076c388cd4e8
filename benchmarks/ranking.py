"""Benchmark of the statistics core; the last printed line is one JSON object of the figures.

1. ``speedup``: Bradley-Terry + 1,000-replicate question-clustered bootstrap on 475,000 judgments
   (20 systems x 2,500 questions x all 190 pairs), whole process against whole process: the CLI
   (``python -m core rank that.csv --bootstrap 1000 --json``) against an arena-style baseline run
   as its own process (``python benchmarks/ranking.py --arena-baseline that.csv``, importing only
   numpy, pandas and scipy): read the CSV with pandas, count the unique (a, b, outcome) rows, draw
   multinomial bootstrap counts over them, and refit each replicate with scipy L-BFGS-B (as
   Chatbot Arena's ``compute_bootstrap_bt``, single process).
   ``speedup_in_process``: the same work without interpreter start-up and imports on either side
   (the project's ``leaderboard`` call timed in this process, the baseline's work timed inside
   its process). ``startup_s``: ``python -m core --help``; ``baseline_startup_s``: the
   baseline process's time outside its timed work.
2. ``refresh_ms`` / ``refresh_bootstrap_s``: the live leaderboard after one new verdict, with
   100,000 verdicts stored (``StoreLeaderboard.refresh`` + refit, without / with 1,000 replicates).
3. ``coverage``: share of 95% intervals covering the true centred strengths in a simulation.

``project_cpu_s`` / ``baseline_cpu_s`` / ``speedup_cpu`` are CPU seconds (user + system, all
threads) of the same two runs: less sensitive than wall time to other processes on a shared machine.

Run: ``.venv/bin/python benchmarks/ranking.py`` (a few minutes; ``--quick``: 250 questions, a
smoke test of the script, not a measurement). ``--db postgresql://user@host/db`` builds the live
leaderboard's 100,000-verdict database in that (empty) PostgreSQL database instead of a temporary
SQLite file (issue 25); ``--live-only`` with it measures only the live leaderboard.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.optimize import minimize

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def simulate(
    n_sys: int,
    n_q: int,
    rng: np.random.Generator,
    tie_rate: float = 0.1,
    beta: np.ndarray | None = None,
) -> tuple[pd.DataFrame, np.ndarray]:
    """Every question compares every pair once, in a random order; BT outcomes, random ties."""
    beta = rng.normal(0, 0.6, n_sys) if beta is None else beta
    i, j = np.triu_indices(n_sys, 1)
    i, j = np.tile(i, n_q), np.tile(j, n_q)
    q = np.repeat(np.arange(n_q), n_sys * (n_sys - 1) // 2)
    i_wins = rng.random(len(i)) < 1 / (1 + np.exp(beta[j] - beta[i]))
    tie = rng.random(len(i)) < tie_rate
    swap = rng.random(len(i)) < 0.5
    a, b = np.where(swap, j, i), np.where(swap, i, j)
    verdict = np.where(tie, "Equal", np.where(i_wins != swap, "A", "B"))
    df = pd.DataFrame(
        {
            "question_id": np.char.add("q", q.astype(str)),
            "system_a": np.char.add("sys", a.astype(str)),
            "system_b": np.char.add("sys", b.astype(str)),
            "verdict": verdict,
        }
    )
    return df, beta - beta.mean()


# -- arena-style baseline (after lmarena's compute_bootstrap_bt / fit_bt) -----------------------


def bt_loss_and_grad(ratings, matchups, outcomes, weights):
    logits = ratings[matchups[:, 0]] - ratings[matchups[:, 1]]
    probs = 1 / (1 + np.exp(-logits))
    eps = 1e-15
    loss = -(
        (np.log(probs + eps) * outcomes + np.log(1 - probs + eps) * (1 - outcomes)) * weights
    ).sum()
    g = -(outcomes - probs) * weights
    grad = np.zeros_like(ratings)
    np.add.at(grad, matchups[:, 0], g)
    np.add.at(grad, matchups[:, 1], -g)
    return loss, grad


def arena_baseline(csv: str, n_boot: int, seed: int) -> np.ndarray:
    df = pd.read_csv(csv, dtype=str, keep_default_na=False)
    df = df[df["verdict"] != "None"]
    models = pd.unique(df[["system_a", "system_b"]].to_numpy().ravel())
    idx = {m: k for k, m in enumerate(models)}
    outcome = df["verdict"].map({"A": 1.0, "B": 0.0, "Equal": 0.5}).to_numpy()
    rows = np.column_stack([df["system_a"].map(idx), df["system_b"].map(idx), outcome * 2])
    uniq, counts = np.unique(rows, axis=0, return_counts=True)
    matchups, outcomes = uniq[:, :2].astype(int), uniq[:, 2] / 2
    rng = np.random.default_rng(seed)
    boot = rng.multinomial(len(df), counts / counts.sum(), size=n_boot) / len(df)
    out = []
    for w in boot:
        res = minimize(
            bt_loss_and_grad,
            np.zeros(len(models)),
            args=(matchups, outcomes, w),
            jac=True,
            method="L-BFGS-B",
            options={"maxiter": 100, "gtol": 1e-6},
        )
        out.append(res.x - res.x.mean())
    return np.array(out)


def arena_process(csv: str, n_boot: int, seed: int) -> tuple[float, dict]:
    """Run the baseline as its own process; (whole-process wall seconds, its report)."""
    t = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, __file__, "--arena-baseline", csv, str(n_boot), str(seed)],
        capture_output=True,
        text=True,
    )
    whole_s = time.perf_counter() - t
    if proc.returncode:
        raise SystemExit(proc.stderr)
    return whole_s, json.loads(proc.stdout.strip().splitlines()[-1])


def arena_main(csv: str, n_boot: int, seed: int) -> None:
    """The baseline process: time the work itself (after imports), print one JSON line."""
    t, c = time.perf_counter(), time.process_time()
    base = arena_baseline(csv, n_boot, seed)
    work_s, cpu_s = time.perf_counter() - t, time.process_time() - c
    width = float(np.mean(np.quantile(base, 0.975, 0) - np.quantile(base, 0.025, 0)))
    print(json.dumps({"work_s": work_s, "work_cpu_s": cpu_s, "ci_width": width}))


def live_refresh(target: str, quick: bool) -> dict:
    """The live leaderboard at 100,000 stored verdicts (10,000 with ``quick``) in the database at
    ``target`` (a SQLite path, or the URL of an empty PostgreSQL database): the first load, then
    the refresh + refit after one new verdict (median of 5), without and with 1,000 replicates."""
    from core.stats.ranking_settings import RankingSettings  # deferred: see main
    from core.store.connection import utcnow  # deferred: see main
    from core.store.database import open_db  # deferred: see main
    from core.views.live_leaderboard import store_leaderboard  # deferred: see main

    db = open_db(target)
    if db["judgments"].count:
        raise SystemExit(f"error: {target}: the benchmark needs an empty database")
    small, _ = simulate(20, 527, np.random.default_rng(1))
    small = small.iloc[: 10_000 if quick else 100_000]
    now = utcnow()
    db["questions"].insert_all(
        [
            {"id": q, "question": "?", "origin": "imported", "created_at": now, "updated_at": now}
            for q in small["question_id"].unique()
        ]
    )
    t = time.perf_counter()
    db["judgments"].insert_all(
        {
            "kind": "pairwise",
            "question_id": r.question_id,
            "rater": "auto:x",
            "rater_kind": "auto",
            "system_a": r.system_a,
            "system_b": r.system_b,
            "verdict": r.verdict,
            "status": "ok",
            "created_at": now,
        }
        for r in small.itertuples()
    )
    print(f"stored {len(small):,} verdicts in {db.dialect.name}: {time.perf_counter() - t:.1f} s")
    if db.dialect.name == "postgresql":  # planner statistics after a bulk load (autovacuum's job)
        db.execute("analyze judgments")
    t = time.perf_counter()
    live = store_leaderboard(db)
    load_s = time.perf_counter() - t
    times, boot_times = [], []
    for k in range(5):
        db["judgments"].insert(
            {
                "kind": "pairwise",
                "question_id": "q0",
                "rater": "auto:x",
                "rater_kind": "auto",
                "system_a": "sys1",
                "system_b": "sys2",
                "verdict": "AB"[k % 2],
                "status": "ok",
                "created_at": now,
            }
        )
        t = time.perf_counter()
        live.refresh(db)
        live.leaderboard(RankingSettings(n_boot=0))
        times.append(time.perf_counter() - t)
        t = time.perf_counter()
        live.leaderboard(RankingSettings(n_boot=1000, seed=k))
        boot_times.append(time.perf_counter() - t)
    db.close()
    refresh_ms = 1000 * float(np.median(times))
    refresh_boot = float(np.median(boot_times)) + refresh_ms / 1000
    print(
        f"{db.dialect.name}: initial load of {len(small):,} verdicts: {load_s:.2f} s; refresh "
        f"after one verdict: {refresh_ms:.1f} ms, with 1,000-replicate bootstrap: "
        f"{refresh_boot:.2f} s"
    )
    return dict(
        refresh_ms=round(refresh_ms, 2),
        refresh_bootstrap_s=round(refresh_boot, 3),
        initial_load_s=round(load_s, 3),
        refresh_backend=db.dialect.name,
    )


def main(quick: bool = False, live_db: str | None = None, live_only: bool = False) -> None:
    # deferred: the baseline's own process (same file) must import only numpy, pandas and scipy
    from core.stats.leaderboard import leaderboard  # deferred: see above
    from core.stats.ranking_settings import RankingSettings  # deferred: see above

    rng = np.random.default_rng(0)
    figures: dict = {}
    if live_db is not None:  # --db: the live leaderboard's database there (e.g. PostgreSQL)
        figures.update(live_refresh(live_db, quick))
        if live_only:
            print(json.dumps(figures))
            return
    with tempfile.TemporaryDirectory() as tmp:
        df, _ = simulate(20, 250 if quick else 2500, rng)
        csv = os.path.join(tmp, "judgments.csv")
        df.to_csv(csv, index=False)
        print(f"judgments: {len(df)} rows")
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        cpu0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        proc = subprocess.run(
            [sys.executable, "-m", "core", "rank", csv, "--bootstrap", "1000", "--json"],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
        )
        project_s = time.perf_counter() - t
        cpu1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        project_cpu_s = (cpu1.ru_utime + cpu1.ru_stime) - (cpu0.ru_utime + cpu0.ru_stime)
        if proc.returncode:
            raise SystemExit(proc.stderr)
        ours = json.loads(proc.stdout)
        t = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "core", "--help"],
            cwd=ROOT,
            env=env,
            capture_output=True,
            check=True,
        )
        startup_s = time.perf_counter() - t
        from core.cli.stats_commands import _read_rank_csv

        t = time.perf_counter()
        leaderboard(_read_rank_csv(csv), RankingSettings(n_boot=1000, seed=0)).to_json()
        in_process_s = time.perf_counter() - t
        cpu0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        baseline_s, base = arena_process(csv, 1000, 0)
        cpu1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        baseline_cpu_s = (cpu1.ru_utime + cpu1.ru_stime) - (cpu0.ru_utime + cpu0.ru_stime)
        baseline_in_process_s = base["work_s"]
        print(f"project (CLI process, clustered bootstrap x1000): {project_s:.2f} s")
        print(f"arena-style baseline (its own process, L-BFGS x1000): {baseline_s:.2f} s")
        print(
            f"speedup, whole process vs whole process: {baseline_s / project_s:.1f}x "
            f"(start-up: `python -m core --help` {startup_s:.2f} s, baseline process outside "
            f"its work {baseline_s - baseline_in_process_s:.2f} s)"
        )
        print(
            f"speedup in process: {baseline_in_process_s / in_process_s:.1f}x "
            f"(project {in_process_s:.2f} s, baseline {baseline_in_process_s:.2f} s)"
        )
        (ours,) = ours["groups"]  # the simulated tournament is one connected group
        width = np.mean([s["ci_high"] - s["ci_low"] for s in ours["systems"]])
        print(
            f"CPU time (user+sys, whole processes): project {project_cpu_s:.2f} s, baseline "
            f"{baseline_cpu_s:.2f} s ({baseline_cpu_s / project_cpu_s:.1f}x); the wall-clock "
            f"figures depend on the machine's load (1-min load average {os.getloadavg()[0]:.2f})"
        )
        print(
            f"mean CI width: project {width:.4f}, baseline (row resampling) {base['ci_width']:.4f}"
        )
        figures.update(
            speedup=round(baseline_s / project_s, 2),
            speedup_in_process=round(baseline_in_process_s / in_process_s, 2),
            project_s=round(project_s, 3),
            baseline_s=round(baseline_s, 3),
            in_process_s=round(in_process_s, 3),
            baseline_in_process_s=round(baseline_in_process_s, 3),
            startup_s=round(startup_s, 3),
            baseline_startup_s=round(baseline_s - baseline_in_process_s, 3),
            n_judgments=len(df),
            project_cpu_s=round(project_cpu_s, 3),
            baseline_cpu_s=round(baseline_cpu_s, 3),
            speedup_cpu=round(baseline_cpu_s / project_cpu_s, 2),
            load_average=round(os.getloadavg()[0], 2),
        )

        if live_db is None:
            figures.update(live_refresh(os.path.join(tmp, "live.db"), quick))

    # -- coverage of the 95% intervals ---------------------------------------------------------
    truth = np.array([0.8, 0.3, 0.0, -0.4, -0.7])
    hits = []
    crng = np.random.default_rng(7)
    t = time.perf_counter()
    sims = 20 if quick else 300
    for _ in range(sims):
        d, centred = simulate(5, 200, crng, beta=truth)
        board = leaderboard(
            d, RankingSettings(ties="drop", n_boot=1000, seed=int(crng.integers(1 << 31)))
        )
        true = np.array([centred[int(s[3:])] for s in board.systems])
        hits.append((board.ci_low <= true) & (true <= board.ci_high))
    coverage = float(np.mean(hits))
    print(
        f"coverage of 95% intervals ({sims} simulations x 5 systems): {coverage:.3f} "
        f"({time.perf_counter() - t:.1f} s)"
    )
    figures.update(coverage=round(coverage, 4), coverage_level=0.95, coverage_simulations=sims)
    head = ("speedup", "speedup_in_process", "refresh_ms", "refresh_bootstrap_s", "coverage")
    last = {k: figures[k] for k in head} | {"startup_s": figures["startup_s"]}
    print(json.dumps(last | figures))


if __name__ == "__main__":
    if sys.argv[1:2] == ["--arena-baseline"]:
        arena_main(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    else:
        import argparse

        parser = argparse.ArgumentParser(description="Benchmark of the statistics core.")
        parser.add_argument("--quick", action="store_true", help="a smoke test, not a measurement")
        parser.add_argument(
            "--db",
            help="build the live leaderboard's 100,000-verdict database here instead of a "
            "temporary SQLite file: a SQLite path or the URL of an empty PostgreSQL database "
            "(postgresql://user@host/db)",
        )
        parser.add_argument(
            "--live-only", action="store_true", help="with --db: only the live leaderboard figures"
        )
        args = parser.parse_args()
        main(quick=args.quick, live_db=args.db, live_only=args.live_only)
