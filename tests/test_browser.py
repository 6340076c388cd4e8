"""The app in a real headless Chromium: sign in, review, settle a dispute, give a side-by-side
verdict, watch a second tab's leaderboard update live; planted markup must stay inert.

Needs Debian chromium (``apt-get install chromium``) and the ``playwright`` PyPI package; never
runs ``playwright install``. Without chromium the test is skipped, unless ``CI=true``.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from browser_support import build_fixture_db
from core.store import open_db

pytestmark = pytest.mark.browser
ROOT = Path(__file__).resolve().parent.parent
SHOTS = ROOT / "test-output" / "screenshots"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
PAGES = {"Overview": None, "Review questions": "1_Review_questions",
         "NarrativeQA disputes": "2_NarrativeQA_disputes", "Side by side": "3_Side_by_side",
         "Agreement": "4_Agreement", "Leaderboard": "5_Leaderboard", "Browse": "6_Browse",
         "Run": "7_Run", "EXAM": "8_EXAM", "Cross lingual": "9_Cross_lingual"}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


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
    server = ThreadingHTTPServer(("127.0.0.1", _free_port()), _Recorder)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server.server_address[1], _Recorder.hits
    server.shutdown()


@pytest.fixture(scope="module")
def chromium_path():
    if not Path(CHROMIUM).exists():
        if os.environ.get("CI") == "true":
            pytest.fail("chromium is required when CI=true (apt-get install chromium)")
        pytest.skip("chromium not installed (apt-get install chromium)")
    pytest.importorskip("playwright.sync_api")
    return CHROMIUM


@pytest.fixture(scope="module")
def app(tmp_path_factory, trap, chromium_path):
    """``streamlit run app.py`` on a free loopback port over a fixture database."""
    port_trap, _ = trap
    db_path = tmp_path_factory.mktemp("browser") / "browser.db"
    unsafe = (f"<script>window.__pwned = 1; fetch('http://127.0.0.1:{port_trap}/script')</script>"
              f" ![pixel](http://127.0.0.1:{port_trap}/markdown-image.png)"
              f" <img src=\"http://127.0.0.1:{port_trap}/img-tag.png\" onerror=\"window.__pwned=2\">")
    build_fixture_db(db_path, unsafe_answer=unsafe)
    port = _free_port()
    env = {**os.environ, "WORKBENCH_DB": str(db_path), "STREAMLIT_BROWSER_GATHER_USAGE_STATS":
           "false"}
    env.pop("WORKBENCH_ACCESS_CODE", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port),
         "--server.address", "127.0.0.1", "--server.headless", "true"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    deadline = time.time() + 60
    while time.time() < deadline:
        try:
            if urllib.request.urlopen(f"{base}/_stcore/health", timeout=1).status == 200:
                break
        except OSError:
            time.sleep(0.3)
    else:
        proc.kill()
        pytest.fail("streamlit did not start: " + proc.stdout.read().decode()[-2000:])
    yield base, db_path
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()


def _count(db_path: Path, sql: str) -> int:
    db = open_db(db_path)
    try:
        return db.execute(sql).fetchone()[0]
    finally:
        db.conn.close()


def _wait_for(predicate, timeout: float = 20.0, what: str = "condition") -> None:
    deadline = time.time() + timeout
    while time.time() < deadline:
        if predicate():
            return
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


def _idle(page) -> None:
    """Wait until the script run finished (the 'Running' status widget is gone)."""
    page.wait_for_timeout(300)
    page.wait_for_function(
        "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')", timeout=30_000)


def _goto(page, name: str) -> None:
    page.locator('[data-testid="stSidebarNav"]').get_by_role("link", name=name, exact=True).click()
    page.get_by_role("heading", name=re.compile(name.split()[0])).first.wait_for(timeout=30_000)
    _idle(page)


def _comparisons(page) -> int:
    text = page.get_by_text(re.compile(r"\d+ comparisons over")).first.inner_text()
    return int(re.search(r"(\d+) comparisons", text).group(1))


def test_annotation_flows_in_a_real_browser(app, trap, chromium_path):
    from playwright.sync_api import sync_playwright

    base, db_path = app
    _, hits = trap
    SHOTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium_path, args=[
            "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
            "--disable-dev-shm-usage", "--no-first-run"])
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.set_default_timeout(30_000)
            page.goto(base)
            page.get_by_text("Needs human attention").wait_for()
            _idle(page)
            page.screenshot(path=str(SHOTS / "00_overview.png"), full_page=True)

            # Sign in
            page.get_by_label("Annotator name").fill("alice")
            page.get_by_role("button", name="Sign in").click()
            page.get_by_text("Signed in as").wait_for()

            # Review a question
            _goto(page, "Review questions")
            page.get_by_text("It is answerable from the source").click()
            page.get_by_role("button", name="Submit review").click()
            _wait_for(lambda: _count(db_path, "select count(*) from reviews") == 1, what="review")
            _idle(page)
            page.screenshot(path=str(SHOTS / "01_review_questions.png"), full_page=True)

            # Settle a dispute
            _goto(page, "NarrativeQA disputes")
            page.get_by_text("Reference answer wrong").click()
            page.get_by_label("Corrected reference answer (if the reference is wrong)").fill(
                "The Reading Room of the British Museum.")
            page.get_by_role("button", name="Save resolution").click()
            _wait_for(lambda: _count(db_path, "select count(*) from dispute_resolutions") == 1,
                      what="dispute resolution")
            _idle(page)
            page.screenshot(path=str(SHOTS / "02_disputes.png"), full_page=True)

            # A second tab (its own session) watches the leaderboard.
            watcher = browser.new_page(viewport={"width": 1400, "height": 1000})
            watcher.goto(base)
            watcher.get_by_text("Needs human attention").wait_for()
            _goto(watcher, "Leaderboard")
            watcher.get_by_text(re.compile(r"\d+ comparisons over")).first.wait_for()
            before = _comparisons(watcher)

            # Side by side: the planted answer is shown as inert text.
            _goto(page, "Side by side")
            page.get_by_role("heading", name="Answer A").wait_for()
            page.wait_for_timeout(1000)
            assert page.evaluate("() => window.__pwned === undefined")
            body = page.inner_text("body")
            assert not re.search(r"fixture-[abc]", body), "system names visible before the verdict"
            page.screenshot(path=str(SHOTS / "03_side_by_side.png"), full_page=True)
            n_judgments = _count(db_path, "select count(*) from judgments")
            page.get_by_text("A is better").click()
            page.get_by_role("button", name="Submit verdict").click()
            _wait_for(lambda: _count(db_path, "select count(*) from judgments") == n_judgments + 1,
                      what="verdict")
            page.get_by_text("Stored your verdict").wait_for()
            t0 = time.time()
            _wait_for(lambda: _comparisons(watcher) == before + 1, timeout=15,
                      what="live leaderboard update")
            live_s = time.time() - t0
            watcher.screenshot(path=str(SHOTS / "05_leaderboard_live.png"), full_page=True)
            print(f"leaderboard updated {live_s:.1f} s after the verdict was stored")

            for i, (name, _) in enumerate(PAGES.items()):
                if name == "Overview":
                    continue
                _goto(page, name)
                page.wait_for_timeout(500)
                page.screenshot(path=str(SHOTS / f"page_{i:02d}_{name.replace(' ', '_')}.png"),
                                full_page=True)
                assert not page.locator('[data-testid="stException"]').count(), name
            _goto(page, "Browse")
            assert page.evaluate("() => window.__pwned === undefined")
        finally:
            browser.close()
    assert hits == [], f"the page made requests to the planted URL: {hits}"
