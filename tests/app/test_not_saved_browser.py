"""A decision key pressed while the page has lost its server, in a real headless Chromium
(issue 37, "Faults a team meets"): Streamlit greys the page, disables its buttons and sends
nothing, and after reconnecting it does not always rerun, so the press is lost. The page's own
script (``app_support/shortcuts.py``, :data:`~app_support.shortcuts.NOT_SAVED`) says so in one line.

One server on the SQLite fixture; alice opens Side by side; the server is killed (SIGKILL) and
she presses ``1``: the line shows at the top of the window (fixed, the page does not move),
nothing is stored. A new server comes up on the same port, the page reconnects; she presses
``1`` again: exactly one label is stored, hers, and the next item shows.

The new server's session has never run the page, and a key reruns only the decision bar's
fragment, which that session does not know: Streamlit drops such a rerun ("The fragment with id
... does not exist anymore" in its log) and would drop every key until a full run. The page's
script asks for one full run once reconnected; the line goes with that run, and nothing is
stored by it.

Needs Debian chromium and the ``playwright`` PyPI package (see ``tests/browser_server.py``).
"""

from __future__ import annotations

import signal
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from browser_server import (
    IDLE_JS,
    ROOT,
    WAIT_S,
    free_port,
    idle,
    require_browser,
    scaled,
    wait_for,
)
from browser_support import alice_verdicts, build_fixture_db, pane_text

from app_support.shortcuts import NOT_SAVED
from scripts import served_app

pytestmark = pytest.mark.browser
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"]
SHOTS = ROOT / "test-output" / "screenshots"
CONNECTION_JS = (
    "() => document.querySelector('[data-testid=\"stApp\"]')"
    ".getAttribute('data-test-connection-state')"
)
LINE = "[data-workbench='not-saved'][role='alert']"
# Counts the page's script runs from now on (every change of Streamlit's run-state flag to
# "running", however brief), in window.__runsSeen.
COUNT_RUNS_JS = (
    "() => { window.__runsSeen = 0; new MutationObserver((changes) => { for (const c of changes)"
    " { if ([c.oldValue, c.target.getAttribute(c.attributeName)].includes('running')) {"
    " window.__runsSeen += 1; } } }).observe(document.body, { attributes: true, subtree: true,"
    " attributeOldValue: true, attributeFilter: ['data-test-script-state'] }); }"
)
# A disconnection and reconnection within one task: no timer of the page can see it, only an
# observer of the flag's changes (as a busy browser, whose timers run late, sees a quick one).
BLIP_JS = (
    "() => { const a = document.querySelector('[data-testid=\"stApp\"]');"
    " a.setAttribute('data-test-connection-state', 'PINGING_SERVER');"
    " a.setAttribute('data-test-connection-state', 'CONNECTED'); }"
)


def _serve(db_path: Path, port: int, log: Path) -> subprocess.Popen[bytes]:
    """``streamlit run app.py`` over ``db_path`` on ``port`` (the same port again after a kill,
    as a restarted server would be), once healthy."""
    return served_app.serve({"WORKBENCH_DB": str(db_path)}, log, port=port)[0]


@pytest.fixture
def app(tmp_path: Path) -> Iterator[dict[str, Any]]:
    """The SQLite fixture, a port and a running server over them (stopped after the test)."""
    require_browser()  # skipped (or failed under CI) before a server starts
    db_path = tmp_path / "fixture.db"
    build_fixture_db(db_path)
    port, log = free_port(), tmp_path / "streamlit.log"
    procs = [_serve(db_path, port, log)]
    try:
        yield {"db": db_path, "port": port, "log": log, "procs": procs}
    finally:
        for proc in procs:
            if proc.poll() is None:
                served_app.stop(proc)


@pytest.fixture(scope="module")
def chromium_browser() -> Iterator[Any]:
    """One headless Chromium for the module's tests (a launch costs seconds on a busy machine);
    each test's page is a new browser context of it (:func:`_side_by_side`)."""
    from playwright.sync_api import sync_playwright

    chromium = require_browser()
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, args=ARGS)
        try:
            yield browser
        finally:
            browser.close()


@contextmanager
def _side_by_side(app: dict[str, Any], browser: Any) -> Iterator[Any]:
    """A page in a new browser context (its own cookies: a new session, as in a new browser)
    on the app's Side by side page, signed in as alice, idle; the context closed after."""
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        page = context.new_page()
        page.set_default_timeout(WAIT_S * 1000)
        page.goto(f"http://127.0.0.1:{app['port']}/Side_by_side?name=alice")
        page.get_by_text("Signed in as alice").wait_for()
        page.get_by_role("button", name="Equal").first.wait_for()
        idle(page)
        yield page
    finally:
        context.close()


def test_a_key_pressed_without_a_server_says_not_saved_and_pressing_again_stores_once(
    app: dict[str, Any], chromium_browser: Any
) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    with _side_by_side(app, chromium_browser) as page:
        try:
            line = page.locator(LINE)
            page.locator("h1").first.click()  # focus the page, not the rationale field
            page.keyboard.press("7")  # no button's key, connected: nothing shown
            assert line.count() == 0
            item, top = pane_text(page), page.locator("h1").first.bounding_box()

            # the server dies; the page greys out and its buttons are disabled
            victim = app["procs"][0]
            victim.send_signal(signal.SIGKILL)
            victim.wait(30)
            wait_for(lambda: page.evaluate(CONNECTION_JS) != "CONNECTED", what="disconnected")
            page.keyboard.press("g")  # the guideline's key is no decision: nothing shown
            assert line.count() == 0
            page.keyboard.press("1")
            line.wait_for(state="visible")
            assert line.inner_text().strip() == NOT_SAVED
            box = line.bounding_box()
            assert box is not None and box["y"] == 0 and box["height"] > 10
            assert page.locator("h1").first.bounding_box() == top  # nothing moved
            page.screenshot(path=str(SHOTS / "not_saved_line.png"))
            assert alice_verdicts(app["db"]) == []

            # a server comes back on the same address; the page reconnects
            app["procs"].append(_serve(app["db"], app["port"], app["log"]))
            # the page asks the new session for one full run (without it the server would
            # drop every key: they rerun a fragment it has never run); the line goes with it
            line.wait_for(state="detached")
            wait_for(lambda: page.evaluate(IDLE_JS), what="the page reconnected and idle")
            assert alice_verdicts(app["db"]) == []  # reconnecting stored nothing
            assert pane_text(page) == item  # the same item again
            page.get_by_role("button", name="Equal").first.wait_for()
            page.locator("h1").first.click()
            page.keyboard.press("1")
            wait_for(lambda: alice_verdicts(app["db"]) == ["A"], what="one label stored")
            wait_for(lambda: pane_text(page) != item, what="the next item")
            idle(page)
            assert alice_verdicts(app["db"]) == ["A"]  # exactly one
        except Exception:
            page.screenshot(path=str(SHOTS / "not_saved_failed.png"), full_page=True)
            raise


def test_a_reconnection_quicker_than_a_timer_tick_still_asks_for_a_full_run(
    app: dict[str, Any], chromium_browser: Any
) -> None:
    """The CI failure of stop 45: a server was killed and the page was back on the other server
    before the page's 250 ms timer looked, so it never asked for the full run, and every key
    after was dropped. The connection flag is flipped away and back within one task here (no
    timer can see that; an observer of the flag's changes does): the page asks for one full
    run (a run is seen), which stores nothing and keeps the item."""
    with _side_by_side(app, chromium_browser) as page:
        item = pane_text(page)
        page.evaluate(COUNT_RUNS_JS)
        page.evaluate(BLIP_JS)
        wait_for(
            lambda: page.evaluate("() => window.__runsSeen") >= 1,
            timeout=scaled(20),
            what="a full run asked for after the reconnection",
        )
        idle(page)
        assert alice_verdicts(app["db"]) == []  # the run stored nothing
        assert pane_text(page) == item
        assert page.locator(LINE).count() == 0
