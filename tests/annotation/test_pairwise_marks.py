"""The team's side-by-side marks kept up to date (:class:`TeamMarks`, issue 37) against the marks
read from every row (:func:`team_marks`) and against marks written down by hand, on both
databases: verdicts, a changed verdict, skips, undos, an imported human verdict and auto-rater
verdicts (neither is a team label), and a database replaced by one with fewer rows."""

from __future__ import annotations

import shutil

import pytest

from core.annotation.identity import sign_in_open
from core.annotation.pairwise import (
    blind_item,
    pairwise_items,
    skip_item,
    split_pair_key,
    submit_verdict,
    team_marks,
    undo_last,
    verdict_progress,
    verdict_queue,
)
from core.annotation.pairwise_marks import TeamMarks
from core.store.connection import transaction
from core.store.database import open_db
from core.store.judgments import (
    JudgmentKind,
    NewJudgment,
    PairwiseVerdict,
    RaterKind,
    insert_judgment,
)
from core.store.settings import set_setting


@pytest.fixture
def fdb(fixture_db):
    db_path, _ = fixture_db
    db = open_db(db_path)
    set_setting(db, "queue_seed", 0)
    yield db
    db.conn.close()


def _row(key_parts: tuple[str, str, str], rater: str, kind: RaterKind, context: str) -> NewJudgment:
    question_id, a, b = key_parts
    return NewJudgment(
        kind=JudgmentKind.PAIRWISE,
        question_id=question_id,
        rater=rater,
        rater_kind=kind,
        criterion="better",
        system_a=a,
        system_b=b,
        verdict=PairwiseVerdict("A"),
        context_kind=context,
    )


@pytest.mark.postgresql("there ids commit out of order: the window count decides, not the ids")
def test_kept_marks_follow_every_kind_of_row(fdb):
    db = fdb
    kept = TeamMarks()
    items = pairwise_items(db)
    k0, k1, k2 = items[0], items[1], items[2]
    alice, bob = sign_in_open(db, "alice"), sign_in_open(db, "bob")
    assert kept.marks(db) == team_marks(db) == {"ok": {}, "skipped": {}}

    def same(expected: dict) -> None:
        assert kept.marks(db) == team_marks(db) == expected

    submit_verdict(db, blind_item(db, k0, "alice"), alice, "A")
    same({"ok": {k0: {"human:alice"}}, "skipped": {}})
    skip_item(db, blind_item(db, k1, "bob"), bob)
    same({"ok": {k0: {"human:alice"}}, "skipped": {k1: {"human:bob"}}})
    submit_verdict(db, blind_item(db, k1, "bob"), bob, "Equal")  # supersedes the skip
    submit_verdict(db, blind_item(db, k0, "alice"), alice, "B")  # supersedes her first
    same({"ok": {k0: {"human:alice"}, k1: {"human:bob"}}, "skipped": {}})
    # an imported human verdict and an auto-rater's are data, not the team's labels
    q, a, b = k2.strip("[]").replace('"', "").split(",")
    insert_judgment(db, _row((q, a, b), "human:crowd#1", RaterKind.HUMAN, "imported"))
    insert_judgment(db, _row((q, a, b), "judge:x", RaterKind.AUTO, "auto"))
    same({"ok": {k0: {"human:alice"}, k1: {"human:bob"}}, "skipped": {}})
    undo_last(db, bob)  # withdraws bob's verdict: no mark of his is left
    same({"ok": {k0: {"human:alice"}}, "skipped": {}})
    undo_last(db, bob)  # nothing effective left to withdraw: the skip stays superseded
    same({"ok": {k0: {"human:alice"}}, "skipped": {}})
    reads = kept.full_reads
    kept.marks(db)  # nothing new: no read at all
    assert kept.full_reads == reads
    assert reads == 1  # never read in full again (PostgreSQL too, issue 33)
    # the queue and the progress read from the kept marks exactly as from their own read
    marks = kept.marks(db)
    assert verdict_queue(db, "alice", marks=marks) == verdict_queue(db, "alice")
    assert verdict_progress(db, "bob", marks=marks) == verdict_progress(db, "bob")


@pytest.mark.postgresql("only there can a smaller id commit after a larger one")
def test_a_verdict_committed_late_is_not_missed(fdb, fixture_db):
    """A label whose transaction took its id before another label's and commits after the
    marks read the later one (two servers): the count of the window below the last id read
    changes, so the marks read everything again instead of missing it."""
    db = fdb
    if db.dialect.ids_in_commit_order:
        pytest.skip("SQLite gives ids in commit order (one writer at a time)")
    k0, k1 = pairwise_items(db)[:2]
    kept = TeamMarks()
    assert kept.marks(db) == {"ok": {}, "skipped": {}}
    late = open_db(fixture_db[0])
    try:
        with transaction(late):
            insert_judgment(late, _row(split_pair_key(k0), "human:alice", RaterKind.HUMAN, "human"))
            insert_judgment(db, _row(split_pair_key(k1), "human:bob", RaterKind.HUMAN, "human"))
            assert kept.marks(db) == team_marks(db) == {"ok": {k1: {"human:bob"}}, "skipped": {}}
        # alice's row is committed now, with an id below the last one the marks read
        both = {"ok": {k0: {"human:alice"}, k1: {"human:bob"}}, "skipped": {}}
        assert kept.marks(db) == team_marks(db) == both
        assert kept.full_reads == 2
    finally:
        late.close()


@pytest.mark.postgresql("the copies handed out on PostgreSQL too")
def test_a_caller_cannot_change_the_kept_marks(fdb):
    db = fdb
    kept = TeamMarks()
    submit_verdict(
        db, blind_item(db, pairwise_items(db)[0], "alice"), sign_in_open(db, "alice"), "A"
    )
    got = kept.marks(db)
    for raters in got["ok"].values():
        raters.add("human:mallory")
    got["ok"].clear()
    assert kept.marks(db) == team_marks(db)


@pytest.mark.sqlite_only("a file copied back: an older state of the same database")
def test_a_database_with_fewer_rows_is_read_again(fdb, fixture_db, tmp_path):
    db = fdb
    older = tmp_path / "older.db"
    db.conn.execute("pragma wal_checkpoint(truncate)")
    shutil.copy(fixture_db[0], older)  # a backup taken before the labels below
    kept = TeamMarks()
    alice = sign_in_open(db, "alice")
    for key in pairwise_items(db)[:3]:
        submit_verdict(db, blind_item(db, key, "alice"), alice, "A")
    assert len(kept.marks(db)["ok"]) == 3 and kept.full_reads == 1
    # the backup restored (the largest id went down): read in full, not kept
    restored = open_db(older)
    try:
        assert kept.marks(restored) == team_marks(restored) == {"ok": {}, "skipped": {}}
        assert kept.full_reads == 2
    finally:
        restored.conn.close()
