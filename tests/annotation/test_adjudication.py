"""Overlap-first queues, calibration, disagreements, adjudication, gold and agreement with gold."""

from __future__ import annotations

import pandas as pd
import pytest
from reviewing import submit_review
from sklearn.metrics import cohen_kappa_score

from core.annotation.adjudication import adjudicate, disagreements
from core.annotation.base import team_queue
from core.annotation.disputes import resolve_dispute, withdraw_last_resolution
from core.annotation.gold import gold_labels
from core.annotation.identity import sign_in_open, sign_in_token
from core.annotation.label_tasks.side_by_side import auto_pair_labels
from core.annotation.pairwise import blind_item, split_pair_key, submit_verdict, verdict_queue
from core.annotation.reviews import review_queue
from core.annotation.tasks import human_labels, next_items, task_items
from core.errors import AccessError, InputError
from core.store.accounts import create_account
from core.store.database import open_db
from core.store.settings import update_setting
from core.views.adjudication import adjudication_detail, adjudication_queue
from core.views.gold import MIN_ITEMS, gold_agreement, people_agreement
from core.views.team import team_table


@pytest.fixture
def fdb(fixture_db):
    db_path, ids = fixture_db
    db = open_db(db_path)
    yield db, ids
    db.conn.close()


def test_team_queue_orders_calibration_then_started_then_new():
    items = [f"i{n}" for n in range(8)]
    who = {"i3": {"bob"}, "i5": {"bob", "carol"}, "i6": {"alice"}}
    q = team_queue(items, who, "alice", k=3, seed=0)
    assert q[:2] == ["i5", "i3"]  # started by others, closest to complete first
    assert "i6" not in q and set(q[2:]) == set(items) - {"i3", "i5", "i6"}
    full = team_queue(items, who, "dave", k=2, seed=0)
    assert "i5" not in full  # k reached
    calib = team_queue(items, who, "dave", k=2, seed=0, calibration=8)
    assert set(calib) == set(items)  # calibration items go to everyone, whatever k
    assert team_queue(items, who, "alice", k=3, seed=0, last={"i5"})[0] == "i3"


def test_overlap_completes_before_new_items_open(fdb):
    db, ids = fdb
    update_setting(db, "annotations_per_item", 2)
    alice, bob = sign_in_open(db, "alice"), sign_in_open(db, "bob")
    # The fixture's side-by-side items come in this seeded order (sha256 of "0|<key>"); alice
    # labels the three that come last, and they move to the front of bob's queue.
    started = [
        '["gen-1","fixture-b","fixture-c"]',
        '["gen-0","fixture-b","fixture-c"]',
        '["nqa-1","fixture-b","fixture-c"]',
    ]
    assert verdict_queue(db, "alice")[-3:] == started
    for key in started:
        submit_verdict(db, blind_item(db, key, "alice"), alice, "A")
    bob_queue = verdict_queue(db, "bob")
    assert bob_queue[:3] == started and bob_queue[3:] == verdict_queue(db, "alice")
    qs = task_items(db, "review")
    assert review_queue(db, "bob", qs) == [
        "nqa-2",
        "nqa-0",
        "gen-3",
        "gen-1",
        "gen-2",
        "gen-0",
        "nqa-1",
    ]
    submit_review(db, "nqa-1", alice, "accept")  # the last of the seeded order, started
    assert review_queue(db, "bob", qs) == [
        "nqa-1",
        "nqa-2",
        "nqa-0",
        "gen-3",
        "gen-1",
        "gen-2",
        "gen-0",
    ]
    for key in started:
        submit_verdict(db, blind_item(db, key, "bob"), bob, "A")
    assert not set(started) & set(verdict_queue(db, "carol"))  # complete at k = 2
    update_setting(db, "calibration_items", len(task_items(db, "side-by-side")))
    assert set(started) <= set(verdict_queue(db, "carol"))  # calibration: everyone sees them
    out = next_items(db, "carol", "side-by-side", limit=2)
    assert out[0]["key"] in started and out[0]["labels"] == 2 and len(out) == 2
    assert out[0]["question_id"] == split_pair_key(out[0]["key"])[0]


def _label_pair(db, who, key, canonical):
    """Submit ``canonical`` (first/second/Equal/None) through the person's own A/B order."""
    item = blind_item(db, key, who.name)
    first = min(item["system_a"], item["system_b"])
    if canonical in ("Equal", "None"):
        verdict = canonical
    else:
        winner_is_a = (item["system_a"] == first) == (canonical == "first")
        verdict = "A" if winner_is_a else "B"
    return submit_verdict(db, item, who, verdict, f"{who.name} thinks {canonical}")


def test_disagreements_reach_the_adjudicator_who_settles_them(fdb):
    db, _ = fdb
    create_account(db, "root", "admin")
    alice = sign_in_token(db, create_account(db, "alice"))
    bob = sign_in_token(db, create_account(db, "bob"))
    carol = sign_in_token(db, create_account(db, "carol", "adjudicator"))
    keys = task_items(db, "side-by-side")[:6]
    a_labels = ["first", "second", "Equal", "first", "None", "second"]
    b_labels = ["first", "first", "Equal", "second", "None", "second"]
    for key, la, lb in zip(keys, a_labels, b_labels):
        _label_pair(db, alice, key, la)
        _label_pair(db, bob, key, lb)
    labels = {(r["annotator"], r["item"]): r["label"] for r in human_labels(db, "side-by-side")}
    assert [labels["alice", k] for k in keys] == a_labels  # A/B orders undone
    split = {d["item"] for d in disagreements(db, "side-by-side")}
    assert split == {keys[1], keys[3]}
    detail = adjudication_detail(db, "side-by-side", keys[1])
    assert set(detail["labels"]["annotator"]) == {"alice", "bob"}
    assert "alice thinks second" in set(detail["labels"]["rationale"])
    assert [t for t, _ in detail["texts"]] == ["Answer 1", "Answer 2"]
    assert adjudication_detail(db, "side-by-side", keys[0]) is None
    n = db["adjudications"].count
    with pytest.raises(AccessError, match="adjudicator role"):
        adjudicate(db, alice, "side-by-side", keys[1], "first")
    with pytest.raises(AccessError):
        adjudicate(db, "carol", "side-by-side", keys[1], "first")
    with pytest.raises(InputError, match="not in disagreement"):
        adjudicate(db, carol, "side-by-side", keys[0], "first")
    with pytest.raises(InputError, match="label must be"):
        adjudicate(db, carol, "side-by-side", keys[1], "A")
    assert db["adjudications"].count == n
    first = adjudicate(db, carol, "side-by-side", keys[1], "second", "B's reading is right")
    again = adjudicate(db, carol, "side-by-side", keys[1], "first")
    assert db["adjudications"].get(again)["supersedes"] == first
    adjudicate(db, carol, "side-by-side", keys[3], "second")
    assert [q["item"] for q in adjudication_queue(db, "side-by-side")] == []
    assert len(adjudication_queue(db, "side-by-side", include_settled=True)) == 2
    gold = gold_labels(db, "side-by-side")
    assert gold == {
        keys[0]: "first",
        keys[1]: "first",
        keys[2]: "Equal",
        keys[3]: "second",
        keys[4]: "None",
        keys[5]: "second",
    }
    # an adjudicator who labelled the item does not settle it
    root = sign_in_token(db, create_account(db, "dora", "admin"))
    _label_pair(db, root, keys[1], "None")
    with pytest.raises(InputError, match="yourself"):
        adjudicate(db, root, "side-by-side", keys[1], "None")
    with pytest.raises(Exception, match="append-only"):
        db.execute("update adjudications set label = 'None'")


def test_agreement_with_gold_matches_scikit_learn(fdb):
    db, _ = fdb
    alice, bob, carol, dan = (sign_in_open(db, n) for n in ("alice", "bob", "carol", "dan"))
    keys = task_items(db, "side-by-side")[:8]
    a = ["first", "second", "Equal", "first", "None", "second", "first", "first"]
    b = ["first", "first", "Equal", "second", "None", "second", "second", "first"]
    for key, la, lb in zip(keys, a, b):
        _label_pair(db, alice, key, la)
        _label_pair(db, bob, key, lb)
        _label_pair(db, dan, key, la if la == lb else "None")
    # every disagreement is settled, so each person's leave-one-out gold is the full gold
    for d in disagreements(db, "side-by-side"):
        adjudicate(db, carol, "side-by-side", d["item"], "second")
    gold = gold_labels(db, "side-by-side")
    g = [gold[k] for k in keys]
    table = gold_agreement(db, "side-by-side", n_boot=300).set_index("rater")
    assert table.loc["alice", "kappa"] == pytest.approx(round(cohen_kappa_score(a, g), 3))
    assert table.loc["bob", "kappa"] == pytest.approx(round(cohen_kappa_score(b, g), 3))
    assert table.loc["alice", "interval"] == ""  # 8 items: too few for an interval
    assert "too few items for an interval" in table.loc["alice", "note"]
    autos = auto_pair_labels(db)
    assert set(table[table["kind"] == "auto"].index) == set(autos) and autos
    for rater, labels in autos.items():
        # the auto-rater is scored on each person's items against that person's gold
        pairs = [(p, k) for p in (a, b, a) for k in keys if k in labels]
        row = table.loc[rater]
        if len({k for _, k in pairs}) < MIN_ITEMS:
            continue
        want = cohen_kappa_score([labels[k] for _, k in pairs], [gold[k] for _, k in pairs])
        assert row["kappa"] == pytest.approx(round(want, 3))
    pairs = people_agreement(db, "side-by-side", n_boot=300)
    assert pairs.iloc[0]["kappa"] == pytest.approx(round(cohen_kappa_score(a, b), 3))
    team = team_table(db, "side-by-side").set_index("annotator")
    assert team.loc["alice", "done"] == 8 and team.loc["alice", "overlap"] == 1.0
    assert team.loc["alice", "agree_others"] == pytest.approx(10 / 16, abs=0.01)


def test_too_few_items_says_so(fdb):
    db, _ = fdb
    alice, bob = sign_in_open(db, "alice"), sign_in_open(db, "bob")
    for key in task_items(db, "side-by-side")[: MIN_ITEMS - 2]:
        _label_pair(db, alice, key, "first")
        _label_pair(db, bob, key, "first")
    table = gold_agreement(db, "side-by-side", n_boot=50).set_index("rater")
    assert table.loc["alice", "note"].startswith("too few items")
    assert pd.isna(table.loc["alice", "kappa"]) and table.loc["alice", "interval"] == ""


def test_a_withdrawn_resolution_is_no_label(fdb):
    """An undo on the disputes screen takes a resolution back: neither it nor the withdrawal row
    counts as a label, so it makes no disagreement and no gold."""
    db, ids = fdb
    d = ids["disputes"][0]
    alice, bob, carol = (sign_in_open(db, n) for n in ("alice", "bob", "carol"))
    resolve_dispute(db, d, alice, "model_wrong")
    withdraw_last_resolution(db, alice)
    resolve_dispute(db, d, bob, "ambiguous")
    labels = human_labels(db, "disputes")
    assert [(r["item"], r["annotator"], r["label"]) for r in labels] == [
        (str(d), "bob", "ambiguous")
    ]
    assert disagreements(db, "disputes") == []
    resolve_dispute(db, d, carol, "ambiguous")
    assert gold_labels(db, "disputes") == {str(d): "ambiguous"}
