"""The annotation tests' fixture database (``tests/browser_support.build_fixture_db``) on each
backend: built per test on SQLite; on PostgreSQL built once per session and copied per test
(:func:`pg_server.built_database`, the same one as ``tests/app/test_app_pages.py``'s)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from browser_support import build_fixture_db
from pg_server import built_database


@pytest.fixture
def fixture_db(backend: str, request: pytest.FixtureRequest) -> tuple[Path | str, dict[str, Any]]:
    """``(location, ids)`` of a fresh fixture database of this test alone."""
    return built_database(request, "fixture_db", build_fixture_db)
