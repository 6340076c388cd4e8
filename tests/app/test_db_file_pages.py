"""AppTest on each backend: the app never creates a database (a missing one stops the page with
one plain line), and a verdict clicked while the database stays locked keeps the item on screen
with a plain "press again" message, stores nothing, and is stored when pressed again."""

from __future__ import annotations

import sqlite3
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from browser_support import unescaped
from test_app_pages import button, count, ok, page
from test_app_pages import fixture_db as fixture_db  # noqa: F401 (the fixture)

import core.store.connection as connection

SBS = "pages/3_Side_by_side.py"


def _pg_exists(server: str, name: str) -> bool:
    import psycopg

    with psycopg.connect(server, autocommit=True) as admin:
        found = admin.execute("select 1 from pg_database where datname = %s", [name])
        return found.fetchone() is not None


@pytest.mark.postgresql("a missing PostgreSQL database is its own message (createdb)")
@pytest.mark.parametrize("path", ["app.py", SBS, "pages/1_Review_questions.py"])
def test_a_missing_database_stops_the_page_with_one_line(
    backend, tmp_path, request, monkeypatch, path
):
    if backend == "sqlite":
        db: Path | str = tmp_path / "typo.db"
        says = ("no database at", "python -m core init")
        exists = Path(db).exists
    else:  # a database name nobody created on a running server
        server = request.getfixturevalue("pg_server")
        name = f"typo_{uuid.uuid4().hex[:12]}"
        db = server.rsplit("/", 1)[0] + "/" + name
        says = ("cannot connect to PostgreSQL", "createdb")
        exists = lambda: _pg_exists(server, name)  # noqa: E731
    monkeypatch.setenv("WORKBENCH_DB", str(db))
    monkeypatch.delenv("WORKBENCH_ACCESS_CODE", raising=False)
    at = ok(page(path))
    errors = [unescaped(e.value) for e in at.error]
    assert any(all(s in e for s in says) for e in errors), errors
    assert not exists()


@contextmanager
def _held_write_lock(backend: str, path: Path | str) -> Iterator[None]:
    """Another program writing, past every retry: SQLite's write lock on the file, or on
    PostgreSQL a transaction holding an exclusive lock on ``judgments`` (reads go on)."""
    if backend == "sqlite":
        holder = sqlite3.connect(path, isolation_level=None)
        holder.execute("begin immediate")
        try:
            yield
        finally:
            holder.rollback()
            holder.close()
        return
    import psycopg

    with psycopg.connect(str(path), autocommit=True) as pg:
        pg.execute("begin")
        pg.execute("lock table judgments in exclusive mode")
        try:
            yield
        finally:
            pg.execute("rollback")


@pytest.mark.postgresql("a lock on PostgreSQL is a lock timeout, not SQLite's busy file")
def test_a_verdict_on_a_locked_database_stays_on_screen_and_is_stored_when_pressed_again(
    fixture_db,  # noqa: F811
    backend,
    monkeypatch,
):
    path, _ = fixture_db
    at = ok(page(SBS))
    shown = [m.value for m in at.markdown]
    monkeypatch.setenv("WORKBENCH_BUSY_TIMEOUT", "0.1")
    monkeypatch.setattr(connection, "LABEL_RETRY_S", 0.4)
    with _held_write_lock(backend, path):  # another program writing, past every retry
        ok(button(at, "A").click().run())
    errors = [unescaped(e.value) for e in at.error]
    assert any("press again" in e for e in errors), errors
    assert count(path, "select count(*) from judgments where rater = 'human:alice'") == 0
    assert [m.value for m in at.markdown] == shown  # the same item, still on screen
    ok(button(at, "A").click().run())
    assert count(path, "select count(*) from judgments where rater = 'human:alice'") == 1
    assert not at.error
