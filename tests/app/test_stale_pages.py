"""AppTest: two tabs of one person (open mode: the name signs in) on Side by side: the verdict
given in one is never overwritten silently by the other, which loaded the item before: the
other stores nothing and says why."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from browser_support import unescaped
from streamlit.testing.v1 import AppTest
from test_app_pages import _answer, _shown_question, button, ok, page
from test_app_pages import fixture_db as fixture_db  # noqa: F401 (the fixture)

from core.store.database import open_db

SBS = "pages/3_Side_by_side.py"


def _verdicts(path: Path | str) -> list[tuple[Any, ...]]:
    db = open_db(path)
    try:
        sql = "select verdict, status from judgments where rater = 'human:alice' order by id"
        return [tuple(r) for r in db.execute(sql).fetchall()]
    finally:
        db.conn.close()


def test_a_second_tab_does_not_overwrite_the_verdict_given_in_the_first(
    fixture_db: tuple[Path | str, dict[str, Any]],  # noqa: F811
) -> None:
    path, _ = fixture_db
    first, second = ok(page(SBS)), ok(page(SBS))  # both show the first item of alice's queue
    ok(button(second, "A").click().run())
    assert _verdicts(path) == [("A", "ok")]
    ok(button(first, "B").click().run())  # the first tab still shows the item it loaded
    assert _verdicts(path) == [("A", "ok")]
    assert any("another tab" in unescaped(e.value) for e in first.error)
    ok(button(first, "Skip").click().run())  # the page now shows the next item: stored
    assert _verdicts(path) == [("A", "ok"), (None, "skipped")]


REVIEW = "pages/1_Review_questions.py"
DISPUTES = "pages/2_NarrativeQA_disputes.py"


def _rows(path: Path | str, sql: str) -> list[tuple[Any, ...]]:
    db = open_db(path)
    try:
        return [tuple(r) for r in db.execute(sql).fetchall()]
    finally:
        db.conn.close()


def _errors(at: AppTest) -> list[str]:
    return [unescaped(e.value) for e in at.error]


def _pick(at: AppTest, qid: str) -> AppTest:
    """Show the question ``qid`` (mode Pick a question)."""
    [r for r in at.radio if r.label == "Show"][0].set_value("Pick a question").run()
    [s for s in at.selectbox if s.label == "Question"][0].set_value(qid).run()
    return ok(at)


def test_a_second_review_tab_does_not_overwrite_the_review_given_in_the_first(
    fixture_db: tuple[Path | str, dict[str, Any]],  # noqa: F811
) -> None:
    path, _ = fixture_db
    first, second = ok(page(REVIEW)), ok(page(REVIEW))  # both show the first question
    qid = _shown_question(first)
    assert _shown_question(second) == qid
    keys = {unescaped(b.label): b.proto.shortcut for b in first.button}  # the keys click these
    assert [keys[k] for k in ("Accept", "Reject", "Skip")] == list("axs")
    _answer(second)
    ok(button(second, "Accept").click().run())
    sql = "select question_id, decision from reviews where annotator = 'alice' order by id"
    assert _rows(path, sql) == [(qid, "accept")]
    ok(button(first, "Reject").click().run())  # the first tab still shows the question it loaded
    assert _rows(path, sql) == [(qid, "accept")]
    assert any("another tab" in e and "'Accept'" in e for e in _errors(first)), _errors(first)
    assert _rows(path, f"select status from questions where id = '{qid}'") == [("accepted",)]
    following = _shown_question(first)  # the page now shows the next question: stored
    assert following != qid
    ok(button(first, "Skip").click().run())
    assert _rows(path, sql) == [(qid, "accept"), (following, "skipped")]


def test_review_pick_mode_refuses_a_stale_decision_then_stores_a_knowing_one(
    fixture_db: tuple[Path | str, dict[str, Any]],  # noqa: F811
) -> None:
    path, _ = fixture_db
    first, second = ok(page(REVIEW)), ok(page(REVIEW))
    qid = _shown_question(first)
    _pick(first, qid), _pick(second, qid)
    _answer(second, intelligible="No")
    ok(button(second, "Reject").click().run())
    _answer(first)
    ok(button(first, "Accept").click().run())  # stale: would replace the Reject unseen
    sql = "select decision from reviews where annotator = 'alice' order by id"
    assert _rows(path, sql) == [("reject",)]
    assert any("another tab" in e and "'Reject'" in e for e in _errors(first))
    assert _shown_question(first) == qid  # the page shows it again, with the Reject stored
    _answer(first)
    ok(button(first, "Accept").click().run())  # now a knowing change: stored
    assert _rows(path, sql) == [("reject",), ("accept",)]
    assert not _errors(first)
    ok(button(second, "Skip").click().run())  # the second tab still shows its Reject: refused
    assert _rows(path, sql) == [("reject",), ("accept",)]
    assert any("Skip on" in e and "'Accept'" in e for e in _errors(second)), _errors(second)


def test_a_second_disputes_tab_does_not_overwrite_the_resolution_given_in_the_first(
    fixture_db: tuple[Path | str, dict[str, Any]],  # noqa: F811
) -> None:
    path, _ = fixture_db
    first, second = ok(page(DISPUTES)), ok(page(DISPUTES))
    keys = {unescaped(b.label): b.proto.shortcut for b in first.button}
    assert (keys["Ref. wrong"], keys["Skip"]) == ("1", "s")
    ok(button(second, "Model wrong").click().run())
    sql = "select dispute_id, resolution from dispute_resolutions where annotator = 'alice'"
    stored = _rows(path, sql)
    assert [r for _, r in stored] == ["model_wrong"]
    ok(button(first, "Ref. wrong").click().run())
    assert _rows(path, sql) == stored
    assert any("another tab" in e and "'model wrong'" in e for e in _errors(first)), _errors(first)
    ok(button(first, "Skip").click().run())  # the page now shows the next dispute: stored
    after = _rows(path, sql)
    assert after[:1] == stored and after[1][1] == "skipped" and after[1][0] != stored[0][0]
