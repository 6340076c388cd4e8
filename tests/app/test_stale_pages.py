"""AppTest: two tabs of one person (open mode: the name signs in) on Side by side: the verdict
given in one is never overwritten silently by the other, which loaded the item before: the
other stores nothing and says why."""

from __future__ import annotations

from pathlib import Path

from browser_support import unescaped
from test_app_pages import button, ok, page
from test_app_pages import fixture_db as fixture_db  # noqa: F401 (the fixture)

from core.store.database import open_db

SBS = "pages/3_Side_by_side.py"


def _verdicts(path: Path) -> list[tuple]:
    db = open_db(path)
    try:
        sql = "select verdict, status from judgments where rater = 'human:alice' order by id"
        return [tuple(r) for r in db.execute(sql).fetchall()]
    finally:
        db.conn.close()


def test_a_second_tab_does_not_overwrite_the_verdict_given_in_the_first(fixture_db):  # noqa: F811
    path, _ = fixture_db
    first, second = ok(page(SBS)), ok(page(SBS))  # both show the first item of alice's queue
    ok(button(second, "A").click().run())
    assert _verdicts(path) == [("A", "ok")]
    ok(button(first, "B").click().run())  # the first tab still shows the item it loaded
    assert _verdicts(path) == [("A", "ok")]
    assert any("another tab" in unescaped(e.value) for e in first.error)
    ok(button(first, "Skip").click().run())  # the page now shows the next item: stored
    assert _verdicts(path) == [("A", "ok"), (None, "skipped")]
