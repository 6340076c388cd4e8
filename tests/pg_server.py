"""The test databases of both backends (issue 25): a throwaway PostgreSQL server, and the
fixtures that hand out a database on it or a SQLite file. What is IN a database (to prove nothing
was written) is :mod:`db_content`.

The server, :func:`pg_server` (session), is one of ``scripts/throwaway_pg.py`` (the one start/stop
logic the benchmarks use too): ``initdb`` into a temporary folder, ``postgres`` on a free loopback
port (``fsync`` off), stopped and deleted at the end of the session; as root it runs as the
``postgres`` user (``runuser``). ``$WORKBENCH_TEST_PG`` (a ``postgresql://`` URL of a server where
the user may create databases) uses that server instead. Without PostgreSQL binaries the tests
that need it are skipped, with the reason; under ``CI=true`` they fail instead (CI installs the
``postgresql`` package: ``.ci/run``).

Which fixture (conftest's ``db``, ``db_path``, ``new_db_location`` come first):

- per test: :func:`pg_url` (a new empty database), :func:`pg_template_copy` (a copy of one),
  :func:`init_location` (more fresh databases than ``db_path``), :func:`copy_database` /
  :func:`unchanged_copy` (a test's copy of a module's template);
- per module (``from pg_server import module_backend``: the module's tests run once per backend,
  grouped): :func:`module_db_location` (places for databases built once for the module, and
  copies of them), :func:`module_db_path` (a migrated one);
- per session: :func:`built_database` (a database whose rows take long to build, built once per
  backend and copied per test; memos :func:`sqlite_built`, :func:`pg_built`), on
  :func:`pg_migrated`; conftest's ``db_path`` on SQLite is a copy of :func:`sqlite_built`'s
  migrated file too.

tests/conftest.py registers them all but :func:`module_backend`.
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

from core.store.database import open_db
from core.store.pool import dispose
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


def _name(url: Path | str) -> str:
    """The database name of a URL on the server."""
    return str(url).rsplit("/", 1)[1]


@contextlib.contextmanager
def _database(server: str, template: Path | str | None = None) -> Iterator[str]:
    """The URL of a new database on ``server`` (a copy of the database at URL ``template`` if
    given: a file copy on the server, nothing may be connected to it), dropped afterwards."""
    import psycopg

    name = f"t_{uuid.uuid4().hex[:12]}"
    copy = "" if template is None else f" template {_name(template)}"
    if template is not None:  # this process's idle pooled connections to it block the copy
        dispose(_name(template))
    with psycopg.connect(server, autocommit=True) as admin:
        admin.execute(f"create database {name}{copy}")
    try:
        yield server.rsplit("/", 1)[0] + "/" + name
    finally:
        _drop(server, name)


def _drop(server: str, name: str) -> None:
    import psycopg

    dispose(name)
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
    with _database(pg_server) as url:
        open_db(url).close()
        yield url


@pytest.fixture
def pg_template_copy(pg_server: str) -> Iterator[Callable[[str | None], str]]:
    """Factory: ``copy(template_url)`` is the URL of a new database on :func:`pg_server`, a copy
    of the database at ``template_url`` (``None``: empty); all are dropped after the test. A copy
    is a file copy on the server, much faster than migrating, and shares nothing with other tests
    (unlike emptying one database, which waits on any connection a test left open)."""
    with contextlib.ExitStack() as stack:

        def copy(template_url: str | None) -> str:
            return stack.enter_context(_database(pg_server, template_url))

        yield copy


# --- Per test, beside conftest's db / db_path / new_db_location -------------------------------


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


def copy_database(source: Path | str, tmp_path: Path, request: pytest.FixtureRequest) -> Path | str:
    """A copy of the database at ``source`` (nothing connected to it) for one test: a file copy
    ``tmp_path/w.db`` (SQLite), or a new database made from it as a template, dropped after the
    test (PostgreSQL)."""
    if isinstance(source, Path):
        shutil.copyfile(source, tmp_path / "w.db")
        return tmp_path / "w.db"
    return request.getfixturevalue("pg_template_copy")(source)


#: template URL -> (URL of its working copy, digest of the template), for :func:`unchanged_copy`.
_WORK_COPIES: dict[str, tuple[str, str]] = {}


def unchanged_copy(
    source: Path | str, tmp_path: Path, request: pytest.FixtureRequest
) -> Path | str:
    """:func:`copy_database` for a test that must leave the copy as it found it (a refused
    command, checked with :func:`db_content.database_digest`), ``source`` a template made by
    :func:`module_db_location`. SQLite: a file copy. PostgreSQL: one working copy per template,
    made again only when the test before changed its rows (its digest is no longer the
    template's), dropped with the module's databases: a copy there costs about a second, a file
    copy a millisecond, and every such test still starts from the template's rows."""
    if isinstance(source, Path):
        return copy_database(source, tmp_path, request)
    work = _WORK_COPIES.get(source)
    if work is not None:
        if database_digest(work[0]) == work[1]:
            return work[0]
        _drop(request.getfixturevalue("pg_server"), _name(work[0]))
    url = str(request.getfixturevalue("module_db_location")("work", copy_of=source))
    _WORK_COPIES[source] = (url, work[1] if work else database_digest(source))
    return url


# --- Per module: a database built once for a module's tests (a server, a browser, a template) --


@pytest.fixture(scope="module", params=("sqlite", "postgresql"), name="backend")
def module_backend(request: pytest.FixtureRequest) -> str:
    """``backend`` once per module (the values of conftest's ``BACKENDS``): a module that builds
    one database for all its tests imports it (``from pg_server import module_backend``), so
    its tests run once per backend, grouped, with one build each; ids still end ``[sqlite]`` /
    ``[postgresql]`` and ``--backends`` applies. The fixtures below need it."""
    return str(request.param)


@pytest.fixture(scope="module")
def module_db_location(
    backend: str, tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> Iterator[Callable[..., Path | str]]:
    """Module-scoped factory of places for a new database: ``make(name="test", copy_of=None)``
    is a SQLite path that does not exist yet, or the URL of a new empty PostgreSQL database
    (``init``/:func:`open_db` migrate it); with ``copy_of`` (an earlier location, nothing
    connected to it), a copy of that database. PostgreSQL databases are dropped at the module's
    end."""
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
            return stack.enter_context(_database(server, copy_of))

        yield make_database


@pytest.fixture(scope="module")
def module_db_path(
    backend: str, module_db_location: Callable[..., Path | str], request: pytest.FixtureRequest
) -> Path | str:
    """``db_path`` once per module: a migrated SQLite file, or a copy of :func:`pg_migrated`."""
    if backend == "sqlite":
        path = module_db_location("test")
        open_db(path).close()
        return path
    return module_db_location("test", copy_of=request.getfixturevalue("pg_migrated"))


# --- Per session: a database whose rows take long to build, copied for each test -------------


def sqlite_copy(source: Path, target: Path) -> Path:
    """``target``, a copy of the SQLite database ``source`` by SQLite's backup API (what a
    connection still holds in the WAL file is copied too; ``target`` must not exist)."""
    import sqlite3

    src, dst = sqlite3.connect(source), sqlite3.connect(target)
    try:
        src.backup(dst)
    finally:
        dst.close()
        src.close()
    return target


@pytest.fixture(scope="session")
def sqlite_built(
    tmp_path_factory: pytest.TempPathFactory,
) -> Callable[..., tuple[Path, Any]]:
    """Session memo on SQLite, as :func:`pg_built` on PostgreSQL: ``built(key, build)`` is
    ``(path, result)``, a migrated database filled by ``result = build(path)`` once per session
    and ``key`` (``build=None``: migrated only). A template: tests copy it
    (:func:`sqlite_copy`, milliseconds) and never open it; migrating a new file costs a test
    tens of milliseconds, building the fixture rows seconds."""
    made: dict[str, tuple[Path, Any]] = {}

    def built(key: str, build: Callable[[Path], Any] | None = None) -> tuple[Path, Any]:
        if key not in made:
            path = tmp_path_factory.mktemp("built") / f"{key}.db"
            open_db(path).close()
            made[key] = (path, None if build is None else build(path))
        return made[key]

    return built


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
                url = stack.enter_context(_database(pg_server, pg_migrated))
                made[key] = (url, build(url))
            return made[key]

        yield built


def built_database(
    request: pytest.FixtureRequest, key: str, build: Callable[[Path | str], Any]
) -> tuple[Path | str, Any]:
    """``(location, build's result)``: the test's own database, a copy of the one built by
    ``build(location)`` (which opens and closes it) once per session and backend under ``key``
    (:func:`sqlite_built`: a file ``tmp_path/test.db``; :func:`pg_built`: a new database made
    from it as a template); ``key`` names one ``build`` in the whole suite. The calling fixture
    takes ``backend`` itself."""
    if request.getfixturevalue("backend") == "sqlite":
        path, result = request.getfixturevalue("sqlite_built")(key, build)
        target = request.getfixturevalue("tmp_path") / "test.db"
        return sqlite_copy(path, target), deepcopy(result)
    url, result = request.getfixturevalue("pg_built")(key, build)
    return request.getfixturevalue("pg_template_copy")(url), deepcopy(result)
