"""The PostgreSQL server goes away and comes back while an annotator's page is open, in a real
headless Chromium (issue 37, "Faults a team meets": pages recover by themselves).

The app reaches the test's server through :class:`pg_outage.Outage`. While it is down, a key
pressed on Side by side says "not saved" in one line and stores nothing (its run stops short of
the decision bar), and a page loaded then shows the one "unreachable" line. Once the server is
back each page runs again by itself within a few seconds (:func:`app_support.connection.
retry_when_back`): the item and its buttons are back with no key and no reload, and pressing
the key again stores exactly one label.

Needs Debian chromium and the ``playwright`` PyPI package (see ``tests/browser_server.py``) and
PostgreSQL (``--backends`` with it).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_server import WAIT_S, idle, require_browser, wait_for
from browser_support import alice_verdicts, build_fixture_db, pane_text
from pg_outage import Outage, forwarded_url
from pg_server import built_database

from app_support.connection import NOT_SAVED_LINE, RETRY_S, UNREACHABLE_LINE
from scripts import served_app

pytestmark = pytest.mark.browser
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"]
#: How long a page may take to come back by itself: a check every RETRY_S seconds, a connect
#: timeout of 2 s for a check still refused, and the full run (on a loaded machine).
BACK_S = RETRY_S + 2 + 30


@pytest.fixture
def backend() -> str:
    return "postgresql"


@pytest.fixture
def app(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[dict[str, Any]]:
    """A copy of the fixture database on PostgreSQL, the forwarder in front of its server, and
    one app server reaching it through the forwarder (stopped after the test)."""
    chromium = require_browser()
    if "postgresql" not in str(request.config.getoption("--backends")):
        pytest.skip("the outage is a PostgreSQL server's (--backends without it)")
    direct, _ = built_database(request, "fixture_db", build_fixture_db)
    with Outage.before(str(direct)) as outage:
        env = {"WORKBENCH_DB": forwarded_url(str(direct), outage), "WORKBENCH_CONNECT_TIMEOUT": "2"}
        proc, base = served_app.serve(env, tmp_path / "streamlit.log")
        try:
            yield {"direct": str(direct), "outage": outage, "base": base, "chromium": chromium}
        finally:
            served_app.stop(proc)


def test_pages_come_back_by_themselves_when_the_database_does(app: dict[str, Any]) -> None:
    from playwright.sync_api import sync_playwright

    outage: Outage = app["outage"]
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=app["chromium"], args=ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.set_default_timeout(WAIT_S * 1000)
        try:
            page.goto(f"{app['base']}/Side_by_side?name=alice")
            equal = page.get_by_role("button", name="Equal").first
            equal.wait_for()
            idle(page)
            item = pane_text(page)

            # a key while the database is down: one line, nothing stored, the buttons gone
            outage.down()
            page.locator("h1").first.click()  # focus the page, not the rationale field
            page.keyboard.press("1")
            page.get_by_text(NOT_SAVED_LINE).wait_for()
            wait_for(lambda: equal.count() == 0, what="the decision bar stopped")
            assert alice_verdicts(app["direct"]) == []

            # back: the page runs again by itself, on the same item; the key stores one label
            outage.up()
            equal.wait_for(timeout=BACK_S * 1000)
            idle(page)
            assert pane_text(page) == item and alice_verdicts(app["direct"]) == []
            page.locator("h1").first.click()
            page.keyboard.press("1")
            wait_for(lambda: alice_verdicts(app["direct"]) == ["A"], what="one label stored")
            wait_for(lambda: pane_text(page) != item, what="the next item")

            # a page loaded while the database is down: the one line, then back by itself
            outage.down()
            page.reload()
            page.get_by_text(UNREACHABLE_LINE).wait_for()
            assert equal.count() == 0
            outage.up()
            equal.wait_for(timeout=BACK_S * 1000)
            page.get_by_text(UNREACHABLE_LINE).wait_for(state="detached")
            idle(page)
            assert alice_verdicts(app["direct"]) == ["A"]
        finally:
            browser.close()
