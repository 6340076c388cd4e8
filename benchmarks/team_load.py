"""How many annotators the app carries: N people labelling at once, on SQLite with one server
and on PostgreSQL with K servers on one database (issues 25 and 37).

1. The database: the key-free demo plus ``--verdicts`` (100,000) stored auto-rater verdicts
   (``benchmarks/app_pages.py``'s ``demo_db`` and ``add_verdicts``), built once on SQLite. Each
   configuration labels on its own fresh copy of it: SQLite a file copy; PostgreSQL the SQLite
   database moved over once with ``python -m core migrate-db`` (verified row for row) into
   ``--db postgresql://...`` (an empty database; the role needs the right to create databases)
   or into a throwaway local server (``--db postgresql``, the default:
   ``scripts/throwaway_pg.py``, with SQLite's durability: ``fsync`` on, ``synchronous_commit``
   off, as WAL with ``synchronous = NORMAL``), then each configuration a copy of that
   (``create database ... template``), dropped at the end. One account per simulated
   annotator (``core.store.accounts.create_account``: a personal one-time token).
2. A configuration ``BACKEND:K`` (``--configs``; ``postgres`` = ``postgresql``; default ``sqlite:1,postgresql:1,postgresql:2,
   postgresql:4``; ``--servers K`` alone means ``sqlite:1,postgresql:K``): K ``streamlit run
   app.py`` servers on loopback over its database (``app_pages.start_server``), each after its
   first visit and its start-up warm-up.
3. For each N in ``--n`` (1, 4, 8, 16, 32): N fresh annotators (one server: on it directly;
   K > 1: all through a local nginx in front of the K servers, ``scripts/local_proxy.py``, the
   proxy of ``make serve SERVERS=K``: a new websocket goes to the server with the fewest open
   connections and stays there; its CPU is reported as ``proxy``), sign in with their own link
   (``/Side_by_side?token=...``), then all at once make ``--actions`` keyboard verdicts (keys
   ``1``..``4``) on Side by side. ``--client protocol`` (default): one websocket each speaking
   Streamlit's protocol as the browser's frontend does (``team_bench/protocol.py``; an action is
   key -> its run finished, progress one further, next item shown), a few per cent of a core.
   ``--client browser``: a context each of one headless Chromium (the end-to-end check; the
   browsers take most of 2 cores); an action is key press -> progress one further, next item
   rendered, script idle. Closed loop (the next key as soon as the last is confirmed) or paced
   (``--think-seconds LO-HI`` before each key, not counted in the action's time). Per N: action
   p50 / p95, labels per second, errors (an action not confirmed within ``--action-timeout`` s,
   or an exception shown), lost labels (confirmed actions without an effective stored verdict
   of that person; must be 0) and doubled labels (stored rows beyond one per confirmed action,
   or a person's item labelled twice; must be 0), read back through ``core.store.judgments``;
   CPU (% of one core over the round, from the kernel's cumulative counters at its start and
   end, so a PostgreSQL backend that lived between two samples counts too) and memory (max
   PSS, sampled every 0.5 s) of the K servers, of the PostgreSQL server (when on this machine)
   and of the clients; the servers' and the database's CPU seconds a label
   (``server_cpu_s_per_action``, ``postgres_cpu_s_per_action``); the load average.
   A configuration's sweep stops after the first N whose p95 exceeds :data:`STOP_FACTOR` x 2 s
   (the larger N would only be slower; said in the output).

``ceiling_n`` per configuration: the smallest N whose action p95 exceeds 2 s, or that confirmed
no action at all (null: no round did). The figures depend on what else runs on the machine: the
load average is printed with them.

Last line: one JSON object. Everything is built in a temporary folder (``bench_team_*``),
deleted at the end, also on Ctrl-C or SIGTERM.

    .venv/bin/python benchmarks/team_load.py [--client protocol|browser]
        [--configs sqlite:1,postgresql:2] [--servers K] [--think-seconds 8-20]
        [--db postgresql | postgresql://USER@HOST/DB] [--n 1,4,8,16,32] [--actions 20]
        [--quick] [--nice-clients 19] [--demo-db PATH]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT))

from app_pages import p95, start_server, wait_warm_up  # noqa: E402  (benchmarks/ is on the path)
from team_bench import browser, protocol  # noqa: E402
from team_bench.databases import (  # noqa: E402
    LOCAL_PG_SETTINGS,
    Databases,
    accounts,
    build_postgres,
    build_sqlite,
    stored_check,
)
from team_bench.report import round_line, table  # noqa: E402
from team_bench.usage import postgres_pid  # noqa: E402

from core.store.database import open_db, postgres_url  # noqa: E402
from core.store.judgments import max_judgment_id  # noqa: E402
from scripts.local_proxy import ProxyUnavailable, local_proxy  # noqa: E402
from scripts.throwaway_pg import PgUnavailable, create_database, throwaway_server  # noqa: E402

CEILING_S = 2.0
#: A configuration's N sweep stops once a round's p95 passes this many times CEILING_S.
STOP_FACTOR = 3.0
BACKENDS = ("sqlite", "postgresql")
DEFAULT_CONFIGS = "sqlite:1,postgresql:1,postgresql:2,postgresql:4"


@dataclass(frozen=True)
class Config:
    """One configuration: the database kind and how many app servers share it."""

    backend: str
    servers: int

    @property
    def label(self) -> str:
        return f"{self.backend}:{self.servers}"


def parse_configs(text: str) -> list[Config]:
    """``sqlite:1,postgresql:2`` -> configurations; ValueError with the reason."""
    out: list[Config] = []
    for part in filter(None, (p.strip() for p in text.split(","))):
        backend, _, servers = part.partition(":")
        backend = "postgresql" if backend == "postgres" else backend
        if backend not in BACKENDS:
            raise ValueError(f"--configs: {part!r}: the database is one of {', '.join(BACKENDS)}")
        if not re.fullmatch(r"[1-9][0-9]?", servers or "1"):
            raise ValueError(f"--configs: {part!r}: servers is a whole number from 1 to 99")
        config = Config(backend, int(servers or "1"))
        if config in out:
            raise ValueError(f"--configs: {config.label} is given twice")
        out.append(config)
    if not out:
        raise ValueError("--configs: give at least one, e.g. sqlite:1,postgresql:2")
    return out


def parse_n(text: str) -> list[int]:
    """``1,4,8`` -> the rounds' numbers of annotators (ascending, each >= 1); ValueError."""
    try:
        values = [int(v) for v in text.split(",")]
    except ValueError:
        values = []
    if not values or min(values) < 1 or len(set(values)) < len(values):
        raise ValueError("--n must be different whole numbers >= 1 separated by commas")
    return sorted(values)


def parse_think(text: str) -> tuple[float, float]:
    """``8-20`` or ``10`` -> a think time range in seconds (0: closed loop); ValueError."""
    low, _, high = text.partition("-")
    try:
        lo, hi = float(low), float(high or low)
    except ValueError:
        lo = hi = -1.0
    if not (0 <= lo <= hi <= 3600):
        raise ValueError("--think-seconds is SECONDS or LOW-HIGH, from 0 to 3600, e.g. 8-20")
    return lo, hi


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line, checked: ``configs`` (list of :class:`Config`) and ``rounds`` (the N)
    added; a bad value exits 2 with one ``error:`` line before anything is built."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--client",
        choices=("protocol", "browser"),
        default="protocol",
        help="protocol: Streamlit's websocket protocol (default); browser: headless Chromium",
    )
    parser.add_argument(
        "--think-seconds",
        default="0",
        help="a person's think time before each key, SECONDS or LOW-HIGH (uniform), e.g. "
        "8-20; 0 (default): closed loop",
    )
    parser.add_argument("--configs", help=f"BACKEND:SERVERS,... (default {DEFAULT_CONFIGS})")
    parser.add_argument(
        "--servers", type=int, help="K: the same as --configs sqlite:1,postgresql:K"
    )
    parser.add_argument(
        "--db",
        default="postgresql",
        help="the PostgreSQL database to build in (postgresql://..., empty; its role may create "
        "databases) or 'postgresql': a throwaway local server (default)",
    )
    parser.add_argument("--n", default="1,4,8,16,32", help="annotators at once, one round each")
    parser.add_argument("--actions", type=int, default=20, help="verdicts per annotator per round")
    parser.add_argument(
        "--action-timeout", type=float, default=60.0, help="seconds before an action is an error"
    )
    parser.add_argument("--demo-db", help="an existing SQLite demo database (copied, not changed)")
    parser.add_argument("--verdicts", type=int, default=100_000)
    parser.add_argument(
        "--nice-clients",
        type=int,
        default=0,
        help="--client browser: run the browsers at this niceness (1-19): the servers are "
        "scheduled first, so the times lean towards the servers' share",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="a tiny run: demo --quick + 5,000 verdicts, --n 1,2 --actions 3, "
        "--configs sqlite:1,postgresql:2 unless given",
    )
    args = parser.parse_args(argv)
    try:
        if args.servers is not None and args.configs:
            raise ValueError("give --servers or --configs, not both")
        if args.servers is not None and not 1 <= args.servers <= 99:
            raise ValueError("--servers is a whole number from 1 to 99")
        if args.quick:
            args.n, args.actions, args.verdicts = "1,2", 3, min(args.verdicts, 5_000)
        configs = args.configs
        if args.servers is not None:
            configs = f"sqlite:1,postgresql:{args.servers}"
        args.configs = parse_configs(
            configs or ("sqlite:1,postgresql:2" if args.quick else DEFAULT_CONFIGS)
        )
        args.rounds = parse_n(args.n)
        if args.actions < 1:
            raise ValueError("--actions must be >= 1")
        args.think = parse_think(args.think_seconds)
        if args.nice_clients and args.client != "browser":
            raise ValueError("--nice-clients applies to --client browser only")
        if args.db != "postgresql" and postgres_url(args.db) is None:
            raise ValueError(
                "--db is a postgresql:// URL or 'postgresql' (a throwaway local server)"
            )
    except ValueError as exc:
        parser.exit(2, f"error: {exc}\n")
    return args


def one_round(
    location: Path | str,
    bases: list[str],
    roots: dict[str, list[int]],
    people: list[tuple[str, str]],
    args: argparse.Namespace,
) -> dict:
    db = open_db(location)
    since = max_judgment_id(db)
    db.close()
    load_before = os.getloadavg()
    client = protocol if args.client == "protocol" else browser
    results, usage = asyncio.run(client.run_round(bases, people, args, roots))
    times = [t for r in results for t in r["times"]]
    errors = [e for r in results for e in r["errors"]]
    lost, doubled = stored_check(location, results, since)
    servers = usage.figures("servers")
    pg = usage.figures("postgres") if roots.get("postgres") else None
    proxy = usage.figures("proxy") if roots.get("proxy") else None
    return {
        "client": args.client,
        "think_s": list(args.think),
        "annotators": len(people),
        "actions": len(times),
        "action_p50_s": round(statistics.median(times), 3) if times else None,
        "action_p95_s": round(p95(times), 3) if times else None,
        "action_max_s": round(max(times), 3) if times else None,
        "errors": len(errors),
        "error_examples": errors[:3],
        "lost_labels": lost,
        "doubled_labels": doubled,
        "servers": servers,
        "postgres": pg,
        "clients": usage.figures("clients"),
        "proxy": proxy,
        # the servers' CPU per label: cores / this = the labels per second they could serve
        "server_cpu_s_per_action": round(servers["cpu_s"] / len(times), 3) if times else None,
        "postgres_cpu_s_per_action": (round(pg["cpu_s"] / len(times), 3) if pg and times else None),
        "labels_per_s": round(len(times) / usage.wall, 2) if usage.wall else None,
        "seconds": round(usage.wall, 1),
        "load_avg_before": [round(v, 2) for v in load_before],
        "load_avg_after": [round(v, 2) for v in os.getloadavg()],
    }


def over(round_: dict, limit_s: float) -> bool:
    """Whether a round's p95 exceeds ``limit_s`` (a round that confirmed no action does)."""
    return round_["action_p95_s"] is None or round_["action_p95_s"] > limit_s


def ceiling(rounds: dict[int, dict]) -> int | None:
    """The smallest N whose action p95 exceeds :data:`CEILING_S` (None: no round did)."""
    found = [n for n, r in rounds.items() if over(r, CEILING_S)]
    return min(found) if found else None


def run_config(config: Config, location: Path | str, work: Path, args: argparse.Namespace) -> dict:
    """Every round of one configuration on its own database: K servers started, warmed up,
    (K > 1) a local nginx in front of them, and all stopped at the end."""
    people = accounts(location, args.rounds, args.actions)
    servers: list[subprocess.Popen] = []
    rounds: dict[int, dict] = {}
    stopped_after = None
    stack = contextlib.ExitStack()
    try:
        bases, logs = [], []
        for i in range(config.servers):
            logs.append(work / f"streamlit-{config.backend}-{config.servers}-{i}.log")
            proc, base = start_server(location, logs[-1])
            servers.append(proc)
            bases.append(base)
        if args.client == "browser":
            asyncio.run(browser.first_visit(bases, args.chromium))
        else:
            asyncio.run(protocol.first_visit(bases))
        warm = [wait_warm_up(log) for log in logs]
        print(f"  {config.servers} server(s) warm-up {max(warm):.1f} s", flush=True)
        roots = {"servers": [p.pid for p in servers]}
        if config.servers > 1:  # everyone through the proxy, as a team would reach them
            ports = [int(base.rsplit(":", 1)[1]) for base in bases]
            try:
                proxy = stack.enter_context(local_proxy(ports))
            except ProxyUnavailable as exc:
                raise SystemExit(f"error: {exc}") from None
            roots["proxy"] = [proxy.process.pid]
            bases = [proxy.url]
            print(f"  through nginx at {proxy.url} (sticky sessions)", flush=True)
        pg_pid = postgres_pid(str(location)) if config.backend == "postgresql" else None
        if pg_pid:
            roots["postgres"] = [pg_pid]
        for n in args.rounds:
            r = rounds[n] = one_round(location, bases, roots, people[n], args)
            print("  " + round_line(r), flush=True)
            if over(r, STOP_FACTOR * CEILING_S) and n != args.rounds[-1]:
                stopped_after = n
                print(
                    f"  p95 over {STOP_FACTOR:g} x {CEILING_S:g} s: the larger N are not run",
                    flush=True,
                )
                break
    finally:
        stack.close()
        for proc in servers:
            proc.terminate()
        for proc in servers:
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()
    return {
        "backend": config.backend,
        "servers": config.servers,
        "rounds": {str(n): r for n, r in rounds.items()},
        "ceiling_n": ceiling(rounds),
        "stopped_after_n": stopped_after,
    }


def main() -> None:
    """Run the benchmark in a temporary folder, deleted at the end (also on Ctrl-C/SIGTERM)."""
    args = parse_args()
    for signum in (signal.SIGINT, signal.SIGTERM):  # SIGINT too: a background job ignores it
        signal.signal(signum, signal.default_int_handler)
    work = Path(tempfile.mkdtemp(prefix="bench_team_"))
    try:
        measure(args, work)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        raise SystemExit(130) from None
    finally:
        shutil.rmtree(work, ignore_errors=True)


def measure(args: argparse.Namespace, work: Path) -> None:
    """Every configuration (see the module docstring); the figures printed."""
    if args.client == "browser":
        args.chromium = browser.chromium(work, args.nice_clients)
    t = time.perf_counter()
    base = build_sqlite(work, args)
    print(f"demo database + verdicts (SQLite) in {time.perf_counter() - t:.1f} s", flush=True)
    load_start = os.getloadavg()
    results: dict[str, dict] = {}
    with contextlib.ExitStack() as stack:
        pg_target, pg_where = None, None
        if any(c.backend == "postgresql" for c in args.configs):
            t = time.perf_counter()
            if args.db == "postgresql":
                try:
                    server = stack.enter_context(throwaway_server(LOCAL_PG_SETTINGS))
                except PgUnavailable as exc:
                    raise SystemExit(f"error: {exc}") from None
                pg_target, pg_where = create_database(server, "bench_team"), "throwaway local"
            else:
                pg_target, pg_where = args.db, "given"
            build_postgres(base, pg_target)
            print(
                f"moved to PostgreSQL ({pg_where}) in {time.perf_counter() - t:.1f} s", flush=True
            )
        databases = stack.enter_context(Databases(work, base, pg_target))
        for config in args.configs:
            print(f"{config.label}:", flush=True)
            results[config.label] = run_config(
                config,
                databases.fresh(config.backend, f"{config.backend}_{config.servers}"),
                work,
                args,
            )
    for label, res in results.items():
        rounds = {int(n): r for n, r in res["rounds"].items()}
        print(table(label, rounds))
        stop = f"; stopped after N={res['stopped_after_n']}" if res["stopped_after_n"] else ""
        found = res["ceiling_n"]
        print(
            f"{label}: ceiling N = {found} (first N with p95 > {CEILING_S:g} s)"
            if found
            else f"{label}: no N up to {max(rounds)} had p95 > {CEILING_S:g} s",
            stop,
            sep="",
        )
    print(
        json.dumps(
            {
                "configs": results,
                "ceiling_n": {label: res["ceiling_n"] for label, res in results.items()},
                "ceiling_p95_s": CEILING_S,
                "stop_p95_s": STOP_FACTOR * CEILING_S,
                "actions_per_annotator": args.actions,
                "client": args.client,
                "think_s": list(args.think),
                "cores": os.cpu_count(),
                "nice_clients": args.nice_clients,
                "judgments": args.verdicts,
                "postgres": pg_where,
                "load_avg_start": [round(v, 2) for v in load_start],
            }
        )
    )


if __name__ == "__main__":
    main()
