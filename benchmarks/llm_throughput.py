"""Model-layer throughput: 2,000 calls to a loopback server that answers after 200 ms.

Three measurements through the real openai SDK and core.llm.complete_many:
1. sequential baseline: ``complete`` one call after another (measured on ``BASELINE_N`` calls
   and extrapolated linearly to ``N`` calls: each call is an independent 200 ms wait);
2. the same ``N`` calls with ``complete_many`` (per-provider limit of ``IN_FLIGHT`` requests);
3. the same run again: every reply from the SQLite cache (0 requests expected).
``client_cpu_ms_per_call`` is the CPU time of this process (all threads) during step 2 per call:
less sensitive than the wall-clock speedup to other processes on a shared machine.
The server runs in its own process so it does not share the client's interpreter lock.
Last printed line: one JSON object with the figures.
"""

from __future__ import annotations

import json
import multiprocessing as mp
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

N, BASELINE_N, DELAY, IN_FLIGHT = 2000, 100, 0.2, 128


def main() -> dict:
    from llm_servers import serve_in_process

    from core.llm.catalog import configure
    from core.llm.engine import complete, complete_many
    from core.llm.types import LLMRequest
    from core.store.database import open_db

    os.environ.setdefault("OPENAI_API_KEY", "sk-benchmark-not-a-real-key-0000")
    ctx = mp.get_context("spawn")
    urls, stop = ctx.Queue(), ctx.Event()
    proc = ctx.Process(target=serve_in_process, args=(DELAY, urls, stop), daemon=True)
    proc.start()
    url = urls.get(timeout=30)
    configure("openai", base_url=url + "/v1", max_in_flight=IN_FLIGHT, rpm=0, tpm=0, timeout_s=30)
    context = "A long shared context block. " * 50
    reqs = [
        LLMRequest(
            model="openai:gpt-4o-mini",
            system="Answer briefly.",
            context=context,
            prompt=f"question {i}",
            max_tokens=16,
        )
        for i in range(N)
    ]
    with tempfile.TemporaryDirectory() as tmp:
        db = open_db(Path(tmp) / "bench.db")
        complete(None, reqs[0].with_model("openai:gpt-4o-mini"), use_cache=False)  # warm-up
        t0 = time.perf_counter()
        for r in reqs[:BASELINE_N]:
            complete(None, r, use_cache=False)
        seq_per_call = (time.perf_counter() - t0) / BASELINE_N
        baseline_s = seq_per_call * N

        t0, c0 = time.perf_counter(), time.process_time()
        out = complete_many(db, reqs)
        project_s, project_cpu_s = time.perf_counter() - t0, time.process_time() - c0
        errors = sum(1 for r in out if r.error)

        stop.set()
        served_first = urls.get(timeout=30)
        stop.clear()
        # the cached run must send nothing: a fresh server process counts what it receives
        proc.join(timeout=10)
        urls2, stop2 = ctx.Queue(), ctx.Event()
        proc2 = ctx.Process(target=serve_in_process, args=(DELAY, urls2, stop2), daemon=True)
        proc2.start()
        configure("openai", base_url=urls2.get(timeout=30) + "/v1")
        t0 = time.perf_counter()
        again = complete_many(db, reqs)
        cached_s = time.perf_counter() - t0
        stop2.set()
        cached_requests = urls2.get(timeout=30)
        proc2.join(timeout=10)
        db.conn.close()
    assert all(r.cache_hit for r in again) and [r.text for r in again] == [r.text for r in out]
    figures = {
        "speedup": round(baseline_s / project_s, 1),
        "project_s": round(project_s, 2),
        "client_cpu_ms_per_call": round(1000 * project_cpu_s / N, 2),
        "load_average": round(os.getloadavg()[0], 2),
        "baseline_s": round(baseline_s, 1),
        "baseline_measured_calls": BASELINE_N,
        "baseline_note": f"sequential time measured on {BASELINE_N} calls, extrapolated x{N // BASELINE_N}",
        "calls": N,
        "server_delay_s": DELAY,
        "max_in_flight": IN_FLIGHT,
        "errors": errors,
        "requests_served_first_run": served_first,
        "cached_requests": cached_requests,
        "cached_s": round(cached_s, 3),
    }
    print(
        f"sequential: {seq_per_call * 1000:.0f} ms/call -> {baseline_s:.1f} s for {N} calls "
        f"(measured on {BASELINE_N})"
    )
    print(
        f"complete_many: {project_s:.2f} s for {N} calls, {errors} errors, "
        f"speedup {figures['speedup']}x"
    )
    print(f"from cache: {cached_s:.3f} s, {cached_requests} requests")
    return figures


if __name__ == "__main__":
    print(json.dumps(main()))
