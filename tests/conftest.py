"""Shared fixtures: a fresh migrated database per test, paths to the bundled demo data."""

from __future__ import annotations

from pathlib import Path

import pytest

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
def db(db_path: Path):
    """A fresh migrated database (Database), closed after the test."""
    database = open_db(db_path)
    yield database
    database.conn.close()


@pytest.fixture
def demo_dir() -> Path:
    """The bundled demo data folder."""
    return DEMO
