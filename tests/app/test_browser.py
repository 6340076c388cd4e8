"""The app in a real headless Chromium: sign in, review (a refused Save edit, then Accept),
settle a dispute, give a side-by-side verdict, watch a second tab's leaderboard update live;
planted markup must stay inert.

Needs Debian chromium (``apt-get install chromium``) and the ``playwright`` PyPI package; never
runs ``playwright install``. Without chromium the test is skipped, unless ``CI=true``.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from browser_server import (
    IDLE_JS,
    WAIT_S,
    choose,
    free_port,
    idle,
    require_browser,
    streamlit_app,
    wait_for,
)
from browser_support import build_fixture_db
from pg_server import module_backend  # noqa: F401  (fixture: one backend per module)

from core.store.database import open_db

pytestmark = pytest.mark.browser
ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "test-output" / "screenshots"
PAGES = {
    "Overview": "",
    "Review questions": "Review_questions",
    "NarrativeQA disputes": "NarrativeQA_disputes",
    "Side by side": "Side_by_side",
    "Agreement": "Agreement",
    "Leaderboard": "Leaderboard",
    "Browse": "Browse",
    "Run": "Run",
    "EXAM": "EXAM",
    "Cross lingual": "Cross_lingual",
}
TITLES = {
    "Overview": "Long-Span QA Workbench",
    "Run": "Run an experiment",
    "Cross lingual": "Cross-lingual",
}


class _Recorder(BaseHTTPRequestHandler):
    hits: list[str] = []

    def do_GET(self):  # noqa: N802
        _Recorder.hits.append(self.path)
        self.send_response(200)
        self.send_header("Content-Type", "image/png")
        self.end_headers()

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def trap():
    """A loopback HTTP server that records every request (none must arrive)."""
    server = ThreadingHTTPServer(("127.0.0.1", free_port()), _Recorder)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server.server_address[1], _Recorder.hits
    server.shutdown()


@pytest.fixture(scope="module")
def chromium_path():
    return require_browser()


@pytest.fixture(scope="module")
def chromium_browser(chromium_path: str) -> Iterator[Any]:
    """One headless Chromium for the module's tests (a launch costs seconds on a busy machine);
    each page is a new browser context of it (:func:`open_page`)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=chromium_path,
            args=[
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-dev-shm-usage",
                "--no-first-run",
            ],
        )
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture
def open_page(chromium_browser: Any) -> Iterator[Callable[..., Any]]:
    """``open(**context_options)``: a new page in a new browser context (its own cookies and
    storage: a new session, as a new browser's); every context is closed after the test."""
    contexts: list[Any] = []

    def open_one(**options: Any) -> Any:
        context = chromium_browser.new_context(**options)
        contexts.append(context)
        return context.new_page()

    try:
        yield open_one
    finally:
        for context in contexts:
            context.close()


@pytest.fixture(scope="module")
def app(tmp_path_factory, module_db_path, trap, chromium_path):
    """``streamlit run app.py`` on a free loopback port over a fixture database (once per
    backend); yields the base URL, the database and the server's log."""
    port_trap, _ = trap
    tmp = tmp_path_factory.mktemp("browser")
    db_path = module_db_path
    unsafe = (
        f"<script>window.__pwned = 1; fetch('http://127.0.0.1:{port_trap}/script')</script>"
        f" ![pixel](http://127.0.0.1:{port_trap}/markdown-image.png)"
        f' <img src="http://127.0.0.1:{port_trap}/img-tag.png" onerror="window.__pwned=2">'
    )
    build_fixture_db(db_path, unsafe_answer=unsafe)
    with streamlit_app(db_path, tmp / "streamlit.log") as base:
        yield base, db_path, tmp / "streamlit.log"


def _count(db_path: Path | str, sql: str) -> int:
    db = open_db(db_path)
    try:
        return db.execute(sql).fetchone()[0]
    finally:
        db.conn.close()


def _skip_then_undo(page, db_path: Path | str, table: str, column: str) -> None:
    """Press ``s`` (a stored skip) then ``u`` (its withdrawal) on the page and see both rows."""
    for key, value in (("s", "skipped"), ("u", "withdrawn")):
        page.locator("h1").first.click()  # focus the page, not a text box
        page.keyboard.press(key)
        wait_for(
            lambda value=value: (
                _count(db_path, f"select count(*) from {table} where {column} = '{value}'") == 1
            ),
            what=f"key {key} on {table}",
        )
        idle(page)


def _goto(page, name: str) -> None:
    page.locator('[data-testid="stSidebarNav"]').get_by_role("link", name=name, exact=True).click()
    slug = PAGES[name]
    # open mode keeps ?name=... in the query (a token link leaves the URL once used)
    page.wait_for_url(re.compile(rf"/{slug}(\?.*)?$" if slug else r":\d+/?(\?.*)?$"))
    page.get_by_role("heading", level=1, name=re.compile(TITLES.get(name, name))).wait_for()
    idle(page)


def _comparisons(page) -> int:
    text = page.get_by_text(re.compile(r"\d+ comparisons over")).first.inner_text()
    return int(re.search(r"(\d+) comparisons", text).group(1))


@pytest.mark.postgresql("the browser smoke test on PostgreSQL (issue 33): sign in and write")
def test_annotation_flows_in_a_real_browser(app, trap, open_page):
    base, db_path, _ = app
    _, hits = trap
    SHOTS.mkdir(parents=True, exist_ok=True)
    page = open_page(viewport={"width": 1400, "height": 1800})
    page.set_default_timeout(WAIT_S * 1000)
    page.goto(base)
    page.get_by_text("Needs human attention").wait_for()
    idle(page)
    page.screenshot(path=str(SHOTS / "00_overview.png"), full_page=True)

    # Sign in
    page.get_by_label("Annotator name").fill("alice")
    page.get_by_role("button", name="Sign in").click()
    page.get_by_text("Signed in as").wait_for()
    idle(page)

    # Review a question
    _goto(page, "Review questions")
    for label in (
        "The question is intelligible and reads naturally",
        "The question can be answered from the source",
        "The reference answer is correct",
    ):  # Yes / No, no default
        choose(page, label)
    page.get_by_role("button", name=re.compile(r"^Save edit")).click()  # no edit typed
    page.get_by_text(re.compile("Save edit: nothing was stored")).wait_for()
    idle(page)
    assert _count(db_path, "select count(*) from reviews") == 0
    page.get_by_role("button", name=re.compile(r"^Accept")).click()
    wait_for(lambda: _count(db_path, "select count(*) from reviews") == 1, what="review")
    page.get_by_text(re.compile(r"Stored: Accept on .* now accepted")).wait_for()
    assert _count(db_path, "select count(*) from reviews where decision = 'accept'") == 1
    idle(page)
    _skip_then_undo(page, db_path, "reviews", "decision")  # keys s, u; accept stays
    page.screenshot(path=str(SHOTS / "01_review_questions.png"), full_page=True)

    # Settle a dispute
    _goto(page, "NarrativeQA disputes")
    page.get_by_label("Corrected reference answer (if the reference is wrong)").fill(
        "The Reading Room of the British Museum."
    )
    page.get_by_label("Corrected reference answer (if the reference is wrong)").press("Enter")
    idle(page)
    page.locator("h1").first.click()  # focus the page, not the text box
    page.keyboard.press("1")  # Reference answer wrong
    wait_for(
        lambda: _count(db_path, "select count(*) from dispute_resolutions") == 1,
        what="dispute resolution",
    )
    idle(page)
    _skip_then_undo(page, db_path, "dispute_resolutions", "resolution")
    page.screenshot(path=str(SHOTS / "02_disputes.png"), full_page=True)

    # A second tab (its own session) watches the leaderboard.
    watcher = open_page(viewport={"width": 1400, "height": 1800})
    watcher.set_default_timeout(WAIT_S * 1000)
    watcher.goto(base)
    watcher.get_by_text("Needs human attention").wait_for()
    idle(watcher)
    _goto(watcher, "Leaderboard")
    watcher.get_by_text(re.compile(r"\d+ comparisons over")).first.wait_for()
    before = _comparisons(watcher)

    # Side by side: the planted answer is shown as inert text.
    _goto(page, "Side by side")
    page.get_by_role("heading", name="Answer A").wait_for()
    page.get_by_text("window.__pwned = 1", exact=False).first.wait_for()
    assert page.evaluate("() => window.__pwned === undefined")
    body = page.inner_text("body")
    assert not re.search(r"fixture-[abc]", body), "system names visible before the verdict"
    page.screenshot(path=str(SHOTS / "03_side_by_side.png"), full_page=True)
    n_judgments = _count(db_path, "select count(*) from judgments")
    page.get_by_text("Guidelines").first.wait_for()
    page.get_by_text(re.compile(r"^Evidence")).first.wait_for()
    page.locator("h1").first.click()  # keyboard only from here: focus the page
    page.keyboard.press("1")  # A better, stored at once
    wait_for(
        lambda: _count(db_path, "select count(*) from judgments") == n_judgments + 1,
        what="verdict",
    )
    t0 = time.monotonic()  # the verdict is stored from here on
    wait_for(lambda: _comparisons(watcher) == before + 1, what="live leaderboard update")
    live_s = time.monotonic() - t0
    page.get_by_text(re.compile(r"Stored: A better on")).wait_for()
    idle(page)
    assert page.evaluate(
        "() => { const m = document.querySelector('[data-testid=\"stMain\"]');"
        " return !m || m.scrollTop === 0; }"
    ), "the next item opens at the top"
    for key in ("2", "s"):  # B better, then skip
        page.locator("h1").first.click()
        n = _count(db_path, "select count(*) from judgments where rater = 'human:alice'")
        page.keyboard.press(key)
        wait_for(
            lambda n=n: (
                _count(db_path, "select count(*) from judgments where rater = 'human:alice'")
                == n + 1
            ),
            what=f"key {key}",
        )
        idle(page)
    page.locator("h1").first.click()
    page.keyboard.press("u")  # undo the skip
    wait_for(
        lambda: _count(db_path, "select count(*) from judgments where status = 'withdrawn'") == 1,
        what="undo",
    )
    idle(page)
    assert (
        _count(
            db_path,
            "select count(*) from judgments where rater = 'human:alice' and status = 'ok'",
        )
        == 2
    )
    watcher.screenshot(path=str(SHOTS / "05_leaderboard_live.png"), full_page=True)
    print(f"leaderboard updated {live_s:.1f} s after the verdict was stored")

    for i, name in enumerate(PAGES):
        if name == "Overview":
            continue
        _goto(page, name)
        page.screenshot(
            path=str(SHOTS / f"page_{i:02d}_{name.replace(' ', '_')}.png"), full_page=True
        )
        assert not page.locator('[data-testid="stException"]').count(), name
    _goto(page, "Browse")
    page.get_by_text("window.__pwned = 1", exact=False).first.wait_for()
    assert page.evaluate("() => window.__pwned === undefined")
    assert hits == [], f"the page made requests to the planted URL: {hits}"


def test_the_served_app_warms_up_once_and_nothing_fails(app, open_page):
    """The start-up warm-up (``app_support.warmup.warm_up``) runs in a served app after the first
    visit, logs that it is done exactly once however many visits follow, and logs no failure."""
    base, _, log = app
    for path in ("", "/Agreement", "/Leaderboard"):
        page = open_page()
        page.goto(base + path)
        page.locator("h1").first.wait_for(timeout=WAIT_S * 1000)
        page.wait_for_function(IDLE_JS, timeout=WAIT_S * 1000)
        page.close()
    wait_for(lambda: "warm-up done in" in log.read_text(errors="replace"), what="warm-up")
    text = log.read_text(errors="replace")
    assert text.count("warm-up done in") == 1
    assert "warm-up:" not in text, text[-2000:]
