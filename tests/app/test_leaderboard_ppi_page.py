"""AppTest of the Leaderboard page's "People + judge" tab: the three intervals side by side, the
judge's bias named, other choices rerun cleanly, and what is missing said in one line."""

from __future__ import annotations

from pathlib import Path

import pytest
from ppi_fixture import FAVOURED, JUDGE, STRENGTH, store_battles
from streamlit.testing.v1 import AppTest

from core.annotation.pairwise import SIDE_BY_SIDE_TASK
from core.annotation.validation_queue import RANDOM_OVERLAP, random_candidates
from core.store.connection import utcnow
from core.store.database import open_db
from core.store.validation_items import validation_requests
from core.views.text import md

ROOT = Path(__file__).resolve().parents[2]
SECTION = "People + judge"


@pytest.fixture
def battles_db(db_path, monkeypatch) -> Path | str:
    db = open_db(db_path)
    try:
        store_battles(db)
    finally:
        db.close()
    monkeypatch.setenv("WORKBENCH_DB", str(db_path))
    monkeypatch.delenv("WORKBENCH_ACCESS_CODE", raising=False)
    return db_path


def open_tab() -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.query_params["name"] = "alice"
    at.run()
    at.switch_page("pages/5_Leaderboard.py")
    at.query_params["section"] = SECTION
    return ok(at.run())


def ok(at: AppTest) -> AppTest:
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_people_and_judge_tab_shows_three_intervals_and_the_judges_bias(battles_db) -> None:
    at = open_tab()
    at.selectbox(key="ppi_judge").set_value(JUDGE)
    ok(at.run())
    table = at.dataframe[0].value
    assert list(table["system"])[0] == "sys/a" and len(table) == 4
    for kind in ("people", "judge", "combined"):
        assert {kind, f"{kind} interval", f"{kind} rank-set"} <= set(table.columns)
    fig = at.get("plotly_chart")[0].proto.spec
    assert all(name in fig for name in ("people only", "judge only", "combined (PPI++)"))
    assert any(md(FAVOURED) in w.value and "bias" in w.value for w in at.warning)
    assert {m.label for m in at.metric} >= {"lambda (judge's weight)", "Battles: judge alone"}
    assert any(md("at most 1 rank(s)") in c.value and "simulation" in c.value for c in at.caption)
    strengths = at.dataframe[1].value
    assert list(strengths["system"]) == ["sys/a", "sys/b", "sys/c", "sys/d"]
    assert {"people strength", "judge strength", "combined strength"} <= set(strengths.columns)
    assert any("No strengths from the judge alone" in c.value for c in at.caption)
    assert any("battles counted as independent" in c.value for c in at.caption)
    at.toggle(key="ppi_cluster").set_value(True)
    ok(at.run())
    assert any("bootstrap over 60 questions" in c.value for c in at.caption)
    at.selectbox(key="ppi_target").set_value(4)
    ok(at.run())
    assert any(md("at most 4 rank(s)") in c.value for c in at.caption)
    at.toggle(key="ppi_half").set_value(True)
    ok(at.run())
    assert any("a tie counting half" in c.value for c in at.caption)
    at.selectbox(key="ppi_judge").set_value("auto:other")
    ok(at.run())
    assert any("share no battle" in i.value for i in at.info)
    assert not at.dataframe


def test_people_and_judge_tab_says_what_is_missing(db_path, monkeypatch) -> None:
    monkeypatch.setenv("WORKBENCH_DB", str(db_path))
    monkeypatch.delenv("WORKBENCH_ACCESS_CODE", raising=False)
    at = open_tab()
    assert any("No human and auto pairwise verdicts yet" in i.value for i in at.info)


def test_an_admin_queues_the_planned_battles_drawn_at_random(battles_db) -> None:
    """The plan's "how many more" is one button away: that many of the judge's battles no
    person labelled, drawn at random, queued for the team (overlap 1)."""
    db = open_db(battles_db)
    try:  # answers of every system: the battles become side-by-side items people can judge
        now = utcnow()
        for name in STRENGTH:
            db["systems"].insert({"name": name, "model": "m", "context": "none", "created_at": now})
        db["answers"].insert_all(
            {"question_id": f"q{k}", "system": s, "text": "x", "created_at": now}
            for k in range(60)
            for s in STRENGTH
        )
        population = set(random_candidates(db, JUDGE))
    finally:
        db.close()
    at = open_tab()
    at.selectbox(key="ppi_judge").set_value(JUDGE)
    at.selectbox(key="ppi_target").set_value(2)
    ok(at.run())
    button = at.button(key="ppi_queue_random")
    more = int(button.label.split()[1])
    assert 0 < more <= len(population) and "drawn at random" in button.label
    ok(button.click().run())
    assert any(f"Queued {more} battles" in s.value for s in at.success)
    db = open_db(battles_db)
    try:
        rows = validation_requests(db, SIDE_BY_SIDE_TASK, JUDGE)
    finally:
        db.close()
    assert len(rows) == more and {r.overlap for r in rows} == {RANDOM_OVERLAP}
    assert {r.item_key for r in rows} <= population


def test_few_people_verdicts_come_with_a_warning_on_the_tab(db_path, monkeypatch) -> None:
    db = open_db(db_path)
    try:
        store_battles(db, n_questions=6)  # about 11 battles judged by both, per system
    finally:
        db.close()
    monkeypatch.setenv("WORKBENCH_DB", str(db_path))
    monkeypatch.delenv("WORKBENCH_ACCESS_CODE", raising=False)
    at = open_tab()
    at.selectbox(key="ppi_judge").set_value(JUDGE)
    ok(at.run())
    (warning,) = [w.value for w in at.warning if "not reliable" in w.value]
    assert "fewer than 30 each" in warning and "validation\\-queue \\-\\-random" in warning
