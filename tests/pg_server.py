"""A throwaway local PostgreSQL server for the tests (issue 25), from the system's binaries.

:func:`pg_server` (session fixture) runs ``initdb`` into a temporary folder and starts ``postgres``
on a free loopback port (its socket in that folder too, ``fsync`` off), and stops it and deletes
the folder at the end of the session. ``initdb`` refuses root, so as root the folder belongs to
the ``postgres`` user and the binaries run as that user (``runuser``). ``$WORKBENCH_TEST_PG``
(a ``postgresql://`` URL of a server where the user may create databases) uses that server instead.

:func:`pg_url` (per test) is the URL of a new empty database on it, dropped after the test;
:func:`pg_migrated_url` the database migrated once per session (:func:`pg_migrated`), emptied.
Without PostgreSQL binaries the tests that need it are skipped, with the reason; under
``CI=true`` they fail instead (CI installs the ``postgresql`` package: ``.ci/run``).
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import socket
import subprocess
import tempfile
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest


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


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _run(args: list[str], as_postgres: bool) -> None:
    cmd = ["runuser", "-u", "postgres", "--", *args] if as_postgres else args
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)
    if done.returncode:
        raise RuntimeError(f"{' '.join(args[:1])} failed: {done.stderr.strip() or done.stdout}")


def _unavailable(reason: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(f"PostgreSQL is required under CI=true: {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def pg_server() -> Iterator[str]:
    """The URL (database ``postgres``) of a running PostgreSQL server for this test session."""
    external = os.environ.get("WORKBENCH_TEST_PG")
    if external:
        yield external
        return
    bindir = find_bindir()
    if bindir is None:
        _unavailable("PostgreSQL server binaries (initdb, pg_ctl) not found; install postgresql")
        return
    as_postgres = os.geteuid() == 0
    if as_postgres and shutil.which("runuser") is None:
        _unavailable("running as root needs runuser to start PostgreSQL as user postgres")
    base = Path(tempfile.mkdtemp(prefix="workbench-pg-"))
    if as_postgres:
        shutil.chown(base, user="postgres")
    data, port = base / "data", _free_port()
    try:
        _run(
            [str(bindir / "initdb"), "-D", str(data), "-A", "trust", "-U", "postgres"], as_postgres
        )
        options = f"-p {port} -k {base} -c listen_addresses=127.0.0.1 -c fsync=off"
        _run(
            [str(bindir / "pg_ctl"), "-D", str(data), "-o", options, "-l", str(base / "log"), "-w"]
            + ["start"],
            as_postgres,
        )
    except (RuntimeError, OSError, subprocess.TimeoutExpired) as exc:
        shutil.rmtree(base, ignore_errors=True)
        _unavailable(f"could not start a local PostgreSQL: {exc}")
        return
    try:
        yield f"postgresql://postgres@127.0.0.1:{port}/postgres"
    finally:
        _run([str(bindir / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"], as_postgres)
        shutil.rmtree(base, ignore_errors=True)


def _url(server: str, name: str) -> str:
    return server.rsplit("/", 1)[0] + "/" + name


@contextlib.contextmanager
def _database(server: str, template: str | None = None) -> Iterator[str]:
    """A new database on ``server`` (a copy of ``template`` if given), dropped afterwards."""
    import psycopg

    name = f"t_{uuid.uuid4().hex[:12]}"
    copy = f" template {template}" if template else ""
    with psycopg.connect(server, autocommit=True) as admin:
        admin.execute(f"create database {name}{copy}")
    try:
        yield _url(server, name)
    finally:
        with psycopg.connect(server, autocommit=True) as admin:
            admin.execute(f"drop database if exists {name} with (force)")


@pytest.fixture
def pg_url(pg_server: str) -> Iterator[str]:
    """The URL of a new, empty database on :func:`pg_server`, dropped after the test."""
    with _database(pg_server) as url:
        yield url


@pytest.fixture(scope="session")
def pg_migrated(pg_server: str) -> Iterator[str]:
    """The URL of one database with every migration applied, made once per session."""
    from core.store.database import open_db

    with _database(pg_server) as url:
        open_db(url).close()
        yield url


@pytest.fixture
def pg_migrated_url(pg_migrated: str) -> str:
    """:func:`pg_migrated` emptied for this test: every table but ``schema_migrations``
    truncated, identities restarted (much faster than a new database per test)."""
    import psycopg

    with psycopg.connect(pg_migrated, autocommit=True) as conn:
        names = [
            r[0]
            for r in conn.execute(
                "select table_name from information_schema.tables where table_schema = "
                "current_schema() and table_type = 'BASE TABLE' and table_name != 'schema_migrations'"
            )
        ]
        conn.execute(f"truncate {', '.join(names)} restart identity cascade")
    return pg_migrated


@pytest.fixture
def pg_template_copy(pg_server: str) -> Iterator[Callable[[str | None], str]]:
    """Factory: ``copy(template_url)`` is the URL of a new database on :func:`pg_server`, a copy
    of the database at ``template_url`` (``None``: empty); all are dropped after the test. A copy
    is a file copy on the server, much faster than migrating, and shares nothing with other tests
    (unlike emptying one database, which waits on any connection a test left open)."""
    with contextlib.ExitStack() as stack:

        def copy(template_url: str | None) -> str:
            template = None if template_url is None else template_url.rsplit("/", 1)[1]
            return stack.enter_context(_database(pg_server, template))

        yield copy


@pytest.fixture(scope="module", params=("sqlite", "postgresql"), name="backend")
def module_backend(request: pytest.FixtureRequest) -> str:
    """``backend`` at module scope, for a test module that builds one database for all its tests
    (``from pg_server import module_backend, module_db_location_fixture``): its tests run once per
    backend, each backend's tests together, and ``--backends`` / ``sqlite_only`` still apply."""
    return str(request.param)


@pytest.fixture(scope="module", name="module_db_location")
def module_db_location_fixture(
    backend: str, tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> Iterator[Callable[..., Path | str]]:
    """Module-scoped factory of places for a new database (needs :func:`module_backend`):
    ``make(name="test", copy_of=None)`` is a SQLite path that does not exist yet, or the URL of a
    new empty PostgreSQL database; with ``copy_of`` (an earlier location, its connections
    closed), a copy of that database. PostgreSQL databases are dropped at the module's end."""
    if backend == "sqlite":
        folder = tmp_path_factory.mktemp("db")

        def make_file(name: str = "test", copy_of: Path | str | None = None) -> Path:
            path = folder / f"{name}.db"
            if copy_of is not None:
                shutil.copyfile(copy_of, path)
            return path

        yield make_file
        return
    server = request.getfixturevalue("pg_server")
    with contextlib.ExitStack() as stack:

        def make_database(name: str = "test", copy_of: Path | str | None = None) -> str:
            template = None if copy_of is None else str(copy_of).rsplit("/", 1)[1]
            return stack.enter_context(_database(server, template))

        yield make_database


@pytest.fixture(scope="module", name="pg_built_once")
def pg_built_once_fixture(
    pg_server: str, pg_migrated: str
) -> Iterator[Callable[[str, Callable[[Any], Any]], tuple[str, Any]]]:
    """Module-scoped memo of PostgreSQL databases whose rows take long to build: ``built(key,
    fill)`` runs ``fill(db)`` once per module on a new migrated database (``db`` open, closed
    after) and returns ``(url, what fill returned)``; each test then works on its own copy,
    ``pg_template_copy(url)``, instead of building the rows again (several seconds of small
    statements on PostgreSQL)."""
    from core.store.database import open_db

    made: dict[str, tuple[str, Any]] = {}
    with contextlib.ExitStack() as stack:

        def built(key: str, fill: Callable[[Any], Any]) -> tuple[str, Any]:
            if key not in made:
                url = stack.enter_context(_database(pg_server, pg_migrated.rsplit("/", 1)[1]))
                db = open_db(url)
                try:
                    made[key] = (url, fill(db))
                finally:
                    db.close()
            return made[key]

        yield built
