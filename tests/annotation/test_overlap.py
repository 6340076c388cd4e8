"""Overlap forms between team members: imported raters' labels do not count towards
``annotations_per_item``, so two annotators with k = 2 share their items."""

from __future__ import annotations

import csv

import pytest
from reviewing import submit_review

from core.annotation.identity import sign_in_open, sign_in_token
from core.annotation.pairwise import blind_item, split_pair_key, submit_verdict, verdict_queue
from core.annotation.reviews import review_queue
from core.annotation.tasks import task_items
from core.corpus.evaluations import read_plain_judgments, store_evaluation
from core.store.accounts import create_account
from core.store.database import open_db
from core.store.settings import update_setting


@pytest.fixture
def fdb(fixture_db, tmp_path):
    db_path, _ = fixture_db
    db = open_db(db_path)
    update_setting(db, "annotations_per_item", 2)
    yield db, tmp_path
    db.conn.close()


def import_crowd(db, tmp_path, items: list[str], per_item: int = 1) -> int:
    """Anonymous crowd verdicts (``human:crowd#`` slots) on ``items``, through the importer."""
    path = tmp_path / "crowd.csv"
    with open(path, "w", newline="", encoding="utf-8") as fh:
        out = csv.writer(fh)
        out.writerow(["question_id", "system_a", "system_b", "rater", "verdict"])
        for key in items:
            qid, s1, s2 = split_pair_key(key)
            for _ in range(per_item):
                out.writerow([qid, s1, s2, "human:crowd#", "A"])
    store_evaluation(db, read_plain_judgments(path))
    return db.execute("select count(*) from judgments where rater like 'human:crowd#%'").fetchone()[
        0
    ]


def label_first(db, who, n: int) -> list[str]:
    """``who`` labels the first item of their queue, ``n`` times; the items labelled."""
    done = []
    for _ in range(n):
        key = verdict_queue(db, who.name)[0]
        submit_verdict(db, blind_item(db, key, who.name), who, "A")
        done.append(key)
    return done


def test_imported_crowd_labels_do_not_complete_items_for_the_team(fdb):
    db, tmp = fdb
    items = task_items(db, "side-by-side")
    assert import_crowd(db, tmp, items[:12]) == 12  # one crowd label on 12 of 21 items
    alice = sign_in_token(db, create_account(db, "alice"))
    bob = sign_in_token(db, create_account(db, "bob"))
    mine = label_first(db, alice, 10)
    theirs = label_first(db, bob, 10)
    assert len(set(mine) & set(theirs)) == 10  # bob gets alice's items first (k = 2)
    # two crowd labels on an item do not take it out of the team's queues either
    rest = [i for i in items if i not in mine][:2]
    import_crowd(db, tmp, rest, per_item=2)
    assert set(rest) <= set(verdict_queue(db, "carol"))


def test_in_open_mode_labels_made_in_the_app_count_and_imported_ones_do_not(fdb):
    db, tmp = fdb
    items = task_items(db, "side-by-side")
    import_crowd(db, tmp, items, per_item=2)  # every item "complete" by imported labels alone
    ann, ben = sign_in_open(db, "ann"), sign_in_open(db, "ben")
    assert len(verdict_queue(db, "ann")) == len(items)
    mine = label_first(db, ann, 5)
    assert label_first(db, ben, 5) == mine


def test_a_review_by_someone_without_an_account_does_not_count_once_accounts_exist(fdb):
    db, _ = fdb
    qids = [r[0] for r in db.execute("select id from questions order by id")]
    early = sign_in_open(db, "early")  # open mode, before any account
    for qid in qids:
        submit_review(db, qid, early, decision="accept")
    alice = sign_in_token(db, create_account(db, "alice"))
    assert review_queue(db, "bob", qids, k=1) == review_queue(db, "bob", qids, k=1)
    assert set(review_queue(db, "bob", qids, k=1)) == set(qids)  # early's reviews do not count
    submit_review(db, qids[0], alice, decision="accept")
    assert qids[0] not in review_queue(db, "bob", qids, k=1)


def test_team_page_and_adjudication_list_show_the_team_and_imported_raters_apart(fdb):
    from core.annotation.adjudication import disagreements
    from core.views.adjudication import adjudication_detail
    from core.views.team import team_view

    db, tmp = fdb
    items = task_items(db, "side-by-side")
    import_crowd(db, tmp, items)  # the crowd says A everywhere
    alice = sign_in_token(db, create_account(db, "alice"))
    bob = sign_in_token(db, create_account(db, "bob"))
    mine = label_first(db, alice, 2)  # alice: A (agrees with the crowd)
    key = verdict_queue(db, "bob")[0]
    assert key == mine[0]
    submit_verdict(db, blind_item(db, key, "bob"), bob, "Equal")
    found = disagreements(db, "side-by-side")
    assert [d["item"] for d in found] == [key]  # alice vs crowd alone is no disagreement
    detail = adjudication_detail(db, "side-by-side", key)
    assert set(detail["labels"]["annotator"]) == {"alice", "bob"}
    assert list(detail["imported"]["imported rater"]) == ["crowd#1"]
    view = team_view(db, "side-by-side")
    assert set(view["table"]["annotator"]) == {"alice", "bob"}
    assert list(view["imported"]["rater"]) == ["crowd#1"]
    assert view["overlap"]["started"] == 2 and view["overlap"]["complete"] == 1


def test_queue_json_counts_team_labels_only(fdb):
    from core.annotation.tasks import next_items

    db, tmp = fdb
    items = task_items(db, "side-by-side")
    import_crowd(db, tmp, items, per_item=2)
    alice = sign_in_token(db, create_account(db, "alice"))
    key = label_first(db, alice, 1)[0]
    listed = next_items(db, "bob", "side-by-side", limit=len(items))
    assert listed[0]["key"] == key and listed[0]["labels"] == 1
    assert {i["labels"] for i in listed[1:]} == {0}
