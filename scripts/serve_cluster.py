"""N app servers on one PostgreSQL database behind a local nginx with sticky websocket sessions
(issue 37; ``make serve SERVERS=N``; docs/deploy.md, "Several servers on one machine").

Server i is ``python -m core --db DB serve --port PORT+i`` on 127.0.0.1 (i = 1..N), all with one
cookie secret (``STREAMLIT_SERVER_COOKIE_SECRET`` from the environment, else a new random one
for this cluster: a session's XSRF cookie then holds on whichever server it lands); the proxy
(``scripts/local_proxy.py``) listens on ``--address:PORT``. Ctrl-C or SIGTERM stops them all and
deletes the proxy's folder. A proxy address off loopback gets ``serve``'s rules for it (accounts
exist, the team's host names given), checked before anything starts; the servers' logs are in a temporary folder printed at the start
(deleted at the end). N > 1 on SQLite is refused: one database file takes one writing server.

    .venv/bin/python scripts/serve_cluster.py --db postgresql://USER@HOST/DB --servers 2 \\
        [--port 8501] [--address 127.0.0.1] [--base-url URL] [--allowed-host NAME ...]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from core.cli.serve_commands import is_loopback  # noqa: E402
from core.store.database import postgres_url  # noqa: E402
from scripts.local_proxy import Proxy, ProxyUnavailable, die_with_parent, local_proxy  # noqa: E402
from scripts.served_app import stop, wait_healthy  # noqa: E402


def refusal(db: str, servers: int) -> str | None:
    """Why ``servers`` app servers may not share ``db`` (one line), or ``None``."""
    if not 1 <= servers <= 32:
        return "--servers is a whole number from 1 to 32"
    if servers > 1 and postgres_url(db) is None:
        return (
            f"{servers} servers need a PostgreSQL database (--db postgresql://...): a SQLite "
            "file takes one writing server (make serve without SERVERS)"
        )
    return None


def server_argv(db: str, port: int, extra: list[str]) -> list[str]:
    """The command of one app server on 127.0.0.1:``port`` (``extra``: serve's options)."""
    return [sys.executable, "-m", "core", "--db", db, "serve", "--address", "127.0.0.1"] + [
        "--port",
        str(port),
        *extra,
    ]


@contextlib.contextmanager
def cluster(
    db: str, servers: int, port: int, address: str = "127.0.0.1", extra: list[str] | None = None
) -> Iterator[tuple[Proxy, list[subprocess.Popen[bytes]], Path]]:
    """The servers and the proxy for the ``with`` block: ``(proxy, server processes, log
    folder)``; everything stopped and the folders deleted after it. ValueError: refused."""
    reason = refusal(db, servers)
    if reason:
        raise ValueError(reason)
    env = {**os.environ, "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false"}
    env.setdefault("STREAMLIT_SERVER_COOKIE_SECRET", secrets.token_urlsafe(32))
    logs = Path(tempfile.mkdtemp(prefix="workbench-cluster-"))
    procs: list[subprocess.Popen[bytes]] = []
    try:
        for i in range(1, servers + 1):
            log = logs / f"server{i}.log"
            with log.open("wb") as out:
                procs.append(
                    subprocess.Popen(
                        server_argv(db, port + i, extra or []),
                        cwd=ROOT,
                        env=env,
                        stdout=out,
                        stderr=subprocess.STDOUT,
                        preexec_fn=die_with_parent,
                    )
                )
        for i, proc in enumerate(procs, start=1):
            wait_healthy(proc, f"http://127.0.0.1:{port + i}", logs / f"server{i}.log")
        ports = [port + i for i in range(1, servers + 1)]
        with local_proxy(ports, port, address) as proxy:
            yield proxy, procs, logs
    finally:
        for proc in procs:
            if proc.poll() is None:
                stop(proc)
        shutil.rmtree(logs, ignore_errors=True)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", required=True, help="postgresql://... (SQLite: --servers 1)")
    parser.add_argument("--servers", type=int, default=2, help="app servers (default 2)")
    parser.add_argument("--port", type=int, default=8501, help="the proxy's port; servers +1..+N")
    parser.add_argument("--address", default="127.0.0.1", help="the proxy's address")
    parser.add_argument("--base-url", default="", help="serve's --base-url (https://...)")
    parser.add_argument("--allowed-host", action="append", default=[], help="serve's option")
    args = parser.parse_args(argv)
    if not 1024 <= args.port <= 65535 - args.servers:
        parser.exit(2, "error: --port is 1024..65535 (servers take the next N ports)\n")
    reason = refusal(args.db, args.servers)
    if reason:
        parser.exit(2, f"error: {reason}\n")
    return args


def exposed_refusal(db: str, address: str, port: int, extra: list[str]) -> str | None:
    """The servers listen on loopback, but the proxy on ``address`` may not: ``serve``'s own
    rules for that address (accounts exist, the team's host names known) checked with
    ``serve --dry-run`` there; its one ``error:`` line, or ``None``."""
    if is_loopback(address):
        return None
    argv = [sys.executable, "-m", "core", "--db", db, "serve", "--address", address]
    argv += ["--port", str(port), "--dry-run", *extra]
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, check=False)
    return done.stderr.strip() or "serve refused the address" if done.returncode else None


def main(argv: list[str] | None = None) -> int:
    """Start the cluster, print where it is, stop everything on Ctrl-C or SIGTERM."""
    args = parse_args(argv)
    extra = [f"--base-url={args.base_url}"] if args.base_url else []
    extra += [f"--allowed-host={h}" for h in args.allowed_host]
    refused = exposed_refusal(args.db, args.address, args.port, extra)
    if refused:
        print(refused, file=sys.stderr)
        return 2
    for signum in (signal.SIGINT, signal.SIGTERM):  # SIGINT too: a background job ignores it
        signal.signal(signum, signal.default_int_handler)
    try:
        with cluster(args.db, args.servers, args.port, args.address, extra) as (proxy, procs, logs):
            ports = ", ".join(str(args.port + i) for i in range(1, args.servers + 1))
            print(f"{proxy.url}: nginx -> {args.servers} servers on 127.0.0.1 ports {ports}")
            print(f"logs: {logs} and {proxy.prefix}/error.log; Ctrl-C stops them all", flush=True)
            alive = {p.pid for p in procs}
            while proxy.process.poll() is None:
                for i, proc in enumerate(procs, start=1):
                    if proc.pid in alive and proc.poll() is not None:
                        alive.discard(proc.pid)
                        print(f"server {i} exited ({proc.returncode}); the proxy uses the others")
                time.sleep(1)
            print(f"error: nginx exited ({proxy.process.returncode})", file=sys.stderr)
            return 1
    except KeyboardInterrupt:
        print("stopped", flush=True)
        return 0
    except ProxyUnavailable as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
