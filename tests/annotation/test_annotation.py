"""Human labels: append-only with supersedes, queues with k annotations and seeded order."""

from __future__ import annotations

import sqlite3

import psycopg
import pytest
from bound_sql import run_sql, sql_rows
from browser_support import build_fixture_db
from reviewing import submit_review

import core.annotation.base
import core.annotation.disputes
import core.annotation.pairwise
import core.annotation.reviews
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
from core.annotation.reviews import review_progress, review_queue
from core.errors import InputError
from core.store.database import open_db
from core.store.reviews import effective_reviews
from core.store.settings import set_setting

# The fixture's items in their seeded order, worked out once by hand from the rule (keys sorted
# by sha256(f"{seed}|{key}")) and written down, so the queue tests do not ask the queue code for
# the order they check: a queue that shuffles differently or breaks "items started by others
# first, then new ones" fails them (see test_a_broken_queue_order_fails_the_expectations).
GENERATED_SEED_0 = ["gen-3", "gen-1", "gen-2", "gen-0"]
GENERATED_SEED_5 = ["gen-1", "gen-3", "gen-2", "gen-0"]
QUESTIONS_SEED_0 = ["nqa-2", "nqa-0", "gen-3", "gen-1", "gen-2", "gen-0", "nqa-1"]
PAIRS_SEED_0 = [
    '["gen-1","fixture-a","fixture-c"]',
    '["nqa-1","fixture-a","fixture-b"]',
    '["gen-1","fixture-a","fixture-b"]',
    '["nqa-1","fixture-a","fixture-c"]',
    '["nqa-0","fixture-a","fixture-c"]',
    '["nqa-0","fixture-a","fixture-b"]',
    '["gen-0","fixture-a","fixture-c"]',
    '["nqa-2","fixture-a","fixture-b"]',
    '["gen-3","fixture-b","fixture-c"]',
    '["gen-2","fixture-a","fixture-b"]',
    '["gen-3","fixture-a","fixture-c"]',
    '["gen-3","fixture-a","fixture-b"]',
    '["gen-2","fixture-a","fixture-c"]',
    '["nqa-2","fixture-a","fixture-c"]',
    '["gen-0","fixture-a","fixture-b"]',
    '["gen-2","fixture-b","fixture-c"]',
    '["nqa-0","fixture-b","fixture-c"]',
    '["nqa-2","fixture-b","fixture-c"]',
    '["gen-1","fixture-b","fixture-c"]',
    '["gen-0","fixture-b","fixture-c"]',
    '["nqa-1","fixture-b","fixture-c"]',
]


@pytest.fixture
def fdb(fixture_db):
    db_path, ids = fixture_db
    db = open_db(db_path)
    yield db, ids
    db.conn.close()


def trigger_error(db) -> type[Exception]:
    """What a refusing trigger raises on this database: SQLite's ``raise(abort)`` an
    IntegrityError, the PL/pgSQL function of the PostgreSQL dialect a RaiseException."""
    return sqlite3.IntegrityError if db.dialect.name == "sqlite" else psycopg.errors.RaiseException


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
    assert [r.id for r in eff] == [second, other]
    original = db["questions"].get(q)
    assert "Fixture question" in original["question"] and original["status"] == "edited"
    with pytest.raises(trigger_error(db), match="append-only"):
        run_sql(db, "update reviews set decision = 'reject' where id = :id", id=first)
    with pytest.raises(InputError, match="needs an edited question or a corrected answer"):
        submit_review(db, q, sign_in_open(db, "alice"), "edit")  # an edit needs a text
    with pytest.raises(InputError, match="Accept is refused.*not answerable"):
        submit_review(db, q, sign_in_open(db, "alice"), "accept", checklist={"answerable": False})
    assert len(effective_reviews(db, q)) == 2  # refused: nothing was written
    with pytest.raises(InputError):
        submit_review(db, q, sign_in_open(db, "alice"), "maybe")


def test_seeded_orders_are_the_written_down_ones(fdb):
    db, ids = fdb
    assert ids["generated"] == ["gen-0", "gen-1", "gen-2", "gen-3"]
    assert ids["disputes"] == [1, 2, 3]
    assert seeded_order(ids["generated"], 0) == GENERATED_SEED_0
    assert seeded_order(ids["generated"], 5) == GENERATED_SEED_5
    assert seeded_order(ids["questions"], 0) == QUESTIONS_SEED_0
    assert seeded_order(["1", "2", "3"], 0) == ["3", "2", "1"]
    assert seeded_order(pairwise_items(db), 0) == PAIRS_SEED_0


def _review_queue_checks(db) -> None:
    """The review queue's order on the fixture, stated item by item (k = 2)."""
    qs = ["gen-0", "gen-1", "gen-2", "gen-3"]
    set_setting(db, "queue_seed", 0)
    set_setting(db, "annotations_per_item", 2)
    assert required_annotations(db) == 2
    assert review_queue(db, "alice", qs) == ["gen-3", "gen-1", "gen-2", "gen-0"]
    # alice starts the item that comes last in the seeded order ...
    submit_review(db, "gen-0", sign_in_open(db, "alice"), "accept")
    assert review_queue(db, "alice", qs) == ["gen-3", "gen-1", "gen-2"]
    # ... so it comes first for everyone else: it needs one more label to complete
    assert review_queue(db, "bob", qs) == ["gen-0", "gen-3", "gen-1", "gen-2"]
    submit_review(db, "gen-0", sign_in_open(db, "bob"), "reject")
    assert review_queue(db, "carol", qs) == ["gen-3", "gen-1", "gen-2"]  # k reached
    assert str(review_progress(db, "alice", qs)) == "1 of 4 done"
    # with k = 3, of two started items the one with more labels comes first
    set_setting(db, "annotations_per_item", 3)
    submit_review(db, "gen-2", sign_in_open(db, "alice"), "accept")
    assert review_queue(db, "carol", qs) == ["gen-0", "gen-2", "gen-3", "gen-1"]
    set_setting(db, "annotations_per_item", 2)
    set_setting(db, "queue_seed", 5)
    assert review_queue(db, "dave", qs) == ["gen-2", "gen-1", "gen-3"]


def test_review_queue_k_annotations_and_progress(fdb):
    db, _ = fdb
    _review_queue_checks(db)


def _reversed_rule(team_queue):
    """A broken queue: items started by others go last instead of first."""

    def queue(items, who, annotator, **kwargs):
        return sorted(team_queue(items, who, annotator, **kwargs), key=lambda i: bool(who.get(i)))

    return queue


@pytest.mark.parametrize("broken", ["started last", "another shuffle"])
def test_a_broken_queue_order_fails_the_expectations(fdb, monkeypatch, broken):
    """The written-down orders are concrete: a queue with the rule reversed, or shuffled by
    another key, fails the checks the queue tests make."""
    db, ids = fdb
    if broken == "started last":
        for module in (core.annotation.reviews, core.annotation.disputes, core.annotation.pairwise):
            monkeypatch.setattr(module, "team_queue", _reversed_rule(module.team_queue))
    else:
        monkeypatch.setattr(core.annotation.base, "seeded_order", lambda keys, seed: sorted(keys))
    with pytest.raises(AssertionError):
        _review_queue_checks(db)
    with pytest.raises(AssertionError):
        _dispute_queue_checks(db, ids["disputes"])
    with pytest.raises(AssertionError):
        _verdict_queue_checks(db)


def _verdict_queue_checks(db) -> None:
    """The side-by-side queue's order on the fixture, stated item by item (k = 2)."""
    set_setting(db, "queue_seed", 0)
    set_setting(db, "annotations_per_item", 2)
    assert verdict_queue(db, "alice") == PAIRS_SEED_0
    late = PAIRS_SEED_0[-3:]  # alice labels the last three of the seeded order
    for key in late:
        submit_verdict(db, blind_item(db, key, "alice"), sign_in_open(db, "alice"), "A")
    assert verdict_queue(db, "alice") == PAIRS_SEED_0[:-3]
    assert verdict_queue(db, "bob") == late + PAIRS_SEED_0[:-3]  # started ones first


def test_verdict_queue_puts_items_started_by_others_first(fdb):
    db, _ = fdb
    _verdict_queue_checks(db)


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
    row = db["judgments"].get(jid)
    assert (row["rater"], row["rater_kind"], row["system_a"], row["order_shown"]) == (
        "human:alice",
        "human",
        item["system_a"],
        item["order_shown"],
    )
    again = submit_verdict(db, item, sign_in_open(db, "alice"), "B")
    assert db["judgments"].get(again)["supersedes"] == jid
    with pytest.raises(InputError):
        submit_verdict(db, item, sign_in_open(db, "alice"), "maybe")


def test_verdict_queue_skip_and_undo(fdb):
    db, _ = fdb
    queue = verdict_queue(db, "alice")
    assert queue == PAIRS_SEED_0  # nobody has started anything: the seeded order
    first = blind_item(db, queue[0], "alice")
    submit_verdict(db, first, sign_in_open(db, "alice"), "Equal")
    second = blind_item(db, queue[1], "alice")
    skip_item(db, second, sign_in_open(db, "alice"))
    # The skipped item goes to the end of alice's queue (it stays hers to do, later).
    assert verdict_queue(db, "alice") == PAIRS_SEED_0[2:] + [PAIRS_SEED_0[1]]
    # A skip is not counted as done: it is reported on its own.
    progress = verdict_progress(db, "alice")
    assert (progress.done, progress.skipped, progress.total) == (1, 1, 21)
    assert str(progress) == "1 of 21 done, 1 skipped"
    # A skip does not count towards k = 1 (the skipped item stays where it was for bob); a
    # verdict does (that item is complete).
    assert verdict_queue(db, "bob") == PAIRS_SEED_0[1:]
    n = db["judgments"].count
    undo = undo_last(db, sign_in_open(db, "alice"))  # withdraws the skip
    assert db["judgments"].count == n + 1
    assert sql_rows(db, "select status, verdict from judgments where id = :id", id=undo)[0] == {
        "status": "withdrawn",
        "verdict": None,
    }
    assert verdict_queue(db, "alice") == PAIRS_SEED_0[1:]
    undo_last(db, sign_in_open(db, "alice"))  # withdraws the verdict
    assert verdict_queue(db, "alice") == PAIRS_SEED_0
    assert undo_last(db, sign_in_open(db, "alice")) is None
    assert undo_last(db, sign_in_open(db, "nobody")) is None


def _dispute_queue_checks(db, d) -> None:
    """The dispute queue's order on the fixture, stated item by item."""
    set_setting(db, "queue_seed", 0)
    set_setting(db, "annotations_per_item", 1)
    assert dispute_queue(db, "alice", d) == [3, 2, 1]
    resolve_dispute(db, 1, sign_in_open(db, "alice"), "model_wrong")
    assert dispute_queue(db, "bob", d) == [3, 2]  # k = 1 reached on dispute 1
    set_setting(db, "annotations_per_item", 2)
    assert dispute_queue(db, "bob", d) == [1, 3, 2]  # started by alice: first for bob
    set_setting(db, "annotations_per_item", 1)


def test_resolve_dispute_and_queue(fdb):
    db, ids = fdb
    d = ids["disputes"]
    assert d == [1, 2, 3]
    _dispute_queue_checks(db, d)
    first = resolve_dispute(db, d[0], sign_in_open(db, "alice"), "model_wrong")
    second = resolve_dispute(
        db, d[0], sign_in_open(db, "alice"), "reference_wrong", corrected_answer="X"
    )
    assert db["dispute_resolutions"].get(second)["supersedes"] == first
    assert dispute_queue(db, "alice", d) == [3, 2]
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


def test_identical_answers_are_flagged_and_stay_in_the_queue(db_path):
    build_fixture_db(db_path, same_answers=True)
    db = open_db(db_path)
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
    assert alice_review in {r.id for r in effective_reviews(db, q)}
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
        with pytest.raises(trigger_error(db), match="nobody can change another"):
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
    assert plain == PAIRS_SEED_0
    same = PAIRS_SEED_0[:3]
    queue = verdict_queue(db, "alice", identical=same)
    assert sorted(queue) == sorted(items)  # nothing dropped
    assert queue == PAIRS_SEED_0[3:] + PAIRS_SEED_0[:3]  # seeded order within each part
    # Make one pair's answers the same text (up to spacing): found and moved back by default.
    qid, s1, s2 = split_pair_key(plain[0])
    text = run_sql(
        db, "select text from answers where question_id = :q and system = :s", q=qid, s=s1
    ).fetchone()[0]
    run_sql(
        db,
        "update answers set text = :t where question_id = :q and system = :s",
        t="  " + text.replace(" ", "\n", 1) + " ",
        q=qid,
        s=s2,
    )
    assert identical_items(db) == ['["gen-1","fixture-a","fixture-c"]']
    assert verdict_queue(db, "alice") == PAIRS_SEED_0[1:] + ['["gen-1","fixture-a","fixture-c"]']
