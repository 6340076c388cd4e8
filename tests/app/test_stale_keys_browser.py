"""Two tabs of one person in a real headless Chromium, deciding by keyboard (issue 22): the
shortcut keys of Review (``a``, ``x``), Disputes (``1``, ``2``) and Side by side (``1``, ``2``)
take the same path as the buttons, so a key pressed in a tab that loaded the item before the
other tab labelled it stores nothing and says why.

Needs Debian chromium and the ``playwright`` PyPI package (see ``tests/browser_server.py``).
"""

from __future__ import annotations

import re
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from browser_server import IDLE_JS, choose, require_browser, scaled, streamlit_app, wait_for
from browser_support import build_fixture_db
from pg_server import module_backend  # noqa: F401  (fixture: one backend per module)

from app_support.connection import WAITING_LINE
from core.store.database import open_db

if TYPE_CHECKING:  # the optional test dependency, imported in the test when present
    from playwright.sync_api import Page

pytestmark = pytest.mark.browser
#: How a key pressed twice on Side by side is told (core.annotation.base.repeated_press)
AGAIN = "Pressed again on the item just labelled"
WAIT_S = 90
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"]
REVIEWS = "select decision from reviews where annotator = 'alice' order by id"
RESOLUTIONS = "select resolution from dispute_resolutions where annotator = 'alice' order by id"
VERDICTS = "select verdict from judgments where rater = 'human:alice' order by id"


@pytest.fixture(scope="module")
def app(
    tmp_path_factory: pytest.TempPathFactory, module_db_path: Path | str
) -> Iterator[tuple[str, Path | str, str]]:
    chromium = require_browser()
    tmp = tmp_path_factory.mktemp("stale_keys")
    db_path = module_db_path
    build_fixture_db(db_path)
    with streamlit_app(db_path, tmp / "streamlit.log") as base:
        yield base, db_path, chromium


def _rows(db_path: Path | str, sql: str) -> list[str]:
    db = open_db(db_path)
    try:
        return [r[0] for r in db.execute(sql).fetchall()]
    finally:
        db.conn.close()


def _open(page: Page, base: str, path: str, button: str) -> None:
    """Open the page signed in as alice; ready once its decision ``button`` is shown (the run
    that renders the item, not the first visit's rerun through ``app.py``) and the run ended."""
    page.goto(f"{base}/{path}?name=alice")
    page.get_by_text("Signed in as").wait_for()
    page.get_by_role("button", name=re.compile("^" + re.escape(button))).first.wait_for()
    page.wait_for_function(IDLE_JS, timeout=WAIT_S * 1000)


def _key(page: Page, key: str) -> None:
    """Press ``key`` with the page (not a text box) focused."""
    page.locator("h1").first.click()
    page.keyboard.press(key)


def _refused(page: Page, db_path: Path | str, sql: str, stored: list[str], says: str) -> None:
    """The page says another tab changed the label (naming it) and nothing more is stored."""
    page.get_by_text(re.compile("another tab or window stored " + says)).first.wait_for()
    page.wait_for_function(IDLE_JS, timeout=WAIT_S * 1000)
    assert _rows(db_path, sql) == stored


def test_a_key_pressed_in_a_stale_tab_stores_nothing_and_says_why(
    app: tuple[str, Path | str, str],
) -> None:
    from playwright.sync_api import sync_playwright

    base, db_path, chromium = app
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, args=ARGS)
        try:
            first, second = (
                browser.new_page(viewport={"width": 1280, "height": 900}) for _ in "12"
            )
            for page in (first, second):
                page.set_default_timeout(WAIT_S * 1000)

            # Review: both tabs show the first question; the second accepts (key a)
            _open(first, base, "Review_questions", "Accept")
            _open(second, base, "Review_questions", "Accept")
            for label in (
                "The question is intelligible and reads naturally",
                "The question can be answered from the source",
                "The reference answer is correct",
            ):
                choose(second, label)
            _key(second, "a")
            wait_for(lambda: _rows(db_path, REVIEWS) == ["accept"], what="Accept by key a")
            _key(first, "x")  # Reject needs nothing more: only the stale check refuses it
            _refused(first, db_path, REVIEWS, ["accept"], "your review 'Accept'")

            # Disputes: the second tab resolves (key 2), the first still shows the dispute
            _open(first, base, "NarrativeQA_disputes", "Model wrong")
            _open(second, base, "NarrativeQA_disputes", "Model wrong")
            _key(second, "2")
            wait_for(lambda: _rows(db_path, RESOLUTIONS) == ["model_wrong"], what="key 2")
            _key(first, "1")
            _refused(first, db_path, RESOLUTIONS, ["model_wrong"], "your resolution 'model wrong'")

            # Side by side: the same for a verdict
            _open(first, base, "Side_by_side", "Equal")
            _open(second, base, "Side_by_side", "Equal")
            _key(second, "1")
            wait_for(lambda: _rows(db_path, VERDICTS) == ["A"], what="verdict by key 1")
            _key(first, "2")
            _refused(first, db_path, VERDICTS, ["A"], "your verdict 'A better'")
        finally:
            browser.close()


@contextmanager
def _busy(db_path: Path | str, seconds: float) -> Iterator[None]:
    """Another writer holds the database for ``seconds`` (a sqlite3 shell's ``BEGIN
    IMMEDIATE``; on PostgreSQL an exclusive lock on the label tables), from a thread, so a
    label pressed meanwhile waits: its page cannot draw the next item until it is stored."""
    ready = threading.Event()

    def hold() -> None:
        if str(db_path).startswith("postgresql"):
            import psycopg

            with psycopg.connect(str(db_path)) as conn:
                conn.execute("lock table judgments, reviews, dispute_resolutions in exclusive mode")
                ready.set()
                time.sleep(seconds)
        else:
            conn = sqlite3.connect(db_path, isolation_level=None)
            conn.execute("begin immediate")
            ready.set()
            time.sleep(seconds)
            conn.execute("commit")
            conn.close()

    holder = threading.Thread(target=hold)
    holder.start()
    assert ready.wait(30), "the other writer never took the lock"
    try:
        yield
    finally:
        holder.join()


def _twice(page: Page, key: str) -> None:
    """Press ``key``, then again 0.4 s later, before the page could show the next item (the
    database is busy: :func:`_busy`); an impatient double press or a bouncing key on a slow
    moment."""
    _key(page, key)
    page.wait_for_timeout(400)
    page.keyboard.press(key)


def _settled(page: Page) -> None:
    """Both presses' runs are over: the page is idle, twice, a second apart."""
    for _ in range(2):
        page.wait_for_function(IDLE_JS, timeout=WAIT_S * 1000)
        page.wait_for_timeout(1000)


def test_a_key_pressed_twice_labels_only_the_item_that_was_shown(
    app: tuple[str, Path | str, str],
) -> None:
    """A key pressed again before the next item is drawn labels nothing more: it reaches the
    button drawn for the item the person saw, not the one the server drew next (before the
    item-bound keys, ``workspace.item_bound``, a double press while the database was busy
    stored two labels, the second on an item never shown)."""
    from playwright.sync_api import sync_playwright

    base, db_path, chromium = app
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, args=ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.set_default_timeout(WAIT_S * 1000)
            for path, button, key, sql in TWICE:
                _open(page, base, path, button)
                before = _count(db_path, sql)
                with _busy(db_path, 2.5):
                    _twice(page, key)
                wait_for(
                    lambda sql=sql, before=before: _count(db_path, sql) > before,
                    what=f"{path} key {key}",
                )
                _settled(page)
                assert _count(db_path, sql) == before + 1, (path, key)
                if path == "Side_by_side":  # the second press met the label the first stored:
                    main = page.locator('[data-testid="stMain"]')  # said calmly, as what it is
                    calm = main.locator('[data-testid="stAlertContentInfo"]').filter(has_text=AGAIN)
                    assert calm.count() == 1, (key, main.inner_text()[:1500])
                    assert not main.get_by_text("Reload to see it").count(), key  # no stale tab
        finally:
            browser.close()


def test_a_label_waiting_for_another_writer_says_so_and_is_stored_once(
    app: tuple[str, Path | str, str],
) -> None:
    """A key pressed while another program holds the write lock (a sqlite3 shell's ``BEGIN
    IMMEDIATE``) waits for it: the page says it is waiting, not only greyed out (before, nothing
    said so for the whole wait), and the label is stored once the lock is gone."""
    from playwright.sync_api import sync_playwright

    base, db_path, chromium = app
    sql = "select count(*) from judgments where rater = 'human:alice'"
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, args=ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.set_default_timeout(WAIT_S * 1000)
            _open(page, base, "Side_by_side", "Equal")
            before = _count(db_path, sql)
            waiting = page.get_by_text(WAITING_LINE)
            with _busy(db_path, scaled(8)):
                _key(page, "3")
                waiting.wait_for(timeout=scaled(6) * 1000)  # said while the lock is held
                assert _count(db_path, sql) == before
            wait_for(lambda: _count(db_path, sql) == before + 1, what="the label stored")
            _settled(page)
            assert _count(db_path, sql) == before + 1 and not waiting.count()
        finally:
            browser.close()


#: (page, a decision button it shows, the key pressed twice, what one press adds a row to)
TWICE = (
    ("Review_questions", "Accept", "x", "select count(*) from reviews where annotator = 'alice'"),
    ("Review_questions", "Accept", "s", "select count(*) from reviews where annotator = 'alice'"),
    ("Side_by_side", "Equal", "3", "select count(*) from judgments where rater = 'human:alice'"),
    ("Side_by_side", "Equal", "s", "select count(*) from judgments where rater = 'human:alice'"),
    (
        "NarrativeQA_disputes",
        "Model wrong",
        "1",
        "select count(*) from dispute_resolutions where annotator = 'alice'",
    ),
    (
        "NarrativeQA_disputes",
        "Model wrong",
        "s",
        "select count(*) from dispute_resolutions where annotator = 'alice'",
    ),
)


def _count(db_path: Path | str, sql: str) -> int:
    return int(_rows(db_path, sql)[0])
