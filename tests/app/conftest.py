"""The page tests' database of the PRD Vicuna80 demo, on each backend."""

from __future__ import annotations

from pathlib import Path

import pytest
from browser_support import build_prd_db
from pg_server import built_database


@pytest.fixture
def prd_db(
    backend: str, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> Path | str:
    """The fixture database plus the PRD Vicuna80 demo, the app's ``WORKBENCH_DB``: built for
    the test on SQLite; on PostgreSQL a copy of one built once per session."""
    path, _ = built_database(request, "prd_db", build_prd_db)
    monkeypatch.setenv("WORKBENCH_DB", str(path))
    return path
