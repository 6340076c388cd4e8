"""A page that loaded an item before another tab labelled it stores nothing and says what is
stored (the person's own label never overwritten unseen); review ties go to adjudication."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from bound_sql import run_sql

from core.annotation.base import StaleLabelError, repeated_press
from core.annotation.identity import sign_in_open
from core.annotation.pairwise import (
    blind_item,
    skip_item,
    submit_verdict,
    undo_last,
    verdict_queue,
)
from core.store.database import open_db
from core.store.engine import Database


@pytest.fixture
def db(fixture_db: tuple[Path | str, dict]) -> Iterator[Database]:
    db_path, _ = fixture_db
    db = open_db(db_path)
    yield db
    db.conn.close()


def _count(db: Database, rater: str) -> int:
    sql = "select count(*) from judgments where rater = :rater"
    return int(run_sql(db, sql, rater=rater).fetchone()[0])


def test_a_second_tab_never_overwrites_a_verdict_silently(db: Database) -> None:
    alice = sign_in_open(db, "alice")
    key = verdict_queue(db, "alice")[0]
    first_tab, second_tab = blind_item(db, key, "alice"), blind_item(db, key, "alice")
    assert first_tab["label_id"] is None
    jid = submit_verdict(db, second_tab, alice, "A", expected_last_id=second_tab["label_id"])
    with pytest.raises(StaleLabelError, match="another tab.*'A better'.*nothing was stored"):
        submit_verdict(db, first_tab, alice, "B", expected_last_id=first_tab["label_id"])
    with pytest.raises(StaleLabelError, match="nothing was stored"):
        skip_item(db, first_tab, alice, expected_last_id=first_tab["label_id"])
    assert _count(db, "human:alice") == 1
    reloaded = blind_item(db, key, "alice")  # the page reloaded: it sees the stored verdict
    assert reloaded["label_id"] == jid
    new = submit_verdict(db, reloaded, alice, "B", expected_last_id=reloaded["label_id"])
    row = db["judgments"].get(new)
    assert (row["verdict"], row["supersedes"]) == (
        "B",
        jid,
    )  # a change made knowingly supersedes the old verdict
    undo_last(db, alice)  # an undo in another tab is a change too
    with pytest.raises(StaleLabelError, match="an undo"):
        submit_verdict(db, reloaded, alice, "Equal", expected_last_id=new)
    submit_verdict(db, reloaded, alice, "Equal")  # a script (no expected id) is not checked


def test_a_review_tie_goes_to_adjudication_not_to_the_latest(db: Database) -> None:
    from reviewing import submit_review

    from core.annotation.adjudication import adjudicate, disagreements
    from core.annotation.identity import sign_in_token
    from core.store.accounts import create_account

    alice = sign_in_token(db, create_account(db, "alice"))
    bob = sign_in_token(db, create_account(db, "bob"))
    dan = sign_in_token(db, create_account(db, "dan"))
    carol = sign_in_token(db, create_account(db, "carol", "adjudicator"))
    qid, other = "gen-0", "gen-1"

    def status(q: str) -> str:
        return _status(db, q)

    submit_review(db, qid, alice, "accept")
    submit_review(db, qid, bob, "reject")  # one accept, one reject: neither wins
    assert status(qid) == "disputed"
    assert qid in {d["item"] for d in disagreements(db, "review", open_only=True)}
    submit_review(db, other, alice, "reject")
    submit_review(db, other, bob, "accept")
    submit_review(db, other, dan, "accept")  # a real majority still decides
    assert status(other) == "accepted"
    adjudicate(db, carol, "review", qid, "reject", "the answer is not in the text")
    assert status(qid) == "rejected"  # the settled decision is the status
    submit_review(db, qid, dan, "accept")  # a later review does not undo the settlement
    assert status(qid) == "rejected"
    assert qid not in {d["item"] for d in disagreements(db, "review", open_only=True)}


def _status(db: Database, question_id: str) -> str:
    """The question's stored status."""
    from core.store.questions import get_question

    q = get_question(db, question_id)
    assert q is not None
    return str(q.status)


def test_a_second_tab_never_overwrites_a_review_silently(db: Database) -> None:
    from reviewing import submit_review

    from core.annotation.reviews import (
        own_review_id,
        record_review,
        skip_review,
        withdraw_last_review,
    )

    alice = sign_in_open(db, "alice")
    qid = "gen-0"
    seen = own_review_id(db, qid, "alice")  # both tabs loaded the question: no review yet
    assert seen is None
    rid = submit_review(db, qid, alice, "reject", expected_last_id=seen)  # the second tab
    with pytest.raises(StaleLabelError, match="another tab.*'Reject'.*nothing was stored"):
        record_review(db, qid, alice, decision="accept", expected_last_id=seen)  # the first
    with pytest.raises(StaleLabelError, match="'Reject'.*nothing was stored"):
        skip_review(db, qid, alice, expected_last_id=seen)
    n = db.execute("select count(*) from reviews where annotator = 'alice'").fetchone()[0]
    assert n == 1 and _status(db, qid) == "rejected"
    seen = own_review_id(db, qid, "alice")  # the page reloaded: it sees the stored review
    assert seen == rid
    new = submit_review(db, qid, alice, "accept", expected_last_id=seen)
    row = db["reviews"].get(new)
    assert (row["decision"], row["supersedes"]) == (
        "accept",
        rid,
    )  # a change made knowingly supersedes the old review
    assert _status(db, qid) == "accepted"
    withdraw_last_review(db, alice)  # an undo in another tab is a change too
    with pytest.raises(StaleLabelError, match="an undo"):
        submit_review(db, qid, alice, "reject", expected_last_id=new)
    skip_review(db, qid, alice, expected_last_id=own_review_id(db, qid, "alice"))
    with pytest.raises(StaleLabelError, match="a skip"):
        submit_review(db, qid, alice, "reject", expected_last_id=new)
    assert _status(db, qid) == "pending"  # every refusal stored nothing
    submit_review(db, qid, alice, "reject")  # a script (no expected id) is not checked


def test_a_second_tab_never_overwrites_a_dispute_resolution_silently(db: Database) -> None:
    from core.annotation.disputes import (
        dispute_items,
        own_resolution_id,
        resolve_dispute,
        skip_dispute,
        withdraw_last_resolution,
    )

    alice = sign_in_open(db, "alice")
    did = dispute_items(db)[0]
    seen = own_resolution_id(db, did, "alice")
    assert seen is None
    rid = resolve_dispute(db, did, alice, "model_wrong", expected_last_id=seen)
    with pytest.raises(StaleLabelError, match="another tab.*'model wrong'.*nothing was stored"):
        resolve_dispute(db, did, alice, "reference_wrong", expected_last_id=seen)
    with pytest.raises(StaleLabelError, match="'model wrong'"):
        skip_dispute(db, did, alice, expected_last_id=seen)
    sql = "select resolution, supersedes from dispute_resolutions where annotator = 'alice'"
    assert [tuple(r) for r in db.execute(sql)] == [("model_wrong", None)]
    assert own_resolution_id(db, did, "alice") == rid
    new = resolve_dispute(db, did, alice, "ambiguous", expected_last_id=rid)
    assert [tuple(r) for r in db.execute(sql)][-1] == ("ambiguous", rid)
    withdraw_last_resolution(db, alice)
    with pytest.raises(StaleLabelError, match="an undo"):
        skip_dispute(db, did, alice, expected_last_id=new)
    assert len(db.execute(sql).fetchall()) == 3  # two resolutions and the undo
    resolve_dispute(db, did, alice, "ambiguous")  # a script (no expected id) is not checked


def test_a_refusal_met_by_this_pages_own_label_is_a_repeated_press(db: Database) -> None:
    """The refusal names the row stored now, so a page tells its own press a moment ago (a key
    pressed twice: said calmly) from another tab's change (the stale-tab message)."""
    alice = sign_in_open(db, "alice")
    key = verdict_queue(db, "alice")[0]
    shown = blind_item(db, key, "alice")  # the page drew the item's buttons
    jid = submit_verdict(db, shown, alice, "Equal", expected_last_id=shown["label_id"])
    with pytest.raises(StaleLabelError) as again:  # the same key again, on the same buttons
        submit_verdict(db, shown, alice, "Equal", expected_last_id=shown["label_id"])
    assert (again.value.now_id, again.value.stored) == (jid, "your verdict 'Equal'")
    calm = repeated_press(again.value, [jid])
    assert calm is not None and calm.startswith("Pressed again on the item just labelled")
    assert "your verdict 'Equal'" in calm and "nothing more was stored" in calm
    assert "another tab" not in calm and "Reload" not in calm
    assert repeated_press(again.value, []) is None  # this page stored nothing: another tab did
    assert repeated_press(again.value, [jid + 1]) is None
    assert "another tab or window stored your verdict 'Equal'" in str(again.value)
    assert _count(db, "human:alice") == 1
