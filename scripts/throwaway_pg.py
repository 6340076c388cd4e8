"""A throwaway local PostgreSQL server from the system's binaries (issue 25): for the tests
(``tests/pg_server.py``) and the benchmarks (``benchmarks/team_load.py``).

:func:`throwaway_server` (a context manager) runs ``initdb`` into a new temporary folder, starts
``postgres`` on a free loopback port (its socket in that folder too, ``fsync`` off: a crash loses
nothing that matters) and yields the server's URL (database ``postgres``, user ``postgres``, no
password: ``trust`` on loopback only); on exit it stops the server and deletes the folder.
``initdb`` refuses root, so as root the folder belongs to the ``postgres`` user and the binaries
run as that user (``runuser``). Without binaries (or without ``runuser`` as root) it raises
:class:`PgUnavailable` with the reason, before anything is started.

:func:`create_database` / :func:`drop_database` make and remove a database on a server (optionally
a copy of another: a file copy on the server, much faster than building it again).

Run as a script it starts one and prints its URL until Ctrl-C::

    .venv/bin/python scripts/throwaway_pg.py      # postgresql://postgres@127.0.0.1:PORT/postgres
"""

from __future__ import annotations

import contextlib
import glob
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path

#: A database name this module creates or drops (it goes into SQL unquoted).
_NAME = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")


class PgUnavailable(RuntimeError):
    """No local PostgreSQL can be started here; the message says why."""


def find_bindir() -> Path | None:
    """The folder with ``initdb``/``pg_ctl``: ``$PG_BINDIR``, the newest
    ``/usr/lib/postgresql/*/bin``, or the one on ``PATH``; ``None`` if there is none."""
    candidates = [os.environ.get("PG_BINDIR", "")]
    candidates += sorted(
        glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(p.split("/")[-2]), reverse=True
    )
    found = shutil.which("pg_ctl")
    candidates.append(str(Path(found).parent) if found else "")
    for folder in filter(None, candidates):
        if (Path(folder) / "initdb").exists() and (Path(folder) / "pg_ctl").exists():
            return Path(folder)
    return None


def free_port() -> int:
    """A TCP port free on loopback now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _run(args: list[str], as_postgres: bool) -> None:
    cmd = ["runuser", "-u", "postgres", "--", *args] if as_postgres else args
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)
    if done.returncode:
        raise RuntimeError(f"{' '.join(args[:1])} failed: {done.stderr.strip() or done.stdout}")


@contextlib.contextmanager
def throwaway_server(settings: Mapping[str, str] | None = None) -> Iterator[str]:
    """A new local PostgreSQL server for the ``with`` block: its URL (database ``postgres``).

    ``settings``: extra server settings (``-c name=value``), e.g. ``{"max_connections": "200"}``.
    Raises :class:`PgUnavailable` when none can be started (nothing is left behind)."""
    bindir = find_bindir()
    if bindir is None:
        raise PgUnavailable(
            "PostgreSQL server binaries (initdb, pg_ctl) not found; install postgresql"
        )
    as_postgres = os.geteuid() == 0
    if as_postgres and shutil.which("runuser") is None:
        raise PgUnavailable("running as root needs runuser to start PostgreSQL as user postgres")
    base = Path(tempfile.mkdtemp(prefix="workbench-pg-"))
    if as_postgres:
        shutil.chown(base, user="postgres")
    data, port = base / "data", free_port()
    extra = "".join(f" -c {key}={value}" for key, value in (settings or {}).items())
    try:
        _run(
            [str(bindir / "initdb"), "-D", str(data), "-A", "trust", "-U", "postgres"], as_postgres
        )
        options = f"-p {port} -k {base} -c listen_addresses=127.0.0.1 -c fsync=off{extra}"
        _run(
            [str(bindir / "pg_ctl"), "-D", str(data), "-o", options, "-l", str(base / "log"), "-w"]
            + ["start"],
            as_postgres,
        )
    except (RuntimeError, OSError, subprocess.TimeoutExpired) as exc:
        shutil.rmtree(base, ignore_errors=True)
        raise PgUnavailable(f"could not start a local PostgreSQL: {exc}") from exc
    try:
        yield f"postgresql://postgres@127.0.0.1:{port}/postgres"
    finally:
        _run([str(bindir / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"], as_postgres)
        shutil.rmtree(base, ignore_errors=True)


def database_url(server: str, name: str) -> str:
    """The URL of database ``name`` on the server of ``server`` (a URL of any of its databases;
    a query string is kept)."""
    head, _, query = server.partition("?")
    return head.rsplit("/", 1)[0] + "/" + name + (f"?{query}" if query else "")


def database_name(url: str) -> str:
    """The database a URL names."""
    return url.partition("?")[0].rsplit("/", 1)[1]


def _checked(name: str) -> str:
    if not _NAME.match(name):
        raise ValueError(f"not a plain database name: {name!r}")
    return name


def create_database(server: str, name: str, template: str | None = None) -> str:
    """Create database ``name`` on ``server`` (a copy of database ``template`` if given: nobody
    may be connected to it meanwhile); return its URL. Needs the right to create databases."""
    import psycopg  # reason: only the PostgreSQL paths need it

    from core.store.pg_connection import connect_timeout_kwargs  # reason: as psycopg
    from core.store.pool import dispose  # reason: only the PostgreSQL paths need it

    if template:
        dispose(template)  # this process's idle pooled connections to it would block the copy
    sql = f"create database {_checked(name)}" + (
        f" template {_checked(template)}" if template else ""
    )
    with psycopg.connect(server, autocommit=True, **connect_timeout_kwargs(server)) as admin:
        admin.execute(sql)
    return database_url(server, name)


def drop_database(server: str, name: str) -> None:
    """Drop database ``name`` on ``server`` if it exists, ending any session still on it."""
    import psycopg  # reason: only the PostgreSQL paths need it

    from core.store.pg_connection import connect_timeout_kwargs  # reason: as psycopg
    from core.store.pool import dispose  # reason: only the PostgreSQL paths need it

    dispose(name)  # closed here rather than ended by the server under the pool
    sql = f"drop database if exists {_checked(name)} with (force)"
    with psycopg.connect(server, autocommit=True, **connect_timeout_kwargs(server)) as admin:
        admin.execute(sql)


def main() -> None:
    """Start one, print its URL, stop it on Ctrl-C (or SIGTERM)."""
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        with throwaway_server() as url:
            print(url, flush=True)
            signal.pause()
    except PgUnavailable as exc:
        print(f"error: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
