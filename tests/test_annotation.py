"""Human labels: append-only with supersedes, queues with k annotations and seeded order."""

from __future__ import annotations

import pytest

from browser_support import build_fixture_db
from core import annotation as ann
from core.errors import InputError
from core.store import open_db


@pytest.fixture
def fdb(tmp_path):
    path = tmp_path / "a.db"
    ids = build_fixture_db(path)
    db = open_db(path)
    yield db, ids
    db.conn.close()


def test_sign_in_checks_name_and_code():
    assert ann.check_sign_in("  alice ") == "alice"
    assert ann.check_sign_in("bob", "c0de", "c0de") == "bob"
    for bad in ("", "<script>", "x" * 41):
        with pytest.raises(InputError):
            ann.check_sign_in(bad)
    with pytest.raises(InputError, match="access code"):
        ann.check_sign_in("bob", "nope", "c0de")


def test_review_supersedes_own_and_keeps_original(fdb):
    db, ids = fdb
    q = ids["generated"][0]
    first = ann.submit_review(db, q, "alice", "accept", checklist={"answerable": True})
    second = ann.submit_review(db, q, "alice", "edit", edited_question="Better question?")
    other = ann.submit_review(db, q, "bob", "edit", edited_answer="A fix.")
    rows = {r["id"]: r for r in db.query("select * from reviews")}
    assert rows[second]["supersedes"] == first and rows[other]["supersedes"] is None
    eff = ann.effective_reviews(db, q)
    assert [r["id"] for r in eff] == [second, other]
    original = db.execute("select question, status from questions where id = ?", [q]).fetchone()
    assert "Fixture question" in original[0] and original[1] == "edited"
    with pytest.raises(Exception, match="append-only"):
        db.execute("update reviews set decision = 'reject' where id = ?", [first])
    with pytest.raises(InputError, match="needs an edited question or a corrected answer"):
        ann.submit_review(db, q, "alice", "edit")          # an edit needs a text
    with pytest.raises(InputError, match="Accept is refused.*not answerable"):
        ann.submit_review(db, q, "alice", "accept", checklist={"answerable": False})
    assert len(ann.effective_reviews(db, q)) == 2         # refused: nothing was written
    with pytest.raises(InputError):
        ann.submit_review(db, q, "alice", "maybe")


def test_review_queue_k_annotations_and_progress(fdb):
    db, ids = fdb
    qs = ids["generated"]
    ann.set_setting(db, "annotations_per_item", 2)
    assert ann.required_annotations(db) == 2
    queue = ann.review_queue(db, "alice", qs)
    assert sorted(queue) == sorted(qs) and queue == ann.seeded_order(qs, 0)
    ann.submit_review(db, queue[0], "alice", "accept")
    assert queue[0] not in ann.review_queue(db, "alice", qs)
    assert queue[0] in ann.review_queue(db, "bob", qs)            # still needs a 2nd label
    ann.submit_review(db, queue[0], "bob", "reject")
    assert queue[0] not in ann.review_queue(db, "carol", qs)      # k reached
    assert str(ann.review_progress(db, "alice", qs)) == f"1 of {len(qs)} done"
    ann.set_setting(db, "queue_seed", 5)
    assert ann.review_queue(db, "dave", qs) == ann.seeded_order(
        [q for q in qs if q != queue[0]], 5)


def test_verdict_order_is_seeded_per_annotator_and_stored(fdb):
    db, _ = fdb
    items = ann.pairwise_items(db)
    assert len(items) == 7 * 3
    orders = {ann.blind_item(db, k, "alice")["order_shown"] for k in items}
    assert orders == {"ab", "ba"}
    item = ann.blind_item(db, items[0], "alice")
    assert item == ann.blind_item(db, items[0], "alice")           # reproducible
    assert (item["system_a"] < item["system_b"]) == (item["order_shown"] == "ab")
    jid = ann.submit_verdict(db, item, "alice", "A", "clearer")
    row = next(db.query("select * from judgments where id = ?", [jid]))
    assert (row["rater"], row["rater_kind"], row["system_a"], row["order_shown"]) == (
        "human:alice", "human", item["system_a"], item["order_shown"])
    again = ann.submit_verdict(db, item, "alice", "B")
    assert next(db.query("select supersedes from judgments where id = ?", [again]))[
        "supersedes"] == jid
    with pytest.raises(InputError):
        ann.submit_verdict(db, item, "alice", "maybe")


def test_verdict_queue_skip_and_undo(fdb):
    db, _ = fdb
    queue = ann.verdict_queue(db, "alice")
    assert len(queue) == 21
    first = ann.blind_item(db, queue[0], "alice")
    ann.submit_verdict(db, first, "alice", "Equal")
    second = ann.blind_item(db, queue[1], "alice")
    ann.skip_item(db, second, "alice")
    assert ann.verdict_queue(db, "alice")[0] == queue[2]
    assert str(ann.verdict_progress(db, "alice")) == "2 of 21 done"
    # A skip does not count towards k = 1; a verdict does.
    assert queue[1] in ann.verdict_queue(db, "bob") and queue[0] not in ann.verdict_queue(db, "bob")
    n = db["judgments"].count
    undo = ann.undo_last(db, "alice")                     # withdraws the skip
    assert db["judgments"].count == n + 1
    assert next(db.query("select status, verdict from judgments where id = ?", [undo])) == {
        "status": "withdrawn", "verdict": None}
    assert queue[1] in ann.verdict_queue(db, "alice")
    ann.undo_last(db, "alice")                            # withdraws the verdict
    assert ann.verdict_queue(db, "alice")[0] == queue[0]
    assert ann.undo_last(db, "alice") is None
    assert ann.undo_last(db, "nobody") is None


def test_resolve_dispute_and_queue(fdb):
    db, ids = fdb
    d = ids["disputes"]
    assert ann.dispute_queue(db, "alice", d) == [int(x) for x in ann.seeded_order(
        [str(x) for x in d], 0)]
    first = ann.resolve_dispute(db, d[0], "alice", "model_wrong")
    second = ann.resolve_dispute(db, d[0], "alice", "reference_wrong", corrected_answer="X")
    assert next(db.query("select supersedes from dispute_resolutions where id = ?",
                         [second]))["supersedes"] == first
    assert d[0] not in ann.dispute_queue(db, "alice", d)
    assert str(ann.dispute_progress(db, "alice", d)) == f"1 of {len(d)} done"
    with pytest.raises(InputError):
        ann.resolve_dispute(db, d[0], "alice", "dunno")
    with pytest.raises(InputError):
        ann.resolve_dispute(db, 999, "alice", "ambiguous")


def test_no_verdict_or_resolution_is_refused_and_nothing_stored(fdb):
    db, ids = fdb
    n = db.execute("select count(*) from judgments").fetchone()[0]
    item = ann.blind_item(db, ann.verdict_queue(db, "alice")[0], "alice")
    for missing in (None, ""):
        with pytest.raises(InputError, match="choose a verdict"):
            ann.submit_verdict(db, item, "alice", missing)
        with pytest.raises(InputError, match="choose a resolution"):
            ann.resolve_dispute(db, ids["disputes"][0], "alice", missing)
    assert db.execute("select count(*) from judgments").fetchone()[0] == n
    assert db.execute("select count(*) from dispute_resolutions").fetchone()[0] == 0


def test_identical_answers_are_flagged_and_stay_in_the_queue(tmp_path):
    path = tmp_path / "same.db"
    build_fixture_db(path, same_answers=True)
    db = open_db(path)
    try:
        queue = ann.verdict_queue(db, "alice")
        assert len(queue) == len(ann.pairwise_items(db)) == 7 * 3   # nothing dropped
        item = ann.blind_item(db, queue[0], "alice")
        assert item["identical"] and item["answer_a"] == item["answer_b"]
    finally:
        db.conn.close()
    assert ann.same_text(" The  same\nsentence. ", "The same sentence.")
    assert not ann.same_text("The same sentence.", "the same sentence.")


def test_nobody_can_change_another_annotators_labels(fdb):
    """Through the API a label only ever supersedes its own annotator's; the database refuses a
    row that supersedes someone else's (review, resolution or verdict), even a raw INSERT."""
    db, ids = fdb
    q, d = ids["generated"][0], ids["disputes"][0]
    alice_review = ann.submit_review(db, q, "alice", "accept")
    ann.submit_review(db, q, "bob", "reject")                 # bob's own row, alice's stays
    assert alice_review in {r["id"] for r in ann.effective_reviews(db, q)}
    alice_res = ann.resolve_dispute(db, d, "alice", "model_wrong")
    ann.resolve_dispute(db, d, "bob", "ambiguous")
    item = ann.blind_item(db, ann.verdict_queue(db, "alice")[0], "alice")
    alice_verdict = ann.submit_verdict(db, item, "alice", "A")
    assert ann.undo_last(db, "bob") is None                   # bob has nothing to undo
    effective = {r[0] for r in db.execute(
        "select id from judgments t where not exists "
        "(select 1 from judgments s where s.supersedes = t.id)")}
    assert alice_verdict in effective
    now = "2024-01-01T00:00:00Z"
    attacks = [
        ("reviews", {"question_id": q, "annotator": "mallory", "decision": "reject",
                     "checklist": "{}", "note": "", "supersedes": alice_review,
                     "created_at": now}),
        ("dispute_resolutions", {"dispute_id": d, "annotator": "mallory",
                                 "resolution": "reference_wrong", "note": "",
                                 "supersedes": alice_res, "created_at": now}),
        ("judgments", {"kind": "pairwise", "question_id": item["question_id"],
                       "rater": "human:mallory", "rater_kind": "human", "criterion": "better",
                       "system_a": item["system_a"], "system_b": item["system_b"],
                       "verdict": None, "status": "withdrawn", "supersedes": alice_verdict,
                       "created_at": now}),
    ]
    for table, row in attacks:
        n = db[table].count
        with pytest.raises(Exception, match="nobody can change another"):
            db[table].insert(row)
        assert db[table].count == n
        ok = dict(row, supersedes=None)                       # the same row of one's own is fine
        db[table].insert(ok)
        assert db[table].count == n + 1


def test_identical_pairs_come_after_the_others(fdb):
    db, _ = fdb
    items = ann.pairwise_items(db)
    assert ann.identical_items(db) == []
    plain = ann.verdict_queue(db, "alice")
    assert plain == ann.seeded_order(items, 0)
    same = plain[:3]
    queue = ann.verdict_queue(db, "alice", identical=same)
    assert sorted(queue) == sorted(items)                     # nothing dropped
    assert queue[-3:] == same and queue[:-3] == plain[3:]     # seeded order within each part
    # Make one pair's answers the same text (up to spacing): found and moved back by default.
    qid, s1, s2 = ann.split_pair_key(plain[0])
    text = db.execute("select text from answers where question_id = ? and system = ?",
                      [qid, s1]).fetchone()[0]
    db.execute("update answers set text = ? where question_id = ? and system = ?",
               ["  " + text.replace(" ", "\n", 1) + " ", qid, s2])
    assert plain[0] in ann.identical_items(db)
    assert ann.verdict_queue(db, "alice")[-1] == plain[0]
