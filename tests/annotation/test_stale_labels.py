"""A page that loaded an item before another tab labelled it stores nothing and says what is
stored (the person's own label never overwritten unseen); review ties go to adjudication."""

from __future__ import annotations

import pytest
from browser_support import build_fixture_db

from core.annotation.identity import sign_in_open
from core.annotation.pairwise import (
    StaleLabelError,
    blind_item,
    skip_item,
    submit_verdict,
    undo_last,
    verdict_queue,
)
from core.store.database import open_db


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "s.db"
    build_fixture_db(path)
    db = open_db(path)
    yield db
    db.conn.close()


def _count(db, rater: str) -> int:
    return db.execute("select count(*) from judgments where rater = ?", [rater]).fetchone()[0]


def test_a_second_tab_never_overwrites_a_verdict_silently(db):
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
    row = db.execute("select verdict, supersedes from judgments where id = ?", [new]).fetchone()
    assert tuple(row) == ("B", jid)  # a change made knowingly supersedes the old verdict
    undo_last(db, alice)  # an undo in another tab is a change too
    with pytest.raises(StaleLabelError, match="an undo"):
        submit_verdict(db, reloaded, alice, "Equal", expected_last_id=new)
    submit_verdict(db, reloaded, alice, "Equal")  # a script (no expected id) is not checked


def test_a_review_tie_goes_to_adjudication_not_to_the_latest(db):
    from core.annotation.adjudication import adjudicate, disagreements
    from core.annotation.identity import sign_in_token
    from core.annotation.reviews import submit_review
    from core.store.accounts import create_account
    from core.store.questions import get_question

    alice = sign_in_token(db, create_account(db, "alice"))
    bob = sign_in_token(db, create_account(db, "bob"))
    dan = sign_in_token(db, create_account(db, "dan"))
    carol = sign_in_token(db, create_account(db, "carol", "adjudicator"))
    qid, other = "gen-0", "gen-1"

    def status(q: str) -> str:
        return get_question(db, q).status

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
