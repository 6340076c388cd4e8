"""Human labels: append-only with supersedes, queues with k annotations and seeded order."""

from __future__ import annotations

import sqlite3

import pytest
from browser_support import build_fixture_db

from core.annotation.base import required_annotations, seeded_order
from core.annotation.disputes import dispute_progress, dispute_queue, resolve_dispute
from core.annotation.identity import sign_in_open
from core.annotation.pairwise import (
    blind_item,
    identical_items,
    pairwise_items,
    same_text,
    skip_item,
    split_pair_key,
    submit_verdict,
    undo_last,
    verdict_progress,
    verdict_queue,
)
from core.annotation.reviews import effective_reviews, review_progress, review_queue, submit_review
from core.errors import InputError
from core.store.database import open_db
from core.store.settings import set_setting


@pytest.fixture
def fdb(tmp_path):
    path = tmp_path / "a.db"
    ids = build_fixture_db(path)
    db = open_db(path)
    yield db, ids
    db.conn.close()


def test_review_supersedes_own_and_keeps_original(fdb):
    db, ids = fdb
    q = ids["generated"][0]
    first = submit_review(
        db, q, sign_in_open(db, "alice"), "accept", checklist={"answerable": True}
    )
    second = submit_review(
        db, q, sign_in_open(db, "alice"), "edit", edited_question="Better question?"
    )
    other = submit_review(db, q, sign_in_open(db, "bob"), "edit", edited_answer="A fix.")
    rows = {r["id"]: r for r in db.query("select * from reviews")}
    assert rows[second]["supersedes"] == first and rows[other]["supersedes"] is None
    eff = effective_reviews(db, q)
    assert [r["id"] for r in eff] == [second, other]
    original = db.execute("select question, status from questions where id = ?", [q]).fetchone()
    assert "Fixture question" in original[0] and original[1] == "edited"
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        db.execute("update reviews set decision = 'reject' where id = ?", [first])
    with pytest.raises(InputError, match="needs an edited question or a corrected answer"):
        submit_review(db, q, sign_in_open(db, "alice"), "edit")  # an edit needs a text
    with pytest.raises(InputError, match="Accept is refused.*not answerable"):
        submit_review(db, q, sign_in_open(db, "alice"), "accept", checklist={"answerable": False})
    assert len(effective_reviews(db, q)) == 2  # refused: nothing was written
    with pytest.raises(InputError):
        submit_review(db, q, sign_in_open(db, "alice"), "maybe")


def test_review_queue_k_annotations_and_progress(fdb):
    db, ids = fdb
    qs = ids["generated"]
    set_setting(db, "annotations_per_item", 2)
    assert required_annotations(db) == 2
    queue = review_queue(db, "alice", qs)
    assert sorted(queue) == sorted(qs) and queue == seeded_order(qs, 0)
    submit_review(db, queue[0], sign_in_open(db, "alice"), "accept")
    assert queue[0] not in review_queue(db, "alice", qs)
    assert queue[0] in review_queue(db, "bob", qs)  # still needs a 2nd label
    submit_review(db, queue[0], sign_in_open(db, "bob"), "reject")
    assert queue[0] not in review_queue(db, "carol", qs)  # k reached
    assert str(review_progress(db, "alice", qs)) == f"1 of {len(qs)} done"
    set_setting(db, "queue_seed", 5)
    assert review_queue(db, "dave", qs) == seeded_order([q for q in qs if q != queue[0]], 5)


def test_verdict_order_is_seeded_per_annotator_and_stored(fdb):
    db, _ = fdb
    items = pairwise_items(db)
    assert len(items) == 7 * 3
    orders = {blind_item(db, k, "alice")["order_shown"] for k in items}
    assert orders == {"ab", "ba"}
    item = blind_item(db, items[0], "alice")
    assert item == blind_item(db, items[0], "alice")  # reproducible
    assert (item["system_a"] < item["system_b"]) == (item["order_shown"] == "ab")
    jid = submit_verdict(db, item, sign_in_open(db, "alice"), "A", "clearer")
    row = next(db.query("select * from judgments where id = ?", [jid]))
    assert (row["rater"], row["rater_kind"], row["system_a"], row["order_shown"]) == (
        "human:alice",
        "human",
        item["system_a"],
        item["order_shown"],
    )
    again = submit_verdict(db, item, sign_in_open(db, "alice"), "B")
    assert (
        next(db.query("select supersedes from judgments where id = ?", [again]))["supersedes"]
        == jid
    )
    with pytest.raises(InputError):
        submit_verdict(db, item, sign_in_open(db, "alice"), "maybe")


def test_verdict_queue_skip_and_undo(fdb):
    db, _ = fdb
    queue = verdict_queue(db, "alice")
    assert len(queue) == 21
    first = blind_item(db, queue[0], "alice")
    submit_verdict(db, first, sign_in_open(db, "alice"), "Equal")
    second = blind_item(db, queue[1], "alice")
    skip_item(db, second, sign_in_open(db, "alice"))
    assert verdict_queue(db, "alice")[0] == queue[2]
    # A skip is not counted as done: it is reported on its own.
    progress = verdict_progress(db, "alice")
    assert (progress.done, progress.skipped, progress.total) == (1, 1, 21)
    assert str(progress) == "1 of 21 done, 1 skipped"
    # A skip does not count towards k = 1; a verdict does.
    assert queue[1] in verdict_queue(db, "bob") and queue[0] not in verdict_queue(db, "bob")
    n = db["judgments"].count
    undo = undo_last(db, sign_in_open(db, "alice"))  # withdraws the skip
    assert db["judgments"].count == n + 1
    assert next(db.query("select status, verdict from judgments where id = ?", [undo])) == {
        "status": "withdrawn",
        "verdict": None,
    }
    assert queue[1] in verdict_queue(db, "alice")
    undo_last(db, sign_in_open(db, "alice"))  # withdraws the verdict
    assert verdict_queue(db, "alice")[0] == queue[0]
    assert undo_last(db, sign_in_open(db, "alice")) is None
    assert undo_last(db, sign_in_open(db, "nobody")) is None


def test_resolve_dispute_and_queue(fdb):
    db, ids = fdb
    d = ids["disputes"]
    assert dispute_queue(db, "alice", d) == [int(x) for x in seeded_order([str(x) for x in d], 0)]
    first = resolve_dispute(db, d[0], sign_in_open(db, "alice"), "model_wrong")
    second = resolve_dispute(
        db, d[0], sign_in_open(db, "alice"), "reference_wrong", corrected_answer="X"
    )
    assert (
        next(db.query("select supersedes from dispute_resolutions where id = ?", [second]))[
            "supersedes"
        ]
        == first
    )
    assert d[0] not in dispute_queue(db, "alice", d)
    assert str(dispute_progress(db, "alice", d)) == f"1 of {len(d)} done"
    with pytest.raises(InputError):
        resolve_dispute(db, d[0], sign_in_open(db, "alice"), "dunno")
    with pytest.raises(InputError):
        resolve_dispute(db, 999, sign_in_open(db, "alice"), "ambiguous")


def test_no_verdict_or_resolution_is_refused_and_nothing_stored(fdb):
    db, ids = fdb
    n = db.execute("select count(*) from judgments").fetchone()[0]
    item = blind_item(db, verdict_queue(db, "alice")[0], "alice")
    for missing in (None, ""):
        with pytest.raises(InputError, match="choose a verdict"):
            submit_verdict(db, item, sign_in_open(db, "alice"), missing)
        with pytest.raises(InputError, match="choose a resolution"):
            resolve_dispute(db, ids["disputes"][0], sign_in_open(db, "alice"), missing)
    assert db.execute("select count(*) from judgments").fetchone()[0] == n
    assert db.execute("select count(*) from dispute_resolutions").fetchone()[0] == 0


def test_identical_answers_are_flagged_and_stay_in_the_queue(tmp_path):
    path = tmp_path / "same.db"
    build_fixture_db(path, same_answers=True)
    db = open_db(path)
    try:
        queue = verdict_queue(db, "alice")
        assert len(queue) == len(pairwise_items(db)) == 7 * 3  # nothing dropped
        item = blind_item(db, queue[0], "alice")
        assert item["identical"] and item["answer_a"] == item["answer_b"]
    finally:
        db.conn.close()
    assert same_text(" The  same\nsentence. ", "The same sentence.")
    assert not same_text("The same sentence.", "the same sentence.")


def test_nobody_can_change_another_annotators_labels(fdb):
    """Through the API a label only ever supersedes its own annotator's; the database refuses a
    row that supersedes someone else's (review, resolution or verdict), even a raw INSERT."""
    db, ids = fdb
    q, d = ids["generated"][0], ids["disputes"][0]
    alice_review = submit_review(db, q, sign_in_open(db, "alice"), "accept")
    submit_review(db, q, sign_in_open(db, "bob"), "reject")  # bob's own row, alice's stays
    assert alice_review in {r["id"] for r in effective_reviews(db, q)}
    alice_res = resolve_dispute(db, d, sign_in_open(db, "alice"), "model_wrong")
    resolve_dispute(db, d, sign_in_open(db, "bob"), "ambiguous")
    item = blind_item(db, verdict_queue(db, "alice")[0], "alice")
    alice_verdict = submit_verdict(db, item, sign_in_open(db, "alice"), "A")
    assert undo_last(db, sign_in_open(db, "bob")) is None  # bob has nothing to undo
    effective = {
        r[0]
        for r in db.execute(
            "select id from judgments t where not exists "
            "(select 1 from judgments s where s.supersedes = t.id)"
        )
    }
    assert alice_verdict in effective
    now = "2024-01-01T00:00:00Z"
    attacks = [
        (
            "reviews",
            {
                "question_id": q,
                "annotator": "mallory",
                "decision": "reject",
                "checklist": "{}",
                "note": "",
                "supersedes": alice_review,
                "created_at": now,
            },
        ),
        (
            "dispute_resolutions",
            {
                "dispute_id": d,
                "annotator": "mallory",
                "resolution": "reference_wrong",
                "note": "",
                "supersedes": alice_res,
                "created_at": now,
            },
        ),
        (
            "judgments",
            {
                "kind": "pairwise",
                "question_id": item["question_id"],
                "rater": "human:mallory",
                "rater_kind": "human",
                "criterion": "better",
                "system_a": item["system_a"],
                "system_b": item["system_b"],
                "verdict": None,
                "status": "withdrawn",
                "supersedes": alice_verdict,
                "created_at": now,
            },
        ),
    ]
    for table, row in attacks:
        n = db[table].count
        with pytest.raises(sqlite3.IntegrityError, match="nobody can change another"):
            db[table].insert(row)
        assert db[table].count == n
        ok = dict(row, supersedes=None)  # the same row of one's own is fine
        db[table].insert(ok)
        assert db[table].count == n + 1


def test_identical_pairs_come_after_the_others(fdb):
    db, _ = fdb
    items = pairwise_items(db)
    assert identical_items(db) == []
    plain = verdict_queue(db, "alice")
    assert plain == seeded_order(items, 0)
    same = plain[:3]
    queue = verdict_queue(db, "alice", identical=same)
    assert sorted(queue) == sorted(items)  # nothing dropped
    assert queue[-3:] == same and queue[:-3] == plain[3:]  # seeded order within each part
    # Make one pair's answers the same text (up to spacing): found and moved back by default.
    qid, s1, s2 = split_pair_key(plain[0])
    text = db.execute(
        "select text from answers where question_id = ? and system = ?", [qid, s1]
    ).fetchone()[0]
    db.execute(
        "update answers set text = ? where question_id = ? and system = ?",
        ["  " + text.replace(" ", "\n", 1) + " ", qid, s2],
    )
    assert plain[0] in identical_items(db)
    assert verdict_queue(db, "alice")[-1] == plain[0]
