"""The annotation tests' fixture database (``tests/browser_support.build_fixture_db``) on each
backend: built per test on SQLite; on PostgreSQL built once per session and copied per test (a
copy is a file copy on the server, faster than building it again over the connection)."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_support import build_fixture_db
from pg_server import _database


@pytest.fixture(scope="session")
def pg_fixture_template(pg_server: str, pg_migrated: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """The URL of one fixture database on the test server (a template: never opened by a test)
    and the ids :func:`build_fixture_db` returned."""
    with _database(pg_server, pg_migrated.rsplit("/", 1)[1]) as url:
        ids = build_fixture_db(url)
        yield url, ids


@pytest.fixture
def fixture_db(backend: str, request: pytest.FixtureRequest) -> tuple[Path | str, dict[str, Any]]:
    """``(location, ids)`` of a fresh fixture database of this test alone."""
    if backend == "sqlite":
        path = request.getfixturevalue("db_path")
        return path, build_fixture_db(path)
    url, ids = request.getfixturevalue("pg_fixture_template")
    return request.getfixturevalue("pg_template_copy")(url), copy.deepcopy(ids)
