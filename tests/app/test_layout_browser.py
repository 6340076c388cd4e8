"""The labelling screens' layout in a real headless Chromium (issue 34): at 1280x800 the item,
both answers, the evidence and the decision controls are on the first screen (long answers
scroll inside their own panes, code is not squeezed into a narrow column); on a 390x844 phone
the decision controls are within the first screen or stay in view (sticky).

Each page's positions are measured at the top of a freshly opened page (nothing scrolled), in
CSS pixels from the top of the viewport; a control counts as on the first screen when its
bottom edge is within the viewport's height. ``LAYOUT_SHOTS=DIR`` saves a screenshot of each
page at each size there. Needs Debian chromium and the ``playwright`` PyPI package (see
``tests/browser_server.py``).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from browser_server import WAIT_S, checklist_item, idle, require_browser, streamlit_app, wait_for
from browser_support import build_prd_db

from core.annotation.custom_tasks import add_items, define_task
from core.annotation.identity import sign_in_open
from core.annotation.pairwise import blind_item, split_pair_key, submit_verdict
from core.annotation.tasks import task_items
from core.store.database import open_db

pytestmark = pytest.mark.browser
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"]
SIZES = ((1280, 800), (390, 844))
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


def _button(label: str) -> Callable[[Any], Any]:
    """A button whose name starts with ``label`` (the key shown on it follows)."""
    pattern = re.compile("^" + re.escape(label) + r"(\s|$)")
    return lambda page: page.get_by_role("button", name=pattern)


def _item(label: str) -> Callable[[Any], Any]:
    """A Review checklist item: its question and its choices' buttons."""
    return lambda page: checklist_item(page, label)


def _text(text: str) -> Callable[[Any], Any]:
    return lambda page: page.get_by_text(text, exact=True)


#: page -> (address, what must be on the first screen at 1280x800 only, the decision controls
#: (on the first screen, or in view, at both sizes)). Answers and evidence are named by their
#: headings.
CASES: dict[str, tuple[str, dict[str, Callable[[Any], Any]], dict[str, Callable[[Any], Any]]]] = {
    "sbs_code": (
        f"Side_by_side?name=dana&q={CODE_ITEM}",
        {"Answer A": _text("Answer A"), "Answer B": _text("Answer B")},
        {v: _button(v) for v in ("A", "B", "Equal", "None")},
    ),
    "sbs_source": (
        "Side_by_side?name=dana&q=gen-1",
        {
            "Answer A": _text("Answer A"),
            "Answer B": _text("Answer B"),
            "Evidence": lambda page: page.get_by_text("Evidence", exact=False).first,
        },
        {v: _button(v) for v in ("A", "B", "Equal", "None")},
    ),
    "disputes": (
        "NarrativeQA_disputes?name=dana",
        {
            "Model answer": _text("Model answer"),
            "Evidence": lambda page: page.get_by_text("Evidence", exact=False).first,
        },
        {v: _button(v) for v in ("Ref. wrong", "Model wrong", "Both OK", "Ambiguous")},
    ),
    "review": (
        "Review_questions?name=dana",
        {  # on a phone the checklist is scrolled through (its keys 1-6 work from anywhere)
            "intelligible": _item("The question is intelligible"),
            "answerable": _item("The question can be answered"),
            "correct": _item("The reference answer is correct"),
            "Passages": lambda page: page.get_by_text(re.compile(r"^Passage \d+ ·")).first,
        },
        {v: _button(v) for v in ("Accept", "Reject", "Save edit")},
    ),
    "adjudication": (
        "Adjudication?name=carol",
        {"Answer 1": _text("Answer 1"), "Answer 2": _text("Answer 2")},
        {
            v: _button(v)
            for v in ("Answer 1 is better", "Answer 2 is better", "Equal", "None (both wrong)")
        },
    ),
    "label": (
        "Label?name=dana&task=tone",
        {
            "Answer": _text("Answer"),
            "Guideline": lambda page: page.get_by_text("Say if it is good."),
        },
        {**{v: _button(v) for v in LABELS}, "Undo": _button("Undo")},
    ),
}
#: Where each control was found, for the report: {(case, width): {what: (top, bottom)}}.
MEASURED: dict[tuple[str, int], dict[str, tuple[int, int]]] = {}


def _box(locator: Any) -> tuple[int, int]:
    locator.first.wait_for()
    box = locator.first.bounding_box()
    assert box, "not rendered"
    return round(box["y"]), round(box["y"] + box["height"])


def _settled(page: Any, wanted: dict[str, Callable[[Any], Any]]) -> dict[str, tuple[int, int]]:
    """The boxes once the layout has settled: two readings, an animation frame apart, agree
    (code blocks and panes load lazily and move what is below them)."""
    seen: list[dict[str, tuple[int, int]]] = []

    def steady() -> bool:
        page.evaluate("() => new Promise((r) => requestAnimationFrame(() => r(null)))")
        seen.append({what: _box(locate(page)) for what, locate in wanted.items()})
        return len(seen) > 1 and seen[-1] == seen[-2]

    wait_for(steady, what="the layout to settle")
    return seen[-1]


@pytest.mark.parametrize("case", list(CASES))
def test_decision_controls_on_the_first_screen(app, case):
    from playwright.sync_api import sync_playwright

    base, chromium, _ = app
    address, content, controls = CASES[case]
    shots = os.environ.get("LAYOUT_SHOTS")
    late: list[str] = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, args=ARGS)
        try:
            for width, height in SIZES:
                page = browser.new_page(viewport={"width": width, "height": height})
                page.set_default_timeout(WAIT_S * 1000)
                page.goto(f"{base}/{address}")
                page.locator("h1").first.wait_for()
                page.get_by_text("Signed in as").first.wait_for(state="attached")
                idle(page)
                wanted = {**controls, **(content if width == 1280 else {})}
                found = _settled(page, wanted)
                MEASURED[case, width] = found
                print(f"{case} {width}x{height}: {found}")
                if shots:
                    Path(shots).mkdir(parents=True, exist_ok=True)
                    page.screenshot(path=str(Path(shots) / f"{case}_{width}.png"))
                late += [
                    f"{what} at y={top}-{bottom} (fold {height}, {width} px wide)"
                    for what, (top, bottom) in found.items()
                    if bottom > height or top < 0
                ]
                page.close()
        finally:
            browser.close()
    assert not late, f"{case}: below the first screen: " + "; ".join(late)


def test_code_in_answers_gets_the_width(app):
    """Without a source document the answers take the page's width: a code block in an answer
    is at least 400 px wide at 1280 px (about 50 characters), not a 25-character column."""
    from playwright.sync_api import sync_playwright

    base, chromium, _ = app
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, args=ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.set_default_timeout(WAIT_S * 1000)
            page.goto(f"{base}/Side_by_side?name=dana&q={CODE_ITEM}")
            code = page.locator('[data-testid="stCode"]').filter(has_text="def ")
            code.first.wait_for()
            idle(page)
            widths = [round(b["width"]) for b in (c.bounding_box() for c in code.all()) if b]
            assert widths and min(widths) >= 400, widths
        finally:
            browser.close()


def _count(db_path: Path, sql: str) -> int:
    db = open_db(db_path)
    try:
        return int(db.execute(sql).fetchone()[0])
    finally:
        db.conn.close()


def test_review_by_keyboard_only_and_guidelines_one_key_away(app):
    """Keys 1, 3, 5 answer the checklist's three items Yes (the keys shown on its buttons, one
    control per choice: no radio beside them), A accepts: no Tab, Space or mouse first. G opens
    the guidelines over the page."""
    from playwright.sync_api import sync_playwright

    base, chromium, db_path = app
    accepted = "select count(*) from reviews where annotator = 'erin' and decision = 'accept'"
    items = ("intelligible", "answered", "answer is correct")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, args=ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.set_default_timeout(WAIT_S * 1000)
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
        finally:
            browser.close()


def test_browse_list_on_the_first_screen_of_a_phone(app):
    """Browse at 390x844: the filters sit behind one button, so the list of questions starts on
    the first screen with at least 200 px of it in view (five rows); the button opens the
    filters."""
    from playwright.sync_api import sync_playwright

    base, chromium, _ = app
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, args=ARGS)
        try:
            for width, height in SIZES:
                page = browser.new_page(viewport={"width": width, "height": height})
                page.set_default_timeout(WAIT_S * 1000)
                page.goto(f"{base}/Browse")
                page.locator("h1").first.wait_for()
                idle(page)
                found = _settled(
                    page, {"list": lambda page: page.locator('[data-testid="stDataFrame"]')}
                )
                print(f"browse {width}x{height}: {found}")
                top = found["list"][0]
                assert 0 <= top <= height - 200, f"the list starts at y={top} ({width} px wide)"
                page.get_by_role("button", name="Filters").click()
                for name in ("Status", "Origin", "Document", "Rater", "Disagreement", "Gold"):
                    page.get_by_text(name, exact=True).first.wait_for()
                page.close()
        finally:
            browser.close()


def test_adjudication_by_keys_guidelines_then_a_label_s_key_settles(app):
    """On Adjudication, G opens how settling works and the task's guideline; then key 3 (shown on
    the Equal button) settles the item as Equal at once: no radio, no second key. Runs last: it
    settles the module's one disagreement."""
    from playwright.sync_api import sync_playwright

    base, chromium, db_path = app
    settled = "select count(*) from adjudications where adjudicator = 'carol' and label = 'Equal'"
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, args=ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.set_default_timeout(WAIT_S * 1000)
            page.goto(f"{base}/Adjudication?name=carol")
            equal = _button("Equal")(page)
            equal.wait_for()
            idle(page)
            assert "3" in equal.inner_text()
            page.get_by_text(re.compile(r"^Item 1 of \d+ open disagreements")).wait_for()
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
        finally:
            browser.close()
