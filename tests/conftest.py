"""Shared fixtures: a fresh migrated database per test, paths to the bundled demo data."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlite_utils

from core.store.database import open_db

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "demo"


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    """Path of a fresh, migrated database file."""
    path = tmp_path / "test.db"
    open_db(path).conn.close()
    return path


@pytest.fixture
def db(db_path: Path) -> Iterator[sqlite_utils.Database]:
    """A fresh migrated database (sqlite_utils.Database), closed after the test."""
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
#: The xdist group of every real-browser test: one Streamlit server and one Chromium at a time.
BROWSER_GROUP = "browser"


def _xdist_group(item: pytest.Item) -> str:
    """One group per test file (its module fixtures are built once), all browser tests in one."""
    if item.get_closest_marker("browser") is not None:
        return BROWSER_GROUP
    return item.nodeid.split("::", 1)[0]


def _xdist_rank(item: pytest.Item) -> int:
    """0 for the browser group (the longest), 1 + position in SLOW_FIRST, then the rest."""
    group = _xdist_group(item)
    if group == BROWSER_GROUP:
        return 0
    return 1 + (SLOW_FIRST.index(group) if group in SLOW_FIRST else len(SLOW_FIRST))


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under ``pytest -n N --dist loadgroup`` (``make test``): group tests by file (browser tests
    together) and put the long groups first. Runs before xdist turns the marks into groups;
    without xdist it changes nothing."""
    if getattr(config.option, "dist", "no") != "loadgroup":
        return
    for item in items:
        if item.get_closest_marker("xdist_group") is None:
            item.add_marker(pytest.mark.xdist_group(_xdist_group(item)))
    items.sort(key=_xdist_rank)  # stable: the order within a file is kept
