"""AppTest of the Rater validation page: one section per auto-rater, the download, planted markup
kept as text, the admin's queue button; an empty database says what is missing."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from browser_support import unescaped
from rater_report_fixture import RATER, build_report_db
from streamlit.testing.v1 import AppTest

from core.store.database import open_db
from core.store.judgments import NewJudgment, effective_judgments, insert_judgments
from core.store.validation_items import validation_requests
from core.views.rater_epsilon import stored_choice
from core.views.rater_report.assemble import report_data
from core.views.text import md

ROOT = Path(__file__).resolve().parents[2]
PAGE = "pages/12_Rater_validation.py"


@pytest.fixture
def report_db(db_path, monkeypatch) -> Path | str:
    path = db_path
    build_report_db(path)
    monkeypatch.setenv("WORKBENCH_DB", str(path))
    monkeypatch.delenv("WORKBENCH_ACCESS_CODE", raising=False)
    return path


def _open(annotator: str | None = "alice") -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    if annotator:  # open mode (no accounts): the name signs in, with every role
        at.query_params["name"] = annotator
    at.run()
    at.switch_page(PAGE)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_page_shows_each_rater_with_its_verdict_and_keeps_markup_inert(report_db):
    at = _open()
    assert [unescaped(h.value) for h in at.header] == [RATER]
    verdicts = [unescaped(m.value) for m in (*at.success, *at.error, *at.warning)]
    assert any("alternative annotator test" in v for v in verdicts)
    assert len(at.dataframe) >= 4
    n_markdown = len(at.markdown)
    (toggle,) = [t for t in at.toggle if "Show disagreements" in unescaped(t.label)]
    assert not toggle.value  # the sampled disagreements are drawn only when asked for
    toggle.set_value(True).run()
    assert not at.exception, [e.value for e in at.exception]
    assert len(at.markdown) > n_markdown
    texts = [m.value for m in (*at.markdown, *at.caption)]
    assert not any("<script>" in t for t in texts)  # planted markup only ever escaped
    assert any("\\<script\\>" in t for t in texts)


def test_empty_database_says_there_is_nothing_to_validate(db_path, monkeypatch):
    # db_path: an empty, migrated database (the app creates none)
    monkeypatch.setenv("WORKBENCH_DB", str(db_path))
    at = _open()
    assert any("no auto-rater" in unescaped(i.value) for i in at.info)


def test_admin_queues_exactly_the_items_the_simulation_asks_for(db_path, tmp_path, monkeypatch):
    # the figures depend only on the doubly-labelled items: a store without the rater's extra
    # items says how many to ask for, and the store the page opens holds that many extra items
    build_report_db(tmp_path / "count.db")
    db = open_db(tmp_path / "count.db")
    try:
        (sec,) = report_data(db, [RATER])["raters"]
    finally:
        db.conn.close()
    asked = sec["needed"]["to_queue"]
    assert asked
    path = db_path
    build_report_db(path, extra_items=asked)
    monkeypatch.setenv("WORKBENCH_DB", str(path))
    db = open_db(path)
    try:
        (sec,) = report_data(db, [RATER])["raters"]
    finally:
        db.conn.close()
    to_queue = sec["needed"]["to_queue"]
    assert to_queue == asked  # the rater's items with no person's label change no figure
    at = _open()  # open mode: signed in by name, allowed to act as admin
    label = f"Queue {to_queue} items for the team (overlap 2)"
    found = [b for b in at.button if unescaped(b.label) == label]
    assert found, [b.label for b in at.button]
    found[0].click().run()
    assert not at.exception, [e.value for e in at.exception]
    db = open_db(path)
    try:
        queued = validation_requests(db, "side-by-side", RATER)
    finally:
        db.conn.close()
    assert len(queued) == to_queue and all(r.overlap == 2 for r in queued)
    at.run()  # the next run says how many are queued instead of offering a second press
    assert not [b for b in at.button if unescaped(b.label) == label]
    (done,) = [
        b for b in at.button if unescaped(b.label).endswith("items queued for the team (overlap 2)")
    ]
    assert done.disabled and unescaped(done.label).startswith(f"{to_queue} items")


def test_each_auto_rater_has_its_own_tab_and_only_the_open_one_is_drawn(report_db):
    """Two auto-raters: only the open tab's section is drawn (the first: the higher advantage
    probability); opening the other tab (its name is the tab's query parameter) draws it."""
    second = "auto:other <b>rater</b>"
    db = open_db(report_db)
    try:
        mine = effective_judgments(db, rater=RATER)
        insert_judgments(
            db,
            [
                NewJudgment(
                    kind=j.kind,
                    question_id=j.question_id,
                    rater=second,
                    rater_kind=j.rater_kind,
                    criterion=j.criterion,
                    system_a=j.system_a,
                    system_b=j.system_b,
                    order_shown=j.order_shown,
                    verdict="A" if n % 3 else j.verdict,
                )
                for n, j in enumerate(mine)
            ],
        )
        order = [sec["rater"] for sec in report_data(db)["raters"]]
    finally:
        db.close()
    assert sorted(order) == sorted([RATER, second])
    at = _open()
    assert [unescaped(h.value) for h in at.header] == [order[0]]
    at.query_params["rater"] = md(order[1])
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert [unescaped(h.value) for h in at.header] == [order[1]]


def test_the_slot_ceiling_is_rounded_as_on_agreement(tmp_path, monkeypatch):
    """An imported crowd (PRD's anonymous slots): the ceiling among the slots is shown with
    three decimals, as the Agreement page shows it (it was the float's full repr)."""
    from browser_support import build_prd_db

    path = tmp_path / "prd.db"
    build_prd_db(path)
    monkeypatch.setenv("WORKBENCH_DB", str(path))
    monkeypatch.delenv("WORKBENCH_ACCESS_CODE", raising=False)
    at = _open()
    ceilings = [c.value for c in at.caption if "Ceiling among the slots" in c.value]
    assert ceilings
    for text in ceilings:
        assert re.search(
            r"Fleiss' kappa (-?\d\.\d{3}|-), Krippendorff's alpha (-?\d\.\d{3}|-) ", text
        )


def _choice(at: AppTest):
    (radio,) = [r for r in at.radio if "Who labelled" in unescaped(r.label)]
    return radio


def _epsilon_curve(at: AppTest) -> dict:
    """The plotly spec of the decision over epsilon (the section's biases are plotted too)."""
    specs = [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]
    (spec,) = [s for s in specs if s["data"][0].get("name") == "winning rate"]
    return spec


def test_who_labelled_sets_epsilon_is_remembered_per_task_and_plotted(report_db):
    """The page offers the CLI's choice (experts 0.2 / skilled 0.15 / crowd 0.1 / a number);
    an admin's choice is stored for the task, survives a rerun and a new session, and the
    decision over epsilon is plotted with the chosen epsilon marked."""
    at = _open()
    radio = _choice(at)
    assert list(radio.options) == [
        "experts (0.2)",
        "skilled annotators (0.15)",
        "crowd workers (0.1)",
        "another number",
    ]
    assert radio.value == "experts"
    assert any("epsilon = 0.2 (experts)" in unescaped(c.value) for c in at.caption)
    assert any(
        "0.2 for experts, 0.15 for skilled annotators, 0.1 for crowd workers" in unescaped(c.value)
        for c in at.caption
    )
    spec = _epsilon_curve(at)
    specs = [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]
    (biases,) = [s for s in specs if s["layout"]["title"]["text"].startswith("Biases")]
    assert [t["name"] for t in biases["data"]] == ["auto-rater", "people"]
    assert [s["x0"] for s in spec["layout"]["shapes"] if s.get("x0") == s.get("x1")] == [0.2]
    assert [t["name"] for t in spec["data"]] == ["winning rate", "advantage probability"]
    assert spec["data"][0]["x"][0] == 0 and spec["data"][0]["x"][-1] == 0.3
    assert any(
        re.search(r"it (passes from epsilon = 0\.\d+|fails at every epsilon)", unescaped(c.value))
        for c in at.caption
    )

    radio.set_value("crowd").run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("epsilon = 0.1 (crowd workers)" in unescaped(c.value) for c in at.caption)
    verdicts = [unescaped(m.value) for m in (*at.success, *at.error)]
    assert any("at epsilon = 0.1 (crowd workers)" in v for v in verdicts), verdicts
    shapes = _epsilon_curve(at)["layout"]["shapes"]
    assert [s["x0"] for s in shapes if s.get("x0") == s.get("x1")] == [0.1]
    at.run()  # a rerun keeps it
    assert _choice(at).value == "crowd"
    db = open_db(report_db)
    try:
        assert stored_choice(db, "side-by-side").text == "crowd"
        assert stored_choice(db, "absolute").text == "experts"  # per task
    finally:
        db.close()

    fresh = _open("bea")  # a new session: the stored choice
    assert _choice(fresh).value == "crowd"
    assert any("epsilon = 0.1 (crowd workers)" in unescaped(c.value) for c in fresh.caption)
    _choice(fresh).set_value("number").run()
    (number,) = [n for n in fresh.number_input if n.label == "epsilon"]
    number.set_value(0.125).run()
    assert not fresh.exception, [e.value for e in fresh.exception]
    assert any("epsilon = 0.125 (a chosen number)" in unescaped(c.value) for c in fresh.caption)
    again = _open()
    assert _choice(again).value == "number"
    assert [n.value for n in again.number_input if n.label == "epsilon"] == [0.125]


def test_without_sign_in_the_choice_is_shown_not_changed(report_db):
    at = _open(annotator=None)
    radio = _choice(at)
    assert radio.disabled and radio.value == "experts"
    assert any("An admin chooses who labelled" in unescaped(c.value) for c in at.caption)
