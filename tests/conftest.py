"""Shared fixtures: a fresh migrated database per test, the bundled demo data.

The test matrix (issue 33): the store's own tests (``tests/store/``, the store contract) run on
both backends, ids ending in ``[sqlite]`` / ``[postgresql]``: SQLite files under ``tmp_path``
and databases on the throwaway PostgreSQL server of ``tests/pg_server.py`` (skipped without its
binaries, required under ``CI=true``). Everything above the store calls only store functions,
whose contract cases run on both, so it runs once, on SQLite: the PostgreSQL run of a test that
takes :func:`db`, :func:`db_path`, :func:`new_db_location` (or ``module_backend``) outside
``tests/store/`` is deselected, unless the test is marked ``@pytest.mark.postgresql("why")`` (the
one browser smoke test) or parametrises ``backend`` itself (a PostgreSQL-only message).
``--pg-everywhere`` (or ``WORKBENCH_TEST_PG_EVERYWHERE=1``) runs the whole old matrix;
``--backends sqlite`` (or ``WORKBENCH_TEST_BACKENDS``) runs one backend. A test about SQLite
itself (a damaged file, the write lock) is marked ``@pytest.mark.sqlite_only("why")``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from pg_server import (  # noqa: F401  (fixtures, for every test; not module_backend: opt-in)
    init_location,
    module_db_location,
    module_db_path,
    pg_built,
    pg_migrated,
    pg_server,
    pg_template_copy,
    sqlite_built,
    sqlite_copy,
)

from core.store.database import open_db
from core.store.engine import Database

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "demo"


#: The databases the suite runs on; a test's backend is the last part of its id.
BACKENDS = ("sqlite", "postgresql")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--backends",
        default=os.environ.get("WORKBENCH_TEST_BACKENDS", ",".join(BACKENDS)),
        help="comma-separated backends for the database tests (default: sqlite,postgresql)",
    )
    parser.addoption(
        "--pg-everywhere",
        action="store_true",
        default=os.environ.get("WORKBENCH_TEST_PG_EVERYWHERE") == "1",
        help="run the tests above the store on PostgreSQL too (default: tests/store/ only)",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "sqlite_only(reason): a test of SQLite itself, not run on PostgreSQL"
    )
    config.addinivalue_line(
        "markers", "postgresql(reason): a test above the store that runs on PostgreSQL too"
    )
    config.addinivalue_line(
        "markers", "store_contract: a store contract case (tests/store/contract_registry.py)"
    )


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    """The database backend of this run of the test: ``sqlite`` or ``postgresql``."""
    return str(request.param)


@pytest.fixture
def new_db_location(
    backend: str, tmp_path: Path, request: pytest.FixtureRequest
) -> Callable[[str], Path | str]:
    """Factory of places for a new database: ``make(name)`` is a SQLite path under ``tmp_path``
    that does not exist yet, or the URL of a new, empty PostgreSQL database (a server cannot
    create a database from a URL: an operator does, as docs/deploy.md says). Each is
    unmigrated; ``demo``/``init``/:func:`open_db` migrate it."""
    if backend == "sqlite":
        return lambda name="test": tmp_path / f"{name}.db"
    copy = request.getfixturevalue("pg_template_copy")
    return lambda name="test": copy(None)


@pytest.fixture
def db_path(backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> Path | str:
    """Where a fresh, migrated database is: a file path (SQLite) or a URL (PostgreSQL): a copy
    of the database migrated once per session."""
    if backend == "sqlite":  # a file copy of one migrated once per session (milliseconds)
        template, _ = request.getfixturevalue("sqlite_built")("migrated")
        return sqlite_copy(template, tmp_path / "test.db")
    copy = request.getfixturevalue("pg_template_copy")
    return str(copy(request.getfixturevalue("pg_migrated")))


@pytest.fixture
def db(db_path: Path | str) -> Iterator[Database]:
    """A fresh migrated database, closed after the test."""
    database = open_db(db_path)
    yield database
    database.close()


@pytest.fixture
def demo_dir() -> Path:
    """The bundled demo data folder."""
    return DEMO


#: Files that take the longest (minutes on a busy machine): under pytest-xdist they start first,
#: so the other worker runs the short tests meanwhile instead of waiting on one long tail.
SLOW_FIRST = (  # measured alone, 5 Dec, load 1-4: CPU 131 s, 22 + 24 s (one unit), 15 s
    "tests/pipeline/test_demo.py",
    "tests/generation/test_entity_measure.py",
    "tests/exam/test_book_case.py",
)
#: Files run in another file's unit (one worker process): both read Siddhartha with spaCy
#: (tests/spacy_once.py, whose cache is now the session's, shared by the workers, as the demo
#: build's is with both).
SHARED_SCOPE = {
    "tests/generation/test_translated_novels.py": "tests/generation/test_entity_measure.py"
}
#: The one scope of every real-browser test file: one Streamlit server and one Chromium at a time.
BROWSER_SCOPE = "browser"
BROWSER_FILE = re.compile(r"^tests/app/test_\w*browser\w*\.py$")


def xdist_scope(nodeid: str) -> str:
    """The unit of work a worker takes whole: the test's file (its module fixtures are built
    once), its :data:`SHARED_SCOPE` unit, or :data:`BROWSER_SCOPE` for a browser test file."""
    path = nodeid.split("::", 1)[0]
    return BROWSER_SCOPE if BROWSER_FILE.match(path) else SHARED_SCOPE.get(path, path)


def _rank(item: pytest.Item) -> int:
    """0 for the browser scope (the longest), 1 + position in SLOW_FIRST, then the rest."""
    scope = xdist_scope(item.nodeid)
    if scope == BROWSER_SCOPE:
        return 0
    return 1 + (SLOW_FIRST.index(scope) if scope in SLOW_FIRST else len(SLOW_FIRST))


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """``--dist loadgroup`` (``make test``): whole :func:`xdist_scope` units per worker, in
    collection order. (xdist's own loadgroup renames ``item._nodeid``, which pytest 9 no longer
    reads, so its groups are lost: this scheduler groups by node id instead.)"""
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling  # type: ignore[import-untyped]  # no py.typed

    class FileScopes(LoadScopeScheduling):  # type: ignore[misc]  # xdist is untyped (Any)
        def _split_scope(self, nodeid: str) -> str:
            return xdist_scope(nodeid)

    return FileScopes(config, log)


def _backend_of(item: pytest.Item) -> str | None:
    callspec = getattr(item, "callspec", None)
    return None if callspec is None else callspec.params.get("backend")


#: The store's own tests: the only ones run on both backends without a ``postgresql`` mark.
STORE_TESTS = "tests/store/"


def _chooses_backend(item: pytest.Item) -> bool:
    """The test parametrises ``backend`` itself (``@pytest.mark.parametrize("backend", ...)``)."""
    for mark in item.iter_markers("parametrize"):
        names = mark.args[0] if mark.args else mark.kwargs.get("argnames", "")
        if "backend" in (names.replace(" ", "").split(",") if isinstance(names, str) else names):
            return True
    return False


def above_the_store_on_postgresql(config: pytest.Config, item: pytest.Item) -> bool:
    """The PostgreSQL run of a test above the store that is not kept on PostgreSQL: neither
    marked ``postgresql`` nor choosing its backend, and ``--pg-everywhere`` not given."""
    return (
        _backend_of(item) == "postgresql"
        and not item.nodeid.startswith(STORE_TESTS)
        and not config.getoption("--pg-everywhere")
        and item.get_closest_marker("postgresql") is None
        and not _chooses_backend(item)
    )


def _deselected(config: pytest.Config, item: pytest.Item) -> bool:
    """A backend not chosen with ``--backends``, PostgreSQL for a ``sqlite_only`` test, or
    :func:`above_the_store_on_postgresql`."""
    backend = _backend_of(item)
    if backend is None:
        return False
    chosen = {b.strip() for b in str(config.getoption("--backends")).split(",") if b.strip()}
    unknown = chosen - set(BACKENDS)
    if unknown:
        raise pytest.UsageError(f"--backends: unknown {sorted(unknown)}; choose from {BACKENDS}")
    return (
        backend not in chosen
        or (backend != "sqlite" and item.get_closest_marker("sqlite_only") is not None)
        or above_the_store_on_postgresql(config, item)
    )


def _check_contract_case(item: pytest.Item) -> None:
    """A store contract case runs on both backends, in ``tests/store/``."""
    if item.get_closest_marker("store_contract") is None:
        return
    if not item.nodeid.startswith(STORE_TESTS) or _backend_of(item) is None:
        raise pytest.UsageError(f"{item.nodeid}: a store contract case runs on both backends")
    if item.get_closest_marker("sqlite_only") is not None or _chooses_backend(item):
        raise pytest.UsageError(f"{item.nodeid}: a store contract case runs on both backends")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Drop backend runs not wanted (:func:`_deselected`). In a pytest-xdist worker: the browser
    scope first, then :data:`SLOW_FIRST`, then the rest (stable: the order within a file is
    kept; the scheduler hands out scopes in this order)."""
    for item in items:
        _check_contract_case(item)
    dropped = [item for item in items if _deselected(config, item)]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = [item for item in items if not _deselected(config, item)]
    if os.environ.get("PYTEST_XDIST_WORKER"):
        items.sort(key=_rank)
