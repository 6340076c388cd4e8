"""AppTest: blindness holds on every page an annotator reaches (issue 38, item 4). Agreement's
"Two raters in detail" and the Review page (also through ``?q=``) show an annotator no other
person's label on an item still in their own queue; an admin sees everything."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from browser_support import build_fixture_db, unescaped
from reviewing import submit_review
from streamlit.testing.v1 import AppTest

from core.annotation.identity import sign_in_token
from core.annotation.pairwise import blind_item, split_pair_key, submit_verdict, verdict_queue
from core.annotation.reviews import review_queue
from core.annotation.tasks import task_items
from core.store.accounts import create_account, reissue_token
from core.store.database import open_db
from core.store.questions import all_question_ids
from core.store.settings import update_setting

ROOT = Path(__file__).resolve().parents[2]
SECRET = "bob-only-note-7731"


@pytest.fixture
def team(db_path, monkeypatch):
    """alice, bob, carol (annotators) and root (admin); k = 3, so what bob and carol labelled
    stays in alice's queues. bob and carol gave the same three side-by-side items opposite
    verdicts; bob rejected the first question of alice's review queue."""
    build_fixture_db(db_path)
    monkeypatch.setenv("WORKBENCH_DB", str(db_path))
    db = open_db(db_path)
    update_setting(db, "annotations_per_item", 3)
    tokens = {n: create_account(db, n) for n in ("alice", "bob", "carol")}
    tokens["root"] = create_account(db, "root", "admin")
    bob = sign_in_token(db, tokens["bob"])
    carol = sign_in_token(db, tokens["carol"])
    for key in task_items(db, "side-by-side")[:3]:
        submit_verdict(db, blind_item(db, key, "bob"), bob, "A")
        submit_verdict(db, blind_item(db, key, "carol"), carol, "Equal")
    qid = review_queue(db, "alice", all_question_ids(db))[0]
    submit_review(db, qid, bob, "reject", note=SECRET)
    db.conn.close()
    return db_path, tokens, qid


def fresh(name: str) -> str:
    """A fresh sign-in token of ``name`` (a token works once)."""
    db = open_db(os.environ["WORKBENCH_DB"])
    try:
        return reissue_token(db, name)
    finally:
        db.conn.close()


def opened(path: str, token: str, **params: str) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=90)
    at.query_params["token"] = token
    at.run()
    at.switch_page(path)
    for k, v in params.items():
        at.query_params[k] = v
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _shown(at: AppTest) -> str:
    parts = [unescaped(str(e.value)) for e in [*at.markdown, *at.caption, *at.info, *at.metric]]
    parts += [str(df.value.to_dict()) for df in at.dataframe]
    return " ".join(parts)


def _two_raters(token: str) -> AppTest:
    at = opened("pages/4_Agreement.py", token, section="Two raters in detail")
    boxes = {b.label: b for b in at.selectbox}
    boxes["Rater A"].set_value("human:bob").run()
    {b.label: b for b in at.selectbox}["Rater B"].set_value("human:carol").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_two_raters_in_detail_hides_colleagues_labels_on_my_queue(team):
    _, tokens, _ = team
    at = _two_raters(tokens["alice"])
    metrics = {m.label: m.value for m in at.metric}
    assert "Items in common" not in metrics, metrics
    assert "share no item you may see" in _shown(at)
    assert "3 shared item(s) left out" in _shown(at)
    admin = _two_raters(tokens["root"])
    assert {m.label: m.value for m in admin.metric}["Items in common"] == "3"
    db = open_db(os.environ["WORKBENCH_DB"])  # alice labels the first of the three: she sees it
    try:
        alice = sign_in_token(db, reissue_token(db, "alice"))
        key = task_items(db, "side-by-side")[0]
        submit_verdict(db, blind_item(db, key, "alice"), alice, "B")
        still_open = split_pair_key(key)[0] in {
            split_pair_key(k)[0] for k in verdict_queue(db, "alice")
        }
    finally:
        db.conn.close()
    at = _two_raters(fresh("alice"))
    assert {m.label: m.value for m in at.metric}["Items in common"] == "1"
    assert "2 shared item(s) left out" in _shown(at)
    names = " ".join(str(df.value.to_dict()) for df in at.dataframe)
    assert still_open and "names hidden" in names


def test_review_page_hides_colleagues_reviews_also_through_a_link(team):
    _, tokens, qid = team
    at = opened("pages/1_Review_questions.py", tokens["alice"], q=qid)
    shown = _shown(at)
    assert SECRET not in shown and "Reviews of this question" not in [s.value for s in at.subheader]
    assert "reject" not in " ".join(str(df.value.to_dict()) for df in at.dataframe)
    assert "hidden until you have reviewed it" in shown
    admin = opened("pages/1_Review_questions.py", tokens["root"], q=qid)
    assert SECRET in _shown(admin)


def test_a_question_status_is_no_side_channel(team):
    """A question's status is the majority of the reviews: while its review is in alice's queue,
    Browse does not show it, and the Review page offers no status filter to a blind reviewer."""
    _, tokens, qid = team
    at = opened("pages/6_Browse.py", tokens["alice"], q=qid)
    shown = " ".join(unescaped(str(e.value)) for e in [*at.markdown, *at.caption])
    assert "status rejected" not in shown and "hidden until you have reviewed it" in shown
    review = opened("pages/1_Review_questions.py", fresh("alice"))
    status = next(b for b in review.selectbox if b.label == "Status")
    assert status.options == ["(all)"] and status.disabled
    admin = opened("pages/1_Review_questions.py", tokens["root"])
    assert "rejected" in next(b for b in admin.selectbox if b.label == "Status").options


def test_the_leaderboard_offers_no_colleague_alone(team):
    """A ranking of one colleague's few verdicts shows their labels on items still in the
    viewer's queue: an annotator picks among auto-raters and their own verdicts only."""
    _, tokens, _ = team
    at = opened("pages/5_Leaderboard.py", tokens["alice"])
    raters = next(b for b in at.selectbox if b.label == "Rater").options
    assert not {"human:bob", "human:carol"} & set(raters), raters
    assert any(r.startswith("auto:") for r in raters)
    admin = opened("pages/5_Leaderboard.py", tokens["root"])
    assert {"human:bob", "human:carol"} <= set(
        next(b for b in admin.selectbox if b.label == "Rater").options
    )
