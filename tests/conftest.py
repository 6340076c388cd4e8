"""Shared fixtures: a fresh migrated database per test, paths to the bundled demo data."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from core.store.database import open_db
from core.store.engine import Database

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "demo"


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    """Path of a fresh, migrated database file."""
    path = tmp_path / "test.db"
    open_db(path).conn.close()
    return path


@pytest.fixture
def db(db_path: Path) -> Iterator[Database]:
    """A fresh migrated database, closed after the test."""
    database = open_db(db_path)
    yield database
    database.conn.close()


@pytest.fixture
def demo_dir() -> Path:
    """The bundled demo data folder."""
    return DEMO


#: Files that take the longest (minutes on a busy machine): under pytest-xdist they start first,
#: so the other worker runs the short tests meanwhile instead of waiting on one long tail.
SLOW_FIRST = (
    "tests/pipeline/test_demo.py",
    "tests/pipeline/test_experiment.py",
    "tests/generation/test_entity_measure.py",
    "tests/exam/test_book_case.py",
)
#: The one scope of every real-browser test file: one Streamlit server and one Chromium at a time.
BROWSER_SCOPE = "browser"
BROWSER_FILE = re.compile(r"^tests/app/test_\w*browser\w*\.py$")


def xdist_scope(nodeid: str) -> str:
    """The unit of work a worker takes whole: the test's file (its module fixtures are built
    once), or :data:`BROWSER_SCOPE` for a browser test file."""
    path = nodeid.split("::", 1)[0]
    return BROWSER_SCOPE if BROWSER_FILE.match(path) else path


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


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """In a pytest-xdist worker: the browser scope first, then :data:`SLOW_FIRST`, then the rest
    (stable: the order within a file is kept; the scheduler hands out scopes in this order)."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        items.sort(key=_rank)
