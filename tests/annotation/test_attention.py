"""Attention checks: settled items mixed into each queue every N-th entry (setting
``attention_every``), and each person's accuracy on them (Team page)."""

from __future__ import annotations

import pytest
from reviewing import submit_review

from core.annotation.adjudication import adjudicate
from core.annotation.attention import attention_accuracy
from core.annotation.identity import sign_in_token
from core.annotation.pairwise import blind_item, submit_verdict, verdict_progress, verdict_queue
from core.annotation.reviews import review_queue
from core.annotation.tasks import task_items
from core.errors import InputError
from core.store.accounts import create_account
from core.store.adjudications import Adjudication
from core.store.database import open_db
from core.store.settings import get_setting, update_setting
from core.views.team import team_table


@pytest.fixture
def team(fixture_db):
    db_path, _ = fixture_db
    db = open_db(db_path)
    create_account(db, "root", "admin")
    people = {
        n: sign_in_token(db, create_account(db, n, "adjudicator" if n == "carol" else "annotator"))
        for n in ("alice", "bob", "carol", "dan")
    }
    yield db, people
    db.conn.close()


def _canonical(db, who, key, canonical):
    item = blind_item(db, key, who.name)
    first = min(item["system_a"], item["system_b"])
    verdict = canonical
    if canonical in ("first", "second"):
        verdict = "A" if (item["system_a"] == first) == (canonical == "first") else "B"
    return submit_verdict(db, item, who, verdict)


def test_settled_items_are_mixed_into_queues_and_scored(team):
    db, p = team
    keys = task_items(db, "side-by-side")[:2]
    for key in keys:  # alice and bob disagree; carol settles "first"
        _canonical(db, p["alice"], key, "first")
        _canonical(db, p["bob"], key, "second")
        adjudicate(db, p["carol"], "side-by-side", key, "first")
    plain = verdict_queue(db, "dan")
    assert not set(keys) & set(plain)  # complete at k = 1: no longer in dan's queue
    update_setting(db, "attention_every", 3)
    mixed = verdict_queue(db, "dan")
    assert [k for k in mixed if k not in keys] == plain  # the rest in its order
    assert {mixed[2], mixed[5]} == set(keys) and len(mixed) == len(plain) + 2  # every 3rd
    assert verdict_queue(db, "dan") == mixed  # reproducible
    assert not set(keys) & set(verdict_queue(db, "alice"))  # she labelled them already
    assert not set(keys) & set(verdict_queue(db, "carol"))  # she settled them
    progress = verdict_progress(db, "dan")
    assert progress.remaining == len(mixed)  # the progress counts the checks too
    _canonical(db, p["dan"], keys[0], "first")  # right
    _canonical(db, p["dan"], keys[1], "Equal")  # wrong
    assert not set(keys) & set(verdict_queue(db, "dan"))  # done: out of the queue
    table = team_table(db).set_index("annotator")
    assert table.loc["dan", "attention"] == "1/2"
    assert table.loc["alice", "attention"] == ""  # her labels came before the settlement
    qs = task_items(db, "review")
    update_setting(db, "attention_every", 0)
    assert review_queue(db, "dan", qs) == review_queue(db, "dan", qs)


def test_attention_accuracy_counts_only_labels_after_the_settlement():
    known = {
        "x": Adjudication(
            id=1,
            task="review",
            item_key="x",
            label="accept",
            adjudicator="carol",
            created_at="2026-01-02",
        )
    }
    labels = [
        {
            "item": "x",
            "annotator": "alice",
            "label": "reject",
            "status": "ok",
            "created_at": "2026-01-01",
        },
        {
            "item": "x",
            "annotator": "dan",
            "label": "accept",
            "status": "ok",
            "created_at": "2026-01-03",
        },
        {
            "item": "x",
            "annotator": "eve",
            "label": "reject",
            "status": "ok",
            "created_at": "2026-01-03",
        },
        {
            "item": "x",
            "annotator": "fay",
            "label": None,
            "status": "skipped",
            "created_at": "2026-01-03",
        },
        {
            "item": "y",
            "annotator": "dan",
            "label": "accept",
            "status": "ok",
            "created_at": "2026-01-03",
        },
    ]
    assert attention_accuracy(labels, known) == {"dan": (1, 1), "eve": (0, 1)}


def test_review_queue_gets_checks_too(team):
    db, p = team
    qid = task_items(db, "review")[0]
    submit_review(db, qid, p["alice"], "accept")
    submit_review(db, qid, p["bob"], "reject")
    adjudicate(db, p["carol"], "review", qid, "accept")
    update_setting(db, "attention_every", 1)
    assert qid in review_queue(db, "dan", task_items(db, "review"))
    assert qid not in review_queue(db, "alice", task_items(db, "review"))


def _settle(db, p, keys):
    for key in keys:  # alice and bob disagree; carol settles "first"
        _canonical(db, p["alice"], key, "first")
        _canonical(db, p["bob"], key, "second")
        adjudicate(db, p["carol"], "side-by-side", key, "first")


def test_a_person_labelling_the_head_of_the_queue_meets_every_third_item_a_check(team):
    """The pages serve the head of the queue, recomputed after each label: the checks must come
    to the head (the old mix kept the first one third from the head, never served)."""
    db, p = team
    keys = task_items(db, "side-by-side")[:5]
    _settle(db, p, keys)
    update_setting(db, "attention_every", 3)
    served = []
    for _ in range(13):
        head = verdict_queue(db, "dan")[0]
        served.append(head)
        _canonical(db, p["dan"], head, "first")
    assert [i for i, key in enumerate(served) if key in keys] == [2, 5, 8, 11]
    assert len(set(served)) == 13
    assert team_table(db).set_index("annotator").loc["dan", "attention"] == "4/4"
    # 13 labels given: the 15th is the next check, second in the queue (the last one left)
    [left] = set(keys) - set(served)
    assert [k in keys for k in verdict_queue(db, "dan")[:3]] == [False, True, False]
    assert verdict_queue(db, "dan")[1] == left


def test_checks_come_by_labels_given_on_review_too(team):
    db, p = team
    qids = task_items(db, "review")
    for qid in qids[:2]:
        submit_review(db, qid, p["alice"], "accept")
        submit_review(db, qid, p["bob"], "reject")
        adjudicate(db, p["carol"], "review", qid, "accept")
    update_setting(db, "attention_every", 2)
    served = []
    for _ in range(4):
        head = review_queue(db, "dan", task_items(db, "review"))[0]
        served.append(head)
        submit_review(db, head, p["dan"], "accept")
    assert [i for i, qid in enumerate(served) if qid in qids[:2]] == [1, 3]


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("attention_every", "99999999999999999", "attention_every must be at most 1,000"),
        ("calibration_items", "10001", "calibration_items must be at most 10,000"),
        ("annotations_per_item", "101", "annotations_per_item must be at most 100"),
    ],
)
def test_a_setting_beyond_any_team_is_refused_not_stored(team, key, value, message):
    """A number no team means (every 10^17-th label a check) is a slip, refused in one line;
    the stored value stays as it was."""
    db = team[0]
    before = get_setting(db, key, "unset")
    with pytest.raises(InputError, match=message):
        update_setting(db, key, value)
    assert get_setting(db, key, "unset") == before
