"""How many annotators one app server carries: N people labelling at once on one server.

1. The database: the key-free demo plus ``--verdicts`` (100,000) stored auto-rater verdicts
   (``benchmarks/app_pages.py``'s ``demo_db`` and ``add_verdicts``), and one account per
   simulated annotator (``core.store.accounts.create_account``: a personal one-time token).
2. One ``streamlit run app.py`` on loopback (``app_pages.start_server``), after its first visit
   and its start-up warm-up.
3. For each N in ``--n`` (1, 4, 8, 16): N fresh annotators, each a fresh context of one headless
   Chromium (Playwright, ``/usr/bin/chromium``), sign in with their own link
   (``/Side_by_side?token=...``), then all at once make ``--actions`` keyboard verdicts (keys
   ``1``..``4``) on Side by side. An action is key press -> progress shows one more done, the
   next item rendered and the script idle (as in ``app_pages.keyboard_actions``). Per N:
   action p50 / p95, errors (an action not confirmed within ``--action-timeout`` s, or an
   exception shown on the page), lost labels (confirmed actions without an effective stored
   verdict of that person; must be 0) and doubled labels (stored rows beyond one per confirmed
   action, or a person's item labelled twice; must be 0), read back through
   ``core.store.judgments``; the server's CPU (% of one core, mean over the round) and memory
   (max PSS: resident memory, shared pages divided among their sharers), and the same for the
   clients: Chromium, its Playwright driver and this script (they share the machine's two
   cores with the server), sampled from ``/proc`` every 0.5 s; the server's CPU seconds a label
   (``server_cpu_s_per_action``); the load average before and after.

``ceiling_n``: the smallest N whose action p95 exceeds 2 s (null: none did). The figures depend
on what else runs on the machine: the load average is printed with them.

Last line: one JSON object.

    .venv/bin/python benchmarks/team_load.py [--n 1,4,8,16] [--actions 20] [--quick]
        [--nice-clients 19] [--demo-db PATH]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT))

from app_pages import (  # noqa: E402  (benchmarks/ is on the path above)
    _IDLE_JS,
    _PROGRESS_JS,
    CHROMIUM,
    add_verdicts,
    demo_db,
    p95,
    start_server,
    wait_warm_up,
)

from core.store.accounts import create_account  # noqa: E402
from core.store.database import open_db  # noqa: E402
from core.store.judgments import effective_judgments, judgments_after, max_judgment_id  # noqa: E402

CEILING_S = 2.0
SAMPLE_S = 0.5
_TICK = os.sysconf("SC_CLK_TCK")
_EXCEPTION = '[data-testid="stException"]'


def _stat(pid: int) -> tuple[int, float] | None:
    """(parent pid, CPU seconds user + system) of a live process, from ``/proc/PID/stat``."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2 :].split()
    return int(fields[1]), (int(fields[11]) + int(fields[12])) / _TICK


def _pss_mb(pid: int) -> float:
    """The process's proportional set size (MB): its resident memory with each shared page
    divided among the processes sharing it, so a tree's sum counts shared pages once."""
    try:
        found = re.search(r"Pss:\s+(\d+) kB", Path(f"/proc/{pid}/smaps_rollup").read_text())
    except OSError:
        return 0.0
    return int(found.group(1)) / 1024 if found else 0.0


def process_trees(roots: dict[str, int]) -> dict[str, dict[int, float]]:
    """Each named root's process tree (itself and every descendant): ``{pid: CPU seconds}``.
    A process under several roots counts for the nearest one."""
    stats = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit() and (found := _stat(int(entry))):
            stats[int(entry)] = found
    owner = {pid: name for name, pid in roots.items()}
    out: dict[str, dict[int, float]] = {name: {} for name in roots}
    for pid in stats:
        chain, at = [], pid
        while at in stats and at not in owner:
            chain.append(at)
            at = stats[at][0]
        if at in owner:
            for p in chain:
                owner[p] = owner[at]
    for pid, (_, cpu) in stats.items():
        if pid in owner:
            out[owner[pid]][pid] = cpu
    return out


class Usage:
    """Samples the CPU and resident memory of process trees every :data:`SAMPLE_S` seconds
    in a thread: ``cpu_pct`` = CPU seconds used in the window / wall seconds x 100 (100 = one
    core busy; 200 = both of this machine's), ``pss_mb`` = the largest summed PSS sampled."""

    def __init__(self, roots: dict[str, int]) -> None:
        self.roots = roots
        self.first: dict[str, dict[int, float]] = {n: {} for n in roots}
        self.last: dict[str, dict[int, float]] = {n: {} for n in roots}
        self.pss = dict.fromkeys(roots, 0.0)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _sample(self, start: bool = False) -> None:
        for name, tree in process_trees(self.roots).items():
            for pid, cpu in tree.items():
                # a process started inside the window counts from zero
                self.first[name].setdefault(pid, cpu if start else 0.0)
                self.last[name][pid] = cpu
            self.pss[name] = max(self.pss[name], sum(_pss_mb(pid) for pid in tree))

    def _run(self) -> None:
        while not self._stop.wait(SAMPLE_S):
            self._sample()

    def __enter__(self) -> Usage:
        self._sample(start=True)
        self.t0 = time.perf_counter()
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self._sample()
        self.wall = time.perf_counter() - self.t0

    def figures(self, name: str) -> dict[str, float]:
        used = sum(cpu - self.first[name].get(pid, 0.0) for pid, cpu in self.last[name].items())
        return {
            "cpu_s": round(used, 2),
            "cpu_pct": round(100 * used / self.wall, 1),
            "pss_mb": round(self.pss[name], 1),
        }


def accounts(path: Path, rounds: list[int]) -> dict[int, list[tuple[str, str]]]:
    """One account per annotator of each round (fresh people, fresh queues): ``(name, token)``."""
    db = open_db(path)
    out = {n: [(f"load{n}-{i}", "") for i in range(n)] for n in rounds}
    for n in rounds:
        out[n] = [(name, create_account(db, name)) for name, _ in out[n]]
    db.conn.close()
    return out


async def _idle(page, timeout_s: float) -> None:
    await page.wait_for_function(_IDLE_JS, timeout=timeout_s * 1000)


async def sign_in(browser, base: str, token: str, timeout_s: float):
    """A fresh context signed in with its one-time link, on Side by side with an item shown."""
    context = await browser.new_context(viewport={"width": 1400, "height": 900})
    page = await context.new_page()
    await page.goto(f"{base}/Side_by_side?token={token}")
    await page.get_by_role("heading", name="Answer A").wait_for(timeout=timeout_s * 1000)
    await _idle(page, timeout_s)
    return context, page


async def _done(page) -> int:
    found = re.search(r"(\d+) of", await page.evaluate(_PROGRESS_JS) or "")
    return int(found.group(1)) if found else -1


async def annotate(page, name: str, actions: int, timeout_s: float) -> dict:
    """``actions`` keyboard verdicts: the seconds of each confirmed one, key presses sent and
    errors (the first error ends this annotator's run: its page state is unknown)."""
    times: list[float] = []
    pressed, errors = 0, []
    rng = random.Random(name)
    for _ in range(actions):
        try:
            await page.locator("h1").first.click()  # focus on the page, not an input
            before = await _done(page)
            t = time.perf_counter()
            pressed += 1
            await page.keyboard.press(rng.choice("1234"))
            await page.wait_for_function(
                f"() => {{ const m = ({_PROGRESS_JS})().match(/(\\d+) of/);"
                f" return m && Number(m[1]) > {before}; }}",
                timeout=timeout_s * 1000,
            )
            await page.get_by_role("heading", name="Answer A").wait_for(timeout=timeout_s * 1000)
            await _idle(page, timeout_s)
            took = time.perf_counter() - t
            if await page.locator(_EXCEPTION).count():
                errors.append(
                    "exception shown: " + (await page.locator(_EXCEPTION).first.inner_text())[:200]
                )
                break
            times.append(took)
        except Exception as exc:  # a timeout or a closed page: counted, and this run ends
            errors.append(f"{type(exc).__name__}: {str(exc).splitlines()[0][:200]}")
            break
    return {"name": name, "times": times, "pressed": pressed, "errors": errors}


async def run_round(
    base: str, people: list[tuple[str, str]], actions: int, timeout_s: float, server_pid: int
) -> tuple[list[dict], Usage]:
    """Sign everyone in, then all label at once (sampled while they label)."""
    from playwright.async_api import async_playwright  # reason: optional browser dependency

    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, headless=True)
        pages = []
        for _, token in people:
            pages.append(await sign_in(browser, base, token, timeout_s))
        with Usage({"server": server_pid, "clients": os.getpid()}) as usage:
            results = await asyncio.gather(
                *(
                    annotate(page, name, actions, timeout_s)
                    for (name, _), (_, page) in zip(people, pages)
                )
            )
        await browser.close()
    return list(results), usage


def stored_check(path: Path, results: list[dict], since_id: int) -> tuple[int, int]:
    """(lost, doubled) labels of a round, read back through the store: lost = confirmed actions
    without an effective verdict of that person; doubled = that person's rows of the round beyond
    their effective verdicts (an item labelled twice) plus effective verdicts beyond key presses."""
    db = open_db(path)
    rows = judgments_after(db, since_id, ["rater"])
    lost = doubled = 0
    for r in results:
        rater = f"human:{r['name']}"
        effective = len(effective_judgments(db, kind="pairwise", rater=rater, with_verdict=True))
        raw = sum(1 for row in rows if row[0] == rater)
        lost += max(0, len(r["times"]) - effective)
        doubled += (raw - effective) + max(0, effective - r["pressed"])
    db.conn.close()
    return lost, doubled


def one_round(path: Path, base: str, server_pid: int, people: list[tuple[str, str]], args) -> dict:
    db = open_db(path)
    since = max_judgment_id(db)
    db.conn.close()
    load_before = os.getloadavg()
    results, usage = asyncio.run(
        run_round(base, people, args.actions, args.action_timeout, server_pid)
    )
    times = [t for r in results for t in r["times"]]
    errors = [e for r in results for e in r["errors"]]
    lost, doubled = stored_check(path, results, since)
    return {
        "annotators": len(people),
        "actions": len(times),
        "action_p50_s": round(statistics.median(times), 3) if times else None,
        "action_p95_s": round(p95(times), 3) if times else None,
        "action_max_s": round(max(times), 3) if times else None,
        "errors": len(errors),
        "error_examples": errors[:3],
        "lost_labels": lost,
        "doubled_labels": doubled,
        "server": usage.figures("server"),
        "clients": usage.figures("clients"),
        # the server's CPU per label: 2 cores / this = the labels per second it could serve
        "server_cpu_s_per_action": round(usage.figures("server")["cpu_s"] / len(times), 3)
        if times
        else None,
        "seconds": round(usage.wall, 1),
        "load_avg_before": [round(v, 2) for v in load_before],
        "load_avg_after": [round(v, 2) for v in os.getloadavg()],
    }


def ceiling(rounds: dict[int, dict]) -> int | None:
    """The smallest N whose action p95 exceeds :data:`CEILING_S` (None: no round did)."""
    over = [
        n
        for n, r in rounds.items()
        if r["action_p95_s"] is not None and r["action_p95_s"] > CEILING_S
    ]
    return min(over) if over else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", default="1,4,8,16", help="annotators at once, one round each")
    parser.add_argument("--actions", type=int, default=20, help="verdicts per annotator per round")
    parser.add_argument(
        "--action-timeout", type=float, default=60.0, help="seconds before an action is an error"
    )
    parser.add_argument("--demo-db", help="an existing demo database (copied, not changed)")
    parser.add_argument("--verdicts", type=int, default=100_000)
    parser.add_argument(
        "--nice-clients",
        type=int,
        default=0,
        help="run this script and the browsers at this niceness (1-19): the server, started "
        "before, is scheduled first, so the times lean towards the server's share",
    )
    parser.add_argument("--quick", action="store_true", help="a tiny run: --n 1,2 --actions 3")
    args = parser.parse_args()
    if args.quick:
        args.n, args.actions = "1,2", 3
    try:
        rounds_n = [int(v) for v in args.n.split(",")]
    except ValueError:
        rounds_n = []
    if not rounds_n or min(rounds_n) < 1 or args.actions < 1:
        print(
            "error: --n must be whole numbers >= 1 separated by commas, --actions >= 1",
            file=sys.stderr,
        )
        raise SystemExit(2)
    work = Path(tempfile.mkdtemp(prefix="bench_team_"))
    t = time.perf_counter()
    path = demo_db(work, args.demo_db)
    added = add_verdicts(path, args.verdicts)
    people = accounts(path, rounds_n)
    print(
        f"demo database + {added:,} verdicts + {sum(rounds_n)} accounts in {time.perf_counter() - t:.1f} s",
        flush=True,
    )
    log = work / "streamlit.log"
    proc, base = start_server(path, log)
    rounds: dict[int, dict] = {}
    if args.nice_clients > 0:
        os.nice(min(args.nice_clients, 19))  # this process and every browser started from now
    try:
        asyncio.run(_first_visit(base))
        print(f"server warm-up {wait_warm_up(log):.1f} s", flush=True)
        for n in rounds_n:
            r = rounds[n] = one_round(path, base, proc.pid, people[n], args)
            print(
                f"N={n:2d}: p50 {r['action_p50_s']} s, p95 {r['action_p95_s']} s, "
                f"{r['actions']} actions, {r['errors']} errors, {r['lost_labels']} lost, "
                f"{r['doubled_labels']} doubled; server CPU {r['server']['cpu_pct']} % "
                f"({r['server_cpu_s_per_action']} s a label), "
                f"PSS {r['server']['pss_mb']} MB; clients CPU {r['clients']['cpu_pct']} %, "
                f"PSS {r['clients']['pss_mb']} MB; load {r['load_avg_before'][0]} -> {r['load_avg_after'][0]}",
                flush=True,
            )
    finally:
        proc.terminate()
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
    result = {
        "rounds": {str(n): r for n, r in rounds.items()},
        "ceiling_n": ceiling(rounds),
        "ceiling_p95_s": CEILING_S,
        "actions_per_annotator": args.actions,
        "cores": os.cpu_count(),
        "nice_clients": args.nice_clients,
        "judgments": args.verdicts,
    }
    print(json.dumps(result))


async def _first_visit(base: str) -> None:
    """The server's first script run imports everything: one visit before any round."""
    from playwright.async_api import async_playwright  # reason: optional browser dependency

    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, headless=True)
        page = await browser.new_page()
        await page.goto(base)  # signed out: the sign-in form only, but the imports are made
        await _idle(page, 180)
        await browser.close()


if __name__ == "__main__":
    main()
