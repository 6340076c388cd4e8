"""Browse is blind per role: an annotator sees other people's labels and system names only
for items they finished (or will never get); adjudicators and admins see everything."""

from __future__ import annotations

import pytest
from browser_support import SYSTEMS, build_fixture_db
from reviewing import submit_review

from core.annotation.identity import sign_in_token
from core.annotation.pairwise import blind_item, split_pair_key, submit_verdict, verdict_queue
from core.store.accounts import create_account
from core.store.database import open_db
from core.store.settings import update_setting
from core.views.blind import browse_view


@pytest.fixture
def team(db_path):
    path = db_path
    build_fixture_db(path)
    db = open_db(path)
    update_setting(db, "annotations_per_item", 2)
    people = {
        name: sign_in_token(db, create_account(db, name, role))
        for name, role in (
            ("alice", "annotator"),
            ("bob", "annotator"),
            ("carol", "adjudicator"),
            ("root", "admin"),
        )
    }
    yield db, people
    db.close()


def _shown(view) -> str:
    """Every rater and system name the Browse page would show."""
    parts = [a["system"] for a in view["answers"]]
    parts += [f"{j['rater']} {j['system_a']} {j['system_b']}" for j in view["pairwise"]]
    parts += [j["rater"] for j in view["human_verdicts"]]
    parts += [r["annotator"] for r in view["reviews"]]
    return " ".join(parts)


def test_an_item_in_my_queue_hides_other_people_and_system_names(team):
    db, p = team
    key = verdict_queue(db, "bob")[0]
    qid = split_pair_key(key)[0]
    submit_verdict(db, blind_item(db, key, "bob"), p["bob"], "A")
    submit_review(db, qid, p["bob"], decision="accept")
    assert key in verdict_queue(db, "alice")  # k = 2: it is alice's to label next

    alice = browse_view(db, qid, "alice", "annotator")
    shown = _shown(alice)
    assert "bob" not in shown and not any(s in shown for s in SYSTEMS), shown
    assert "auto:fixture-sxs" not in shown  # the auto-raters' verdicts on the pair too
    assert [a["system"] for a in alice["answers"]] == ["Answer 1", "Answer 2", "Answer 3"]
    assert key in alice["hidden_pairs"] and "Still in your queue" in alice["hidden_note"]
    # not signed in: every open item is hidden as well
    assert "bob" not in _shown(browse_view(db, qid, None, None))

    for who, role in (("carol", "adjudicator"), ("root", "admin")):
        full = browse_view(db, qid, who, role)
        shown = _shown(full)
        assert "human:bob" in shown and "bob" in [r["annotator"] for r in full["reviews"]]
        assert all(s in shown for s in SYSTEMS) and full["hidden_note"] == ""

    # once alice has labelled the pair, she sees bob's verdict on it
    submit_verdict(db, blind_item(db, key, "alice"), p["alice"], "B")
    after = browse_view(db, qid, "alice", "annotator")
    assert key not in after["hidden_pairs"]
    assert "human:bob" in [j["rater"] for j in after["human_verdicts"]]
    assert "bob" not in [r["annotator"] for r in after["reviews"]]  # her review is still to do
    submit_review(db, qid, p["alice"], decision="accept")
    done = browse_view(db, qid, "alice", "annotator")
    assert {"alice", "bob"} == {r["annotator"] for r in done["reviews"]}


def test_an_item_complete_without_me_is_shown(team):
    db, p = team
    key = verdict_queue(db, "bob")[0]
    qid = split_pair_key(key)[0]
    for who in ("bob", "carol"):  # k = 2 reached: it never reaches alice
        submit_verdict(db, blind_item(db, key, who), p[who], "A")
    view = browse_view(db, qid, "alice", "annotator")
    assert key not in view["hidden_pairs"]
    assert {"human:bob", "human:carol"} <= {j["rater"] for j in view["human_verdicts"]}


def test_the_verdict_grid_leaves_out_pairs_still_in_my_queue(team):
    from core.views.browse_grid import verdict_grid

    db, p = team
    key = verdict_queue(db, "alice")[0]
    qid, s1, s2 = split_pair_key(key)
    full = verdict_grid(db, qid)
    blind = verdict_grid(db, qid, (key,))
    pair_rows = {f"{s1} vs {s2}", f"{s2} vs {s1}"}
    assert pair_rows <= set(full["shown (A vs B)"])
    assert not pair_rows & set(blind["shown (A vs B)"]) and len(blind) == len(full) - 2


def test_open_mode_blinds_a_named_viewer_only(db_path):
    from core.annotation.identity import sign_in_open

    path = db_path
    build_fixture_db(path)
    db = open_db(path)
    try:
        update_setting(db, "annotations_per_item", 2)
        key = verdict_queue(db, "ann")[0]
        qid = split_pair_key(key)[0]
        submit_verdict(db, blind_item(db, key, "ann"), sign_in_open(db, "ann"), "A")
        assert key in browse_view(db, qid, "ben", "open")["hidden_pairs"]
        anyone = browse_view(db, qid, None, None)  # imported evaluations browse without sign-in
        assert anyone["hidden_pairs"] == () and "human:ann" in _shown(anyone)
    finally:
        db.close()
