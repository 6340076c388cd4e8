"""AppTest: the app never creates a database (a missing one stops the page with one plain line),
and a verdict clicked while the database stays locked keeps the item on screen with a plain
"press again" message, stores nothing, and is stored when pressed again."""

from __future__ import annotations

import sqlite3

import pytest
from browser_support import unescaped
from test_app_pages import button, count, ok, page
from test_app_pages import fixture_db as fixture_db  # noqa: F401 (the fixture)

import core.store.connection as connection

SBS = "pages/3_Side_by_side.py"


@pytest.mark.parametrize("path", ["app.py", SBS, "pages/1_Review_questions.py"])
def test_a_missing_database_stops_the_page_with_one_line(tmp_path, monkeypatch, path):
    db = tmp_path / "typo.db"
    monkeypatch.setenv("WORKBENCH_DB", str(db))
    monkeypatch.delenv("WORKBENCH_ACCESS_CODE", raising=False)
    at = ok(page(path))
    errors = [unescaped(e.value) for e in at.error]
    assert any("no database at" in e and "python -m core init" in e for e in errors), errors
    assert not db.exists()


def test_a_verdict_on_a_locked_database_stays_on_screen_and_is_stored_when_pressed_again(
    fixture_db,  # noqa: F811
    monkeypatch,
):
    path, _ = fixture_db
    at = ok(page(SBS))
    shown = [m.value for m in at.markdown]
    monkeypatch.setenv("WORKBENCH_BUSY_TIMEOUT", "0.1")
    monkeypatch.setattr(connection, "LABEL_RETRY_S", 0.4)
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("begin immediate")  # another program writing, past every retry
    try:
        ok(button(at, "A").click().run())
    finally:
        holder.rollback()
        holder.close()
    errors = [unescaped(e.value) for e in at.error]
    assert any("press again" in e for e in errors), errors
    assert count(path, "select count(*) from judgments where rater = 'human:alice'") == 0
    assert [m.value for m in at.markdown] == shown  # the same item, still on screen
    ok(button(at, "A").click().run())
    assert count(path, "select count(*) from judgments where rater = 'human:alice'") == 1
    assert not at.error
