"""Stored skips and a real undo on reviews and disputes (issue 12).

A skip is a row of its own (decision / resolution ``skipped``), an undo a row ``withdrawn``
superseding the annotator's latest review, resolution or skip. Neither is a label: the checks
below read the tables with their own SQL and the label readers (human_labels, disagreements,
gold, the Team table) to see that nothing counts them as one.
"""

from __future__ import annotations

import dataclasses
import sqlite3

import psycopg
import pytest
from reviewing import submit_review

from core.annotation.adjudication import disagreements
from core.annotation.disputes import (
    dispute_progress,
    dispute_queue,
    resolve_dispute,
    skip_dispute,
    withdraw_last_resolution,
)
from core.annotation.gold import gold_labels
from core.annotation.identity import sign_in_open, sign_in_token
from core.annotation.reviews import (
    review_progress,
    review_queue,
    skip_review,
    withdraw_last_review,
)
from core.annotation.tasks import human_labels, next_items
from core.errors import AccessError, InputError
from core.store.accounts import create_account
from core.store.database import open_db
from core.store.questions import QuestionStatus, update_question
from core.store.settings import set_setting
from core.views.team import team_table

QS = ["gen-0", "gen-1", "gen-2", "gen-3"]  # seeded order (seed 0): gen-3, gen-1, gen-2, gen-0


@pytest.fixture
def fdb(fixture_db):
    db_path, ids = fixture_db
    db = open_db(db_path)
    set_setting(db, "queue_seed", 0)
    yield db, ids, db_path
    db.conn.close()


def trigger_error(db) -> type[Exception]:
    """What a refusing trigger raises on this database: SQLite's ``raise(abort)`` an
    IntegrityError, the PL/pgSQL function of the PostgreSQL dialect a RaiseException."""
    return sqlite3.IntegrityError if db.dialect.name == "sqlite" else psycopg.errors.RaiseException


def _status(db, qid: str) -> str:
    return db["questions"].get(qid)["status"]


def _rows(db, table: str) -> list[tuple]:
    col = "decision" if table == "reviews" else "resolution"
    return db.execute(f"select annotator, {col}, supersedes from {table} order by id").fetchall()


def test_review_skip_is_stored_not_done_and_last_in_my_queue_only(fdb):
    db, _, path = fdb
    alice = sign_in_open(db, "alice")
    assert review_queue(db, "alice", QS) == ["gen-3", "gen-1", "gen-2", "gen-0"]
    skip_review(db, "gen-3", alice)
    assert _rows(db, "reviews") == [("alice", "skipped", None)]
    assert review_queue(db, "alice", QS) == ["gen-1", "gen-2", "gen-0", "gen-3"]
    assert review_queue(db, "bob", QS) == ["gen-3", "gen-1", "gen-2", "gen-0"]  # mine only
    progress = review_progress(db, "alice", QS)
    assert (progress.done, progress.skipped, str(progress)) == (0, 1, "0 of 4 done, 1 skipped")
    assert _status(db, "gen-3") == "pending"  # a skip is no review
    # it survives a new connection (a reload, a new session)
    again = open_db(path)
    try:
        assert review_queue(again, "alice", QS)[-1] == "gen-3"
        assert review_progress(again, "alice", QS).skipped == 1
    finally:
        again.conn.close()
    # reviewing the skipped question supersedes the skip: done, no longer skipped
    submit_review(db, "gen-3", alice, "accept")
    assert _rows(db, "reviews")[-1] == ("alice", "accept", 1)
    progress = review_progress(db, "alice", QS)
    assert (progress.done, progress.skipped) == (1, 0)
    with pytest.raises(InputError, match="unknown question"):
        skip_review(db, "nope", alice)


def test_review_undo_withdraws_and_recomputes_the_status(fdb):
    db, _, _ = fdb
    alice, bob = sign_in_open(db, "alice"), sign_in_open(db, "bob")
    update_question(db, "gen-0", status=QuestionStatus.ACCEPTED)  # e.g. imported as accepted
    submit_review(db, "gen-0", alice, "reject")
    submit_review(db, "gen-0", bob, "edit", edited_question="Better?")
    assert _status(db, "gen-0") == "disputed"  # a tie waits for an adjudicator
    undone = withdraw_last_review(db, bob)
    assert (undone.item, undone.label, undone.status, undone.was_skip) == (
        "gen-0",
        "edit",
        "rejected",
        False,
    )
    assert _status(db, "gen-0") == "rejected"  # alice's review is the one left
    assert _rows(db, "reviews")[-1] == ("bob", "withdrawn", 2)
    assert withdraw_last_review(db, alice).status == "accepted"  # back to its pre-review status
    assert _status(db, "gen-0") == "accepted"
    assert withdraw_last_review(db, alice) is None  # nothing left to undo
    assert "gen-0" in review_queue(db, "alice", QS)
    assert human_labels(db, "review") == []
    # the status before the first review is kept across later reviews
    submit_review(db, "gen-0", alice, "reject")
    submit_review(db, "gen-0", alice, "accept")
    withdraw_last_review(db, alice)
    assert _status(db, "gen-0") == "accepted"
    submit_review(db, "gen-1", alice, "reject")
    assert withdraw_last_review(db, alice).status == "pending"


def test_undo_takes_back_my_latest_skip(fdb):
    db, ids, _ = fdb
    alice = sign_in_open(db, "alice")
    submit_review(db, "gen-1", alice, "accept")
    skip_review(db, "gen-3", alice)
    undone = withdraw_last_review(db, alice)
    assert (undone.item, undone.was_skip) == ("gen-3", True)
    assert review_progress(db, "alice", QS).skipped == 0
    assert review_queue(db, "alice", QS) == ["gen-3", "gen-2", "gen-0"]  # back in its place
    assert _status(db, "gen-1") == "accepted"  # the earlier review is untouched
    d = ids["disputes"][0]
    resolve_dispute(db, d, alice, "model_wrong")
    skip_dispute(db, ids["disputes"][1], alice)
    assert withdraw_last_resolution(db, alice).was_skip
    assert withdraw_last_resolution(db, alice).label == "model_wrong"
    assert withdraw_last_resolution(db, alice) is None


def test_skipping_my_own_review_takes_it_back(fdb):
    db, _, _ = fdb
    alice = sign_in_open(db, "alice")
    submit_review(db, "gen-2", alice, "reject")
    skip_review(db, "gen-2", alice)
    assert _status(db, "gen-2") == "pending"
    assert human_labels(db, "review")[0]["status"] == "skipped"


def test_nobody_can_undo_someone_elses(fdb):
    db, ids, _ = fdb
    alice, bob = sign_in_open(db, "alice"), sign_in_open(db, "bob")
    submit_review(db, "gen-0", alice, "accept")
    skip_review(db, "gen-1", alice)
    resolve_dispute(db, ids["disputes"][0], alice, "ambiguous")
    assert withdraw_last_review(db, bob) is None
    assert withdraw_last_resolution(db, bob) is None
    before = _rows(db, "reviews"), _rows(db, "dispute_resolutions")
    # once accounts exist: bob's token cannot be turned into alice, and alice's old open-mode
    # sign-in (a bare name) can neither undo nor skip; nothing is written
    token = create_account(db, "bob")
    real_bob = sign_in_token(db, token)
    with pytest.raises(AccessError):
        dataclasses.replace(real_bob, name="alice")
    for undo in (withdraw_last_review, withdraw_last_resolution):
        with pytest.raises(AccessError):
            undo(db, alice)
    with pytest.raises(AccessError):
        skip_review(db, "gen-2", alice)
    with pytest.raises(AccessError):
        skip_dispute(db, ids["disputes"][1], alice)
    assert withdraw_last_review(db, real_bob) is None
    assert withdraw_last_resolution(db, real_bob) is None
    assert (_rows(db, "reviews"), _rows(db, "dispute_resolutions")) == before
    # and the database refuses a hand-written withdrawal of alice's row by bob
    with pytest.raises(trigger_error(db), match="superseded by its own annotator"):
        db.execute(
            "insert into reviews (question_id, annotator, decision, supersedes, created_at) "
            "values ('gen-0', 'bob', 'withdrawn', 1, 'now')"
        )


def test_dispute_skip_stored_not_done_last_and_no_resolution(fdb):
    db, ids, _ = fdb
    alice = sign_in_open(db, "alice")
    ds = ids["disputes"]
    assert dispute_queue(db, "alice", ds) == [3, 2, 1]
    skip_dispute(db, 3, alice)
    assert _rows(db, "dispute_resolutions") == [("alice", "skipped", None)]
    assert dispute_queue(db, "alice", ds) == [2, 1, 3]
    assert dispute_queue(db, "bob", ds) == [3, 2, 1]
    p = dispute_progress(db, "alice", ds)
    assert (p.done, p.skipped) == (0, 1)
    resolve_dispute(db, 3, alice, "both_acceptable")  # supersedes the skip
    p = dispute_progress(db, "alice", ds)
    assert (p.done, p.skipped) == (1, 0)
    with pytest.raises(InputError, match="unknown dispute"):
        skip_dispute(db, 999, alice)


def test_skips_and_withdrawals_are_no_labels_anywhere(fdb):
    db, ids, _ = fdb
    set_setting(db, "annotations_per_item", 2)
    alice, bob = sign_in_open(db, "alice"), sign_in_open(db, "bob")
    # review: alice accepts, bob skips; alice also rejects gen-1 then withdraws it
    submit_review(db, "gen-0", alice, "accept")
    skip_review(db, "gen-0", bob)
    submit_review(db, "gen-1", alice, "reject")
    submit_review(db, "gen-1", bob, "accept")
    withdraw_last_review(db, alice)  # takes back alice's reject of gen-1 (her latest)
    labels = human_labels(db, "review")
    assert [(r["item"], r["annotator"], r["label"], r["status"]) for r in labels] == [
        ("gen-0", "alice", "accept", "ok"),
        ("gen-0", "bob", None, "skipped"),
        ("gen-1", "bob", "accept", "ok"),
    ]
    assert disagreements(db, "review") == []  # a skip or a withdrawn reject disagrees with nobody
    assert gold_labels(db, "review") == {}
    # disputes: the same
    d1, d2 = ids["disputes"][:2]
    resolve_dispute(db, d1, alice, "model_wrong")
    skip_dispute(db, d1, bob)
    resolve_dispute(db, d2, bob, "ambiguous")
    resolve_dispute(db, d2, alice, "reference_wrong", corrected_answer="X")
    withdraw_last_resolution(db, alice)
    labels = human_labels(db, "disputes")
    assert [(r["item"], r["annotator"], r["label"], r["status"]) for r in labels] == [
        (str(d1), "alice", "model_wrong", "ok"),
        (str(d1), "bob", None, "skipped"),
        (str(d2), "bob", "ambiguous", "ok"),
    ]
    assert disagreements(db, "disputes") == []
    # the queues' label counts leave skips out
    counts = {e["key"]: e["labels"] for e in next_items(db, "carol", "review")}
    assert counts.get("gen-0") == 1


def test_team_table_counts_skips_per_annotator(fdb):
    db, ids, _ = fdb
    alice, bob = sign_in_open(db, "alice"), sign_in_open(db, "bob")
    skip_review(db, "gen-0", alice)
    skip_review(db, "gen-1", alice)
    submit_review(db, "gen-2", alice, "accept")
    skip_review(db, "gen-3", bob)
    withdraw_last_review(db, bob)  # an undone skip is no skip
    skip_dispute(db, ids["disputes"][0], bob)
    review = team_table(db, "review").set_index("annotator")
    assert (review.loc["alice", "done"], review.loc["alice", "skipped"]) == (1, 2)
    assert "bob" not in review.index  # his only review-task row, a skip, was undone
    # skipped questions are still in alice's queue (at its end): remaining counts them
    n = len(review_queue(db, "alice", ids["questions"]))
    assert review.loc["alice", "remaining"] == n and n >= 2
    disputes = team_table(db, "disputes").set_index("annotator")
    assert (disputes.loc["bob", "done"], disputes.loc["bob", "skipped"]) == (0, 1)
