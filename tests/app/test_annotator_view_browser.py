"""What the annotator sees, in a real headless Chromium: an answer's code renders as code, the
verdict buttons fit at 1280 px and on a 390 px phone, and every decision works by keyboard
(after a click on a checklist choice, and after leaving the rationale box with Esc).

Needs Debian chromium and the ``playwright`` PyPI package (see ``tests/browser_server.py``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_server import (
    WAIT_S,
    choose,
    idle,
    require_browser,
    streamlit_app,
    wait_for,
)
from browser_support import build_fixture_db
from pg_server import module_backend  # noqa: F401  (fixture: one backend per module)

from core.corpus.evaluation_layouts import read_prd_vicuna80
from core.corpus.evaluations import store_evaluation
from core.store.database import open_db

pytestmark = pytest.mark.browser
ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "test-output" / "screenshots"
CODE_ITEM = "vicuna80-62"  # "Implement a Python function to find the longest common subsequence"
VERDICTS = ("A", "B", "Equal", "None")
#: True when some element inside the button is cut (its content wider than its box)
CUT_JS = (
    "(el) => [el, ...el.querySelectorAll('*')].some("
    "(e) => e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).overflow !== 'visible')"
)
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"]


@pytest.fixture(scope="module")
def app(tmp_path_factory, module_db_path):
    chromium = require_browser()
    tmp = tmp_path_factory.mktemp("annotator_view")
    db_path = module_db_path
    build_fixture_db(db_path)
    db = open_db(db_path)
    try:
        store_evaluation(db, read_prd_vicuna80(ROOT / "demo" / "prd_vicuna80"))
    finally:
        db.conn.close()
    with streamlit_app(db_path, tmp / "streamlit.log") as base:
        yield base, db_path, chromium


@pytest.fixture(scope="module")
def chromium_browser(app: tuple[str, Path | str, str]) -> Iterator[Any]:
    """One headless Chromium for the module's tests (a launch costs seconds on a busy machine)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=app[2], args=ARGS)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture
def page(chromium_browser: Any) -> Iterator[Any]:
    """A 1280 x 800 page in a new browser context (its own cookies and storage: a new session,
    as in a new browser), its waits bounded by :data:`WAIT_S`; closed after the test."""
    context = chromium_browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        page = context.new_page()
        page.set_default_timeout(WAIT_S * 1000)
        yield page
    finally:
        context.close()


def _count(db_path: Path | str, sql: str) -> int:
    db = open_db(db_path)
    try:
        return db.execute(sql).fetchone()[0]
    finally:
        db.conn.close()


def _verdict(page, label: str):
    return page.get_by_role("button", name=re.compile("^" + re.escape(label) + r"(\s|$)"))


def _open(page, base: str, path: str) -> None:
    page.goto(f"{base}/{path}")
    page.locator("h1").first.wait_for()
    page.get_by_text("Signed in as").wait_for()
    idle(page)


def test_code_renders_as_code_and_the_buttons_fit(app, page):
    base, _, _ = app
    SHOTS.mkdir(parents=True, exist_ok=True)
    _open(page, base, f"Side_by_side?name=alice&q={CODE_ITEM}")
    page.get_by_role("heading", name="Answer A").wait_for()
    code = page.locator('[data-testid="stCode"]').filter(has_text="def ")
    code.first.wait_for()  # the answers' code, shown as code (a lazily loaded element)
    main = page.locator('[data-testid="stMain"]').inner_text()
    assert "```" not in main and "\\#" not in main and "\\(" not in main
    page.get_by_text("This item has no source document.").wait_for()
    for width, height in ((1280, 800), (390, 844)):
        page.set_viewport_size({"width": width, "height": height})
        page.wait_for_timeout(300)  # the layout settles (columns stack on a phone)
        for label in VERDICTS:
            button = _verdict(page, label)
            assert button.count() == 1, label
            assert not button.evaluate(CUT_JS), f"{label} is cut at {width} px"
            assert button.inner_text().strip().startswith(label)
        page.screenshot(path=str(SHOTS / f"sbs_code_{width}.png"))


def test_every_decision_by_keyboard_after_a_checklist_click_and_after_typing(app, page):
    base, db_path, _ = app
    _open(page, base, "Review_questions?name=alice")
    accept = page.get_by_role("button", name=re.compile(r"^Accept"))
    accept.wait_for()
    box = accept.bounding_box()
    assert box and box["y"] + box["height"] <= 800, box  # on the first screen
    page.screenshot(path=str(SHOTS / "review_first_screen.png"))
    for label in (
        "The question is intelligible and reads naturally",
        "The question can be answered from the source",
        "The reference answer is correct",
    ):  # clicked with the mouse: the keys still work after it
        choose(page, label)
    page.wait_for_function("() => document.activeElement.tagName !== 'INPUT'")
    page.keyboard.press("a")  # no click elsewhere first
    wait_for(
        lambda: _count(db_path, "select count(*) from reviews where decision = 'accept'") == 1,
        what="Accept by key after checklist clicks",
    )
    page.get_by_text(re.compile("Stored: Accept on")).wait_for()
    idle(page)

    _open(page, base, "Side_by_side?name=alice")
    page.get_by_role("heading", name="Answer A").wait_for()
    human = "select count(*) from judgments where rater = 'human:alice'"
    before = _count(db_path, human)
    box = page.get_by_label("Short rationale (optional)")
    box.click()
    page.keyboard.press("1")  # typed into the box: no verdict
    page.get_by_text("Shortcut keys are off while typing here").first.wait_for()
    assert box.input_value() == "1"
    page.keyboard.press("Escape")  # leave the box: the keys work again
    page.keyboard.press("2")
    wait_for(lambda: _count(db_path, human) == before + 1, what="verdict after Esc")
    assert _count(db_path, human + " and verdict = 'B' and rationale = '1'") == 1, (
        "the verdict keeps the rationale typed"
    )
    idle(page)
