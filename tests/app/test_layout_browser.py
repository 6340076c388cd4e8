"""The labelling screens' layout in a real headless Chromium (issue 34): at 1280x800 the item,
both answers, the evidence and the decision controls are on the first screen (long answers
scroll inside their own panes, code is not squeezed into a narrow column); on a 390x844 phone
the decision controls are within the first screen or stay in view (sticky).

One table (:data:`SCREENS`: each page, its address, its controls) drives one test. Each page's
positions are measured at the top of a freshly opened page (nothing scrolled), in CSS pixels
from the top of the viewport; a control counts as on the first screen when its bottom edge is
within the viewport's height (a list: its first ``in_view`` pixels). ``LAYOUT_SHOTS=DIR`` saves
a screenshot of each page at each size there. On a server that just started, a page opened by
its own URL shows its loading line at once, before its content, and no stray "app" entry. Needs Debian chromium and the ``playwright`` PyPI package (see
``tests/browser_server.py``).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from browser_server import (
    WAIT_S,
    checklist_item,
    idle,
    require_browser,
    scaled,
    streamlit_app,
    wait_for,
)
from browser_support import build_prd_db

from core.annotation.custom_tasks import add_items, define_task
from core.annotation.identity import sign_in_open
from core.annotation.pairwise import blind_item, split_pair_key, submit_verdict
from core.annotation.tasks import task_items
from core.store.database import open_db

pytestmark = pytest.mark.browser
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"]
SIZES = ((1280, 800), (390, 844))
NAV_LINKS = '[data-testid="stSidebarNav"] a'
SIDE_BY_SIDE = "Side_by_side?name=dana"
CODE_ITEM = "vicuna80-62"  # two long answers with Python code, no source document
#: The custom task of the Label page's case: its one item has a long answer (about 40 lines).
LABELS = ("good", "bad", "unsure")
LONG_ANSWER = "\n\n".join(f"Paragraph {n}: " + "a rather long answer, " * 12 for n in range(40))


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    """The fixture database plus the PRD demo (SQLite: the layout does not depend on the
    backend), with one side-by-side pair that two people labelled differently and a custom
    task ``tone`` whose item has a long answer (the Label page)."""
    chromium = require_browser()
    tmp = tmp_path_factory.mktemp("layout")
    db_path = tmp / "layout.db"
    build_prd_db(db_path)
    db = open_db(db_path)
    try:
        key = next(k for k in task_items(db, "side-by-side") if split_pair_key(k)[0] == "gen-0")
        for name, verdict in (("ann1", "A"), ("ann2", "None")):
            who = sign_in_open(db, name)
            submit_verdict(db, blind_item(db, key, name), who, verdict, "")
        items = tmp / "items.jsonl"
        row = {"item": "t1", "text": "Is this answer polite?", "answer": LONG_ANSWER}
        items.write_text(json.dumps(row) + "\n", encoding="utf-8")
        admin = sign_in_open(db, "admin")
        define_task(db, admin, "tone", "categorical", ",".join(LABELS), "Say if it is good.")
        add_items(db, admin, "tone", items)
    finally:
        db.conn.close()
    with streamlit_app(db_path, tmp / "streamlit.log") as base:
        yield base, chromium, db_path


#: How a test finds something on a page: page -> Playwright locator.
Locate = Callable[[Any], Any]


def _button(label: str) -> Locate:
    """A button whose name starts with ``label`` (the key shown on it follows)."""
    pattern = re.compile("^" + re.escape(label) + r"(\s|$)")
    return lambda page: page.get_by_role("button", name=pattern)


def _item(label: str) -> Locate:
    """A Review checklist item: its question and its choices' buttons."""
    return lambda page: checklist_item(page, label)


def _text(text: str) -> Locate:
    return lambda page: page.get_by_text(text, exact=True)


def _filters_open(page: Any) -> None:
    """Browse's Filters button opens its filters."""
    page.get_by_role("button", name="Filters").click()
    for name in ("Status", "Origin", "Document", "Rater", "Disagreement", "Gold"):
        page.get_by_text(name, exact=True).first.wait_for()


@dataclass(frozen=True)
class Screen:
    """A page of the layout table: its address (after the base URL), the controls on its first
    screen at both sizes (each wholly, or its first ``in_view`` pixels: a list may run on below
    the fold), what else is on the first screen at 1280x800 (answers and evidence, named by
    their headings), whether it waits for a sign-in, and what to check after measuring."""

    address: str
    controls: dict[str, Locate]
    content: dict[str, Locate] = field(default_factory=dict)
    in_view: int = 0
    signed_in: bool = True
    then: Callable[[Any], None] | None = None


_VERDICTS = {v: _button(v) for v in ("A", "B", "Equal", "None")}
_EVIDENCE: Locate = lambda page: page.get_by_text("Evidence", exact=False).first  # noqa: E731
SCREENS: dict[str, Screen] = {
    "sbs_code": Screen(
        f"Side_by_side?name=dana&q={CODE_ITEM}",
        _VERDICTS,
        {"Answer A": _text("Answer A"), "Answer B": _text("Answer B")},
    ),
    "sbs_source": Screen(
        "Side_by_side?name=dana&q=gen-1",
        _VERDICTS,
        {"Answer A": _text("Answer A"), "Answer B": _text("Answer B"), "Evidence": _EVIDENCE},
    ),
    "disputes": Screen(
        "NarrativeQA_disputes?name=dana",
        {v: _button(v) for v in ("Ref. wrong", "Model wrong", "Both OK", "Ambiguous")},
        {"Model answer": _text("Model answer"), "Evidence": _EVIDENCE},
    ),
    "review": Screen(
        "Review_questions?name=dana",
        {v: _button(v) for v in ("Accept", "Reject", "Save edit")},
        {  # on a phone the checklist is scrolled through (its keys 1-6 work from anywhere)
            "intelligible": _item("The question is intelligible"),
            "answerable": _item("The question can be answered"),
            "correct": _item("The reference answer is correct"),
            "Passages": lambda page: page.get_by_text(re.compile(r"^Passage \d+ ·")).first,
        },
    ),
    "adjudication": Screen(
        "Adjudication?name=carol",
        {
            v: _button(v)
            for v in ("Answer 1 is better", "Answer 2 is better", "Equal", "None (both wrong)")
        },
        {"Answer 1": _text("Answer 1"), "Answer 2": _text("Answer 2")},
    ),
    "label": Screen(
        "Label?name=dana&task=tone",
        {**{v: _button(v) for v in LABELS}, "Undo": _button("Undo")},
        {
            "Answer": _text("Answer"),
            "Guideline": lambda page: page.get_by_text("Say if it is good."),
        },
    ),
    # Browse at 390x844: the filters sit behind one button, so the list of questions starts on
    # the first screen with at least 200 px of it in view (five rows); the button opens them.
    "browse": Screen(
        "Browse",
        {"list": lambda page: page.locator('[data-testid="stDataFrame"]')},
        in_view=200,
        signed_in=False,
        then=_filters_open,
    ),
}
#: Where each control was found, for the report: {(screen, width): {what: (top, bottom)}}.
MEASURED: dict[tuple[str, int], dict[str, tuple[int, int]]] = {}


@pytest.fixture(scope="module")
def chromium_browser(app: tuple[str, str, Path]) -> Iterator[Any]:
    """One headless Chromium for the module's tests (a launch costs seconds on a busy machine);
    each test's pages are new browser contexts of it (:func:`open_page`)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=app[1], args=ARGS)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture
def open_page(chromium_browser: Any) -> Iterator[Callable[..., Any]]:
    """``open(width=1280, height=800)``: a new page of that size in a new browser context (its
    own cookies and storage: a new session, as in a new browser), its waits bounded by
    :data:`WAIT_S`; every context is closed after the test."""
    contexts: list[Any] = []

    def open_one(width: int = 1280, height: int = 800) -> Any:
        context = chromium_browser.new_context(viewport={"width": width, "height": height})
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(WAIT_S * 1000)
        return page

    try:
        yield open_one
    finally:
        for context in contexts:
            context.close()


def _box(locator: Any) -> tuple[int, int]:
    locator.first.wait_for()
    box = locator.first.bounding_box()
    assert box, "not rendered"
    return round(box["y"]), round(box["y"] + box["height"])


def _settled(page: Any, wanted: dict[str, Locate]) -> dict[str, tuple[int, int]]:
    """The boxes once the layout has settled: two readings, an animation frame apart, agree
    (code blocks and panes load lazily and move what is below them)."""
    seen: list[dict[str, tuple[int, int]]] = []

    def steady() -> bool:
        page.evaluate("() => new Promise((r) => requestAnimationFrame(() => r(null)))")
        seen.append({what: _box(locate(page)) for what, locate in wanted.items()})
        return len(seen) > 1 and seen[-1] == seen[-2]

    wait_for(steady, what="the layout to settle")
    return seen[-1]


def _late(screen: Screen, found: dict[str, tuple[int, int]], width: int, height: int) -> list[str]:
    """What of ``found`` is not on the first screen (all of it, or its first ``in_view`` px)."""
    return [
        f"{what} at y={top}-{bottom} (fold {height}, {width} px wide)"
        for what, (top, bottom) in found.items()
        if top < 0 or top + (screen.in_view or bottom - top) > height
    ]


@pytest.mark.parametrize("name", list(SCREENS))
def test_decision_controls_on_the_first_screen(app, open_page, name):
    base, _, _ = app
    screen = SCREENS[name]
    shots = os.environ.get("LAYOUT_SHOTS")
    late: list[str] = []
    for width, height in SIZES:
        page = open_page(width, height)
        page.goto(f"{base}/{screen.address}")
        page.locator("h1").first.wait_for()
        if screen.signed_in:
            page.get_by_text("Signed in as").first.wait_for(state="attached")
        idle(page)
        wanted = {**screen.controls, **(screen.content if width == 1280 else {})}
        found = _settled(page, wanted)
        MEASURED[name, width] = found
        print(f"{name} {width}x{height}: {found}")
        if shots:
            Path(shots).mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(Path(shots) / f"{name}_{width}.png"))
        late += _late(screen, found, width, height)
        if screen.then is not None:
            screen.then(page)
        page.close()
    assert not late, f"{name}: below the first screen: " + "; ".join(late)


def test_the_fold_rule_can_fail():
    """:func:`_late` flags a control below the fold, above the top, or a list with less than
    its ``in_view`` pixels on screen, and nothing else."""
    whole, listing = Screen("x", {}), Screen("x", {}, in_view=200)
    assert _late(whole, {"ok": (700, 800), "low": (700, 801), "up": (-1, 40)}, 1280, 800) == [
        "low at y=700-801 (fold 800, 1280 px wide)",
        "up at y=-1-40 (fold 800, 1280 px wide)",
    ]
    assert _late(listing, {"list": (600, 2000)}, 390, 844) == []
    assert _late(listing, {"list": (645, 2000)}, 390, 844) == [
        "list at y=645-2000 (fold 844, 390 px wide)"
    ]


def test_code_in_answers_gets_the_width(app, open_page):
    """Without a source document the answers take the page's width: a code block in an answer
    is at least 400 px wide at 1280 px (about 50 characters), not a 25-character column."""
    base, _, _ = app
    page = open_page()
    page.goto(f"{base}/Side_by_side?name=dana&q={CODE_ITEM}")
    code = page.locator('[data-testid="stCode"]').filter(has_text="def ")
    code.first.wait_for()
    idle(page)
    widths = [round(b["width"]) for b in (c.bounding_box() for c in code.all()) if b]
    assert widths and min(widths) >= 400, widths


def _count(db_path: Path, sql: str) -> int:
    db = open_db(db_path)
    try:
        return int(db.execute(sql).fetchone()[0])
    finally:
        db.conn.close()


def test_review_by_keyboard_only_and_guidelines_one_key_away(app, open_page):
    """Keys 1, 3, 5 answer the checklist's three items Yes (the keys shown on its buttons, one
    control per choice: no radio beside them), A accepts: no Tab, Space or mouse first. G opens
    the guidelines over the page."""
    base, _, db_path = app
    accepted = "select count(*) from reviews where annotator = 'erin' and decision = 'accept'"
    items = ("intelligible", "answered", "answer is correct")
    page = open_page()
    page.goto(f"{base}/Review_questions?name=erin")
    accept = _button("Accept")(page)
    accept.wait_for()
    idle(page)
    assert "A" in accept.inner_text()
    for item, keys in zip(items, ("12", "34", "56")):
        shown = [b.inner_text() for b in _item(item)(page).get_by_role("button").all()]
        assert [k in text for text, k in zip(shown, keys)] == [True, True], shown
    assert not page.locator('[data-testid="stRadio"]').filter(has_text="Yes").count()
    chosen = '[data-testid="stBaseButton-primaryFormSubmit"]'
    for key, item in zip("135", items):
        page.keyboard.press(key)
        yes = _item(item)(page).locator(chosen).filter(has_text=re.compile("^Yes"))
        wait_for(lambda yes=yes: yes.count() > 0, what=f"key {key} to choose Yes")
        idle(page)
    assert _count(db_path, accepted) == 0  # the checklist alone stores nothing
    page.keyboard.press("a")
    wait_for(lambda: _count(db_path, accepted) == 1, what="Accept by keys 1 3 5 a")
    page.get_by_text(re.compile("Stored: Accept on")).wait_for()
    idle(page)
    page.keyboard.press("g")
    dialog = page.get_by_role("dialog")
    dialog.get_by_text("Review: is this question fit").wait_for()


#: Watches the page from its first byte (an init script): when the app's first script run
#: started, when the main pane first showed "Loading <page>" and when a title (h1), and every
#: moment the sidebar listed the folder-mode "app" entry and the first one after it without.
_WATCH_JS = """(page) => { const t0 = performance.now(); const at = () => Math.round(performance.now() - t0);
 const s = window.__seen = {running: null, loading: null, title: null, app: null, appGone: null};
 new MutationObserver(() => {
  const app = document.querySelector('[data-testid="stApp"]');
  if (s.running === null && app && app.getAttribute('data-test-script-state') === 'running')
   s.running = at();
  const main = document.querySelector('[data-testid="stMain"]');
  if (s.loading === null && main && main.innerText.includes('Loading ' + page)) s.loading = at();
  if (s.title === null && main && main.querySelector('h1')) s.title = at();
  const links = [...document.querySelectorAll('[data-testid="stSidebarNav"] a')];
  const stray = links.some((a) => a.innerText.trim() === 'app');
  if (stray && s.app === null) s.app = at();
  if (!stray && s.app !== null && s.appGone === null) s.appGone = at();
 }).observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
}"""


def test_a_page_url_shows_its_loading_line_at_once_on_a_fresh_server(app, open_page, tmp_path):
    """Issue 34, a new server's first visit: a page opened by its own URL (Leaderboard: the
    folder-mode first run of the process, seconds of imports before its title) shows "Loading
    Leaderboard..." within 1 s (scaled to the machine's load) of the app's script run starting,
    before its title, which then takes its place; then another page's URL in a new browser (Side
    by side: a new session) shows its loading line or its title within that second. The sidebar
    lists the app's pages; the folder-mode "app" entry (Streamlit sends it before any of the
    app's code runs) is gone before the loading line shows."""
    _, _, db_path = app
    with streamlit_app(db_path, tmp_path / "fresh.log") as base:
        for name, address in (("Leaderboard", "Leaderboard"), ("Side by side", SIDE_BY_SIDE)):
            first = name == "Leaderboard"
            page = open_page()
            page.add_init_script(f"({_WATCH_JS})({json.dumps(name)})")
            page.goto(f"{base}/{address}")
            heading = page.get_by_role("heading", level=1, name=name)
            heading.wait_for()
            idle(page)
            seen = page.evaluate("window.__seen")
            print(name, seen)
            shown = seen["loading"] if first else (seen["loading"] or seen["title"])
            assert seen["running"] is not None and shown is not None, seen
            assert shown - seen["running"] <= scaled(1.0) * 1000, seen
            if first:  # seen while the page was still importing, before its title
                assert seen["title"] is not None and shown < seen["title"], seen
            if seen["app"] is not None:
                assert seen["appGone"] is not None and seen["appGone"] <= shown, seen
            links = [t.strip() for t in page.locator(NAV_LINKS).all_inner_texts()]
            assert links[0] == "Overview" and len(links) == 15 and "app" not in links, links
            assert not page.get_by_text(f"Loading {name}").count()
            page.close()


def test_adjudication_by_keys_guidelines_then_a_label_s_key_settles(app, open_page):
    """On Adjudication, G opens how settling works and the task's guideline; then key 3 (shown on
    the Equal button) settles the item as Equal at once: no radio, no second key. Runs last: it
    settles the module's one disagreement."""
    base, _, db_path = app
    settled = "select count(*) from adjudications where adjudicator = 'carol' and label = 'Equal'"
    page = open_page()
    page.goto(f"{base}/Adjudication?name=carol")
    equal = _button("Equal")(page)
    equal.wait_for()
    idle(page)
    assert "3" in equal.inner_text()
    page.get_by_text(re.compile(r"^Item 1 of \d+ open disagreements")).wait_for()
    idle(page)
    page.locator("h1").first.click()  # focus the page, not a text box (keys are off there)
    page.keyboard.press("g")
    dialog = page.get_by_role("dialog")
    dialog.get_by_text("Settling a disagreement").wait_for()
    dialog.get_by_text("Side by side: which answer is better?").wait_for()
    page.keyboard.press("Escape")
    dialog.wait_for(state="detached")
    idle(page)
    assert _count(db_path, settled) == 0
    page.keyboard.press("3")
    wait_for(lambda: _count(db_path, settled) == 1, what="Equal settled by key 3")
    page.get_by_text("is now the item's gold label").wait_for()
