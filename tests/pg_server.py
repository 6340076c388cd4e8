"""A throwaway local PostgreSQL server for the tests (issue 25), from the system's binaries.

:func:`pg_server` (session fixture) is a server of ``scripts/throwaway_pg.py`` (the one start/stop
logic the benchmarks use too): ``initdb`` into a temporary folder, ``postgres`` on a free loopback
port (``fsync`` off), stopped and deleted at the end of the session; as root it runs as the
``postgres`` user (``runuser``). ``$WORKBENCH_TEST_PG``
(a ``postgresql://`` URL of a server where the user may create databases) uses that server instead.

:func:`pg_url` (per test) is the URL of a new empty database on it, dropped after the test;
:func:`pg_migrated_url` the database migrated once per session (:func:`pg_migrated`), emptied.
Without PostgreSQL binaries the tests that need it are skipped, with the reason; under
``CI=true`` they fail instead (CI installs the ``postgresql`` package: ``.ci/run``).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import uuid
from collections.abc import Callable, Iterator
from copy import deepcopy
from pathlib import Path
from typing import Any

import pytest
from db_content import database_digest

from scripts.throwaway_pg import PgUnavailable, throwaway_server


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
    with contextlib.ExitStack() as stack:
        try:
            url = stack.enter_context(throwaway_server())
        except PgUnavailable as exc:
            _unavailable(str(exc))
            return
        yield url


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
    """``backend`` once per module (the values of conftest's ``BACKENDS``): a module that builds
    one database for all its tests (a Streamlit server, a browser) imports it
    (``from pg_server import module_backend``), so its tests run once per backend, grouped, with
    one build each; ids still end ``[sqlite]`` / ``[postgresql]`` and ``--backends`` applies."""
    return str(request.param)


@pytest.fixture(scope="module", name="module_db_path")
def module_database(
    backend: str, tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> Iterator[Path | str]:
    """``module_db_path``: ``db_path`` once per module (with :func:`module_backend`; import both):
    a migrated SQLite file, or a copy of :func:`pg_migrated` dropped after the module."""
    if backend == "sqlite":
        from core.store.database import open_db

        path = tmp_path_factory.mktemp("module_db") / "test.db"
        open_db(path).close()
        yield path
        return
    template = request.getfixturevalue("pg_migrated").rsplit("/", 1)[1]
    with _database(request.getfixturevalue("pg_server"), template) as url:
        yield url


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


#: imported by either name
module_db_location = module_db_location_fixture


@pytest.fixture
def init_location(
    backend: str, tmp_path: Path, request: pytest.FixtureRequest
) -> Callable[..., Path | str]:
    """Factory of more fresh databases for a test that needs several (``db_path`` is one):
    ``make(name="test")`` is a SQLite path that does not exist yet (``init`` or :func:`open_db`
    creates and migrates it), or on PostgreSQL a new copy of :func:`pg_migrated` (``init`` finds
    it up to date; migrating an empty database there takes seconds), dropped after the test."""
    if backend == "sqlite":
        return lambda name="test": tmp_path / f"{name}.db"
    copy = request.getfixturevalue("pg_template_copy")
    migrated = request.getfixturevalue("pg_migrated")
    return lambda name="test": copy(migrated)


# --- A database built once per module and copied per test (issue 25) -------------------------


@contextlib.contextmanager
def module_database_place(
    backend: str, folder: Path, request: pytest.FixtureRequest
) -> Iterator[Path | str]:
    """A place for a new, empty database that lives as long as the ``with`` block (a
    module-scoped fixture's template): ``folder/w.db`` (SQLite) or a new database on
    :func:`pg_server` (PostgreSQL), dropped at the end. ``init``/:func:`open_db` migrate it."""
    if backend == "sqlite":
        yield folder / "w.db"
        return
    server = request.getfixturevalue("pg_server")
    with _database(server) as url:
        try:
            yield url
        finally:
            if url in _WORK_COPIES:
                _drop(server, _WORK_COPIES.pop(url)[0])


def copy_database(source: Path | str, tmp_path: Path, request: pytest.FixtureRequest) -> Path | str:
    """A copy of the database at ``source`` for one test: a file copy ``tmp_path/w.db``
    (SQLite), or a new database made from it as a template, dropped after the test (PostgreSQL:
    nothing may be connected to ``source``)."""
    if isinstance(source, Path):
        shutil.copyfile(source, tmp_path / "w.db")
        return tmp_path / "w.db"
    return request.getfixturevalue("pg_template_copy")(source)


#: template URL -> (URL of its working copy, digest of the template), for :func:`unchanged_copy`.
_WORK_COPIES: dict[str, tuple[str, str]] = {}


def _drop(server: str, url: str) -> None:
    import psycopg

    with psycopg.connect(server, autocommit=True) as admin:
        admin.execute(f"drop database if exists {url.rsplit('/', 1)[1]} with (force)")


def unchanged_copy(
    source: Path | str, tmp_path: Path, request: pytest.FixtureRequest
) -> Path | str:
    """A copy of the :func:`module_database_place` at ``source`` for a test that must leave it as it
    found it (a refused command, checked with :func:`db_content.database_digest`). SQLite: a file copy, as
    :func:`copy_database`. PostgreSQL: one working copy per template, made again only when the
    test before changed its rows (its digest is no longer the template's): a copy there costs
    about a second (``create database ... template``), a file copy a millisecond, and every such
    test still starts from the template's rows."""
    if isinstance(source, Path):
        return copy_database(source, tmp_path, request)
    server = request.getfixturevalue("pg_server")
    work = _WORK_COPIES.get(source)
    if work is not None:
        if database_digest(work[0]) == work[1]:
            return work[0]
        _drop(server, work[0])
    import psycopg

    url = _url(server, f"t_{uuid.uuid4().hex[:12]}")  # dropped by module_database_place
    with psycopg.connect(server, autocommit=True) as admin:
        admin.execute(
            f"create database {url.rsplit('/', 1)[1]} template {source.rsplit('/', 1)[1]}"
        )
    _WORK_COPIES[source] = (url, work[1] if work else database_digest(source))
    return url


@pytest.fixture(scope="session")
def pg_built(pg_server: str, pg_migrated: str) -> Iterator[Callable[..., tuple[str, Any]]]:
    """Session memo of :func:`built_database`: ``built(key, build)`` is ``(url, result)``, a
    database on :func:`pg_server` migrated and filled by ``result = build(url)`` once per
    session and ``key``. A template: tests copy it and never open it (a template with a
    connection cannot be copied)."""
    made: dict[str, tuple[str, Any]] = {}
    with contextlib.ExitStack() as stack:

        def built(key: str, build: Callable[[str], Any]) -> tuple[str, Any]:
            if key not in made:
                url = stack.enter_context(_database(pg_server, pg_migrated.rsplit("/", 1)[1]))
                made[key] = (url, build(url))
            return made[key]

        yield built


def built_database(
    request: pytest.FixtureRequest, key: str, build: Callable[[Path | str], Any]
) -> tuple[Path | str, Any]:
    """``(location, build's result)``: the test's own database, filled by ``build(location)``
    (which opens and closes it). SQLite: built in the test's ``db_path``. PostgreSQL: a copy of
    the one :func:`pg_built` made once per session under ``key`` (a file copy on the server, much
    faster than several seconds of small statements); ``key`` names one ``build`` in the whole
    suite. The calling fixture takes ``backend`` itself, so its tests run once per backend."""
    if request.getfixturevalue("backend") == "sqlite":
        path = request.getfixturevalue("db_path")
        return path, build(path)
    url, result = request.getfixturevalue("pg_built")(key, build)
    return request.getfixturevalue("pg_template_copy")(url), deepcopy(result)
