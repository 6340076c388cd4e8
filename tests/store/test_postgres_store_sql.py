"""Store SQL made dialect-neutral for PostgreSQL (issue 25), each case on SQLite and PostgreSQL:
staged rows switched into typed columns, an entity edit's new id, questions flagged by an edit,
a reply-cache entry overwritten, the question search's case, a run's rounded cost, the cache
keys (fingerprints, the kept verdict summary) and, on PostgreSQL, a verdict committed late."""

from __future__ import annotations

import json
from typing import Any

import pytest
from bound_sql import run_sql
from contract_registry import contract_case
from pg_server import pg_migrated, pg_server, pg_template_copy  # noqa: F401  (fixtures)

from core.stats.ranking_settings import RankingSettings
from core.store.connection import transaction, utcnow
from core.store.database import open_db
from core.store.engine import Database
from core.store.entity_edits import flagged_questions, insert_edit
from core.store.fingerprints import answers_fingerprint, data_version, judgments_version
from core.store.llm_cache import CacheEntry, cached_responses, write_calls
from core.store.questions import document_dependents, find_question_ids
from core.store.row_stage import drop_rows_stage, live_stages, stage_rows, switch_rows
from core.store.runs import add_run_totals, recent_runs, start_run
from core.store.verdict_reads import verdict_summary
from core.views.leaderboard import LiveLeaderboard
from core.views.live_leaderboard import store_leaderboard


@pytest.fixture
def any_db(db: Database) -> Database:
    """``db`` (each backend) with document ``d1``, questions ``q1``/``q2`` and system ``s1``."""
    now = utcnow()
    db["documents"].insert(
        {"id": "d1", "kind": "book", "source": "test", "text": "x", "n_chars": 1, "n_tokens": 1}
        | {"sha256": "", "created_at": now, "updated_at": now}
    )
    for qid in ("q1", "q2"):
        db["questions"].insert(
            {"id": qid, "document_id": "d1", "question": "Who?", "answers": "[]"}
            | {"origin": "generated", "status": "pending", "provenance": "{}"}
            | {"created_at": now, "updated_at": now}
        )
    db["systems"].insert({"name": "s1", "model": "m:1", "context": "none", "created_at": now})
    return db


@contract_case(drop_rows_stage, live_stages, stage_rows, switch_rows, transaction, utcnow)
def test_staged_rows_land_in_typed_columns(any_db: Database) -> None:
    now = utcnow()
    rows = [
        {"question_id": q, "system": "s1", "text": f"t {q}", "input_tokens": n, "cost_usd": c}
        | {"run_id": None, "created_at": now}
        for q, n, c in (("q1", 5, 0.25), ("q2", 7, 1.5))
    ]
    stage = stage_rows(any_db, "answers", rows)
    with transaction(any_db):
        assert switch_rows(any_db, stage) == 2
    drop_rows_stage(any_db, stage)
    got = any_db.execute(
        "select question_id, input_tokens, cost_usd, run_id from answers order by question_id"
    ).fetchall()
    assert [tuple(r) for r in got] == [("q1", 5, 0.25, None), ("q2", 7, 1.5, None)]
    assert isinstance(got[0][1], int) and isinstance(got[0][2], float)
    assert any_db.execute("select count(*) from row_stage").fetchone()[0] == 0
    assert live_stages(any_db) == []


@contract_case(flagged_questions, insert_edit, utcnow)
def test_an_edit_returns_its_new_id_and_finds_the_questions_it_flagged(any_db: Database) -> None:
    first = insert_edit(any_db, "d1", "rename", {"to": "A"}, "human:admin")
    second = insert_edit(any_db, "d1", "rename", {"to": "B"}, "human:admin", undoes=first)
    assert second > first > 0
    ids = [r[0] for r in any_db.execute("select id from entity_edits order by id").fetchall()]
    assert ids == [first, second]
    for qid, edit in (("q1", second), ("q2", first)):
        meta = json.dumps({"needs_review": {"edit": edit}})
        run_sql(any_db, "update questions set metadata = :m where id = :q", m=meta, q=qid)
    assert [r["id"] for r in flagged_questions(any_db, second, "pending")] == ["q1"]
    assert [r["id"] for r in flagged_questions(any_db, first, "pending")] == ["q2"]
    assert flagged_questions(any_db, first, "accepted") == []


@contract_case(cached_responses, transaction, utcnow, write_calls)
def test_a_cache_entry_is_overwritten_by_the_same_key(any_db: Database) -> None:
    now = utcnow()
    with transaction(any_db):
        write_calls(any_db, [CacheEntry("k1", "m:1", "{}", '"old"', now)], [])
    with transaction(any_db):
        write_calls(
            any_db,
            [
                CacheEntry("k1", "m:2", "{}", '"new"', now),
                CacheEntry("k2", "m:1", "{}", '"b"', now),
            ],
            [],
        )
    assert cached_responses(any_db, ["k1", "k2"]) == {"k1": '"new"', "k2": '"b"'}
    assert any_db.execute("select model from llm_cache where key = 'k1'").fetchone()[0] == "m:2"


@contract_case(utcnow)
def test_sums_come_back_as_sqlite_gives_them(any_db: Database) -> None:
    got = any_db.execute(
        "select sum(x), sum(x) / 2.0, max(y) from (select 3 as x, 1.5 as y union all "
        "select 4, 2.25) t"
    ).fetchone()
    assert list(got) == [7, 3.5, 2.25]
    assert [type(v) for v in got] == [int, float, float]


@contract_case(find_question_ids, utcnow)
def test_question_search_ignores_case_on_both(any_db: Database) -> None:
    """SQLite's ``like`` ignores (ASCII) case, PostgreSQL's does not: both search the same."""
    any_db.execute("update questions set question = 'Who keeps the Lighthouse?' where id = 'q2'")
    assert find_question_ids(any_db, {}, search="LIGHTHOUSE") == ["q2"]
    assert find_question_ids(any_db, {}, search="who") == ["q1", "q2"]
    assert find_question_ids(any_db, {}, search="q1") == ["q1"]  # an id matches as it is


@contract_case(add_run_totals, recent_runs, start_run, utcnow)
def test_recent_runs_round_the_cost_on_both(any_db: Database) -> None:
    """``round(double, n)`` does not exist on PostgreSQL: the cost is rounded in Python."""
    run = start_run(any_db, "judge", "j", {}, started_at="2026-01-01")
    add_run_totals(any_db, run, n_calls=1, input_tokens=1, output_tokens=1, cost_usd=0.123456)
    (found,) = recent_runs(any_db)
    assert (found.id, found.cost_usd, found.config) == (run, 0.1235, {})


@contract_case(add_run_totals, answers_fingerprint, data_version, start_run, utcnow)
def test_fingerprints_follow_runs_and_answers_on_both(any_db: Database) -> None:
    """No ``total()``, no ``max(rowid)``: a new run, a running run's cost and an answer's text
    each move the keys."""
    v0, a0 = data_version(any_db), answers_fingerprint(any_db)
    run = start_run(any_db, "judge", "r", {}, started_at="2026-01-01")
    v1 = data_version(any_db)
    add_run_totals(any_db, run, n_calls=2, input_tokens=1, output_tokens=1, cost_usd=0.5)
    v2 = data_version(any_db)
    assert len({v0, v1, v2}) == 3 and len(v2) == len(v0)
    any_db["answers"].insert({"question_id": "q1", "system": "s1", "text": "x"} | _at())
    a1 = answers_fingerprint(any_db)
    any_db.execute("update answers set text = 'longer' where system = 's1'")
    assert len({a0, a1, answers_fingerprint(any_db)}) == 3


def _at() -> dict[str, str]:
    return {"created_at": utcnow()}


def _verdict(db: Database, rater: str, verdict: str = "A") -> None:
    db["judgments"].insert(
        {"kind": "pairwise", "question_id": "q1", "rater": rater, "rater_kind": "auto"}
        | {"system_a": "s1", "system_b": "s2", "verdict": verdict, "status": "ok"}
        | _at()
    )


@contract_case(open_db, utcnow, verdict_summary)
def test_the_kept_summary_belongs_to_its_database(any_db: Database, new_db_location: Any) -> None:
    """Two databases with the same largest judgment id never share a kept summary (the key is
    the file on SQLite; the database, server and counts on PostgreSQL)."""
    other = open_db(new_db_location("other"))
    try:
        for db in (any_db, other):
            db["documents"].insert(
                {"id": "d2", "kind": "book", "source": "t", "text": "x", "n_chars": 1}
                | {"n_tokens": 1, "sha256": "", "updated_at": utcnow()}
                | _at()
            )
            db["questions"].insert(
                {"id": "q1", "document_id": "d2", "question": "?", "origin": "imported"}
                | {"updated_at": utcnow()}
                | _at(),
                ignore=True,
            )
        _verdict(any_db, "auto:one")
        _verdict(other, "auto:two")
        assert [r[0] for r in verdict_summary(any_db, "pairwise")] == ["auto:one"]
        assert [r[0] for r in verdict_summary(other, "pairwise")] == ["auto:two"]
    finally:
        other.close()


def test_a_verdict_committed_late_reaches_every_view(
    pg_template_copy: Any,  # noqa: F811  (the fixtures imported above)
    pg_migrated: str,  # noqa: F811
) -> None:
    """PostgreSQL only (SQLite has one writer at a time): a transaction holding a smaller
    judgment id commits after a larger id was read. The live leaderboard, the judgments' cache
    key and the kept summary still see it."""
    url = pg_template_copy(pg_migrated)
    db, late = open_db(url), open_db(url)
    try:
        now = utcnow()
        db["documents"].insert(
            {"id": "d1", "kind": "book", "source": "t", "text": "x", "n_chars": 1, "n_tokens": 1}
            | {"sha256": "", "created_at": now, "updated_at": now}
        )
        db["questions"].insert(
            {"id": "q1", "document_id": "d1", "question": "?", "origin": "imported"}
            | {"created_at": now, "updated_at": now}
        )
        for verdict in "AB":
            _verdict(db, "auto:x", verdict)
        board = store_leaderboard(db)
        assert len(board.counts) == 2
        late.execute("begin")
        _verdict(late, "auto:late")  # id 3, not committed yet
        _verdict(db, "auto:x", "Equal")  # id 4, committed
        board.refresh(db)
        key = judgments_version(db)
        summary = verdict_summary(db, "pairwise")
        page = LiveLeaderboard("both")
        shown = page.view(db, RankingSettings(n_boot=0))
        assert len(board.counts) == 3 and board.last_id == shown.last_id == 4
        late.execute("commit")
        board.refresh(db)
        assert len(board.counts) == 4
        again = page.view(db, RankingSettings(n_boot=0))  # same last id, one verdict more
        assert again.last_id == 4 and again.leaderboard is not None and shown.leaderboard
        assert again.leaderboard.count_matrix().sum() == shown.leaderboard.count_matrix().sum() + 2
        assert judgments_version(db) != key
        assert verdict_summary(db, "pairwise") != summary
        fresh = store_leaderboard(db)
        assert (fresh.counts.win_matrix() == board.counts.win_matrix()).all()
    finally:
        db.close()
        late.close()


@contract_case(document_dependents, utcnow)
def test_document_dependents_on_both(any_db: Database) -> None:
    """A subquery in FROM needs an alias on PostgreSQL."""
    any_db["answers"].insert({"question_id": "q1", "system": "s1", "text": "x"} | _at())
    assert document_dependents(any_db, "d1") == {"questions": 2, "answers": 1, "judgments": 0}
    assert document_dependents(any_db, "nope") == {"questions": 0, "answers": 0, "judgments": 0}
