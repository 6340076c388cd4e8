"""Store SQL made dialect-neutral for PostgreSQL (issue 25), each case on SQLite and PostgreSQL:
staged rows switched into typed columns, an entity edit's new id, questions flagged by an edit,
a reply-cache entry overwritten."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from pg_server import pg_migrated, pg_migrated_url, pg_server  # noqa: F401  (fixtures)

from core.store.connection import transaction, utcnow
from core.store.database import open_db
from core.store.engine import Database
from core.store.entity_edits import flagged_questions, insert_edit
from core.store.llm_cache import CacheEntry, cached_responses, write_calls
from core.store.row_stage import drop_rows_stage, stage_rows, switch_rows


@pytest.fixture(params=["sqlite", "postgresql"])
def any_db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Database]:
    """A fresh migrated SQLite file, or the session's migrated PostgreSQL database emptied."""
    target = (
        tmp_path / "t.db"
        if request.param == "sqlite"
        else request.getfixturevalue("pg_migrated_url")
    )
    db = open_db(target)
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
    yield db
    db.close()


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


def test_an_edit_returns_its_new_id_and_finds_the_questions_it_flagged(any_db: Database) -> None:
    first = insert_edit(any_db, "d1", "rename", {"to": "A"}, "human:admin")
    second = insert_edit(any_db, "d1", "rename", {"to": "B"}, "human:admin", undoes=first)
    assert second > first > 0
    ids = [r[0] for r in any_db.execute("select id from entity_edits order by id").fetchall()]
    assert ids == [first, second]
    for qid, edit in (("q1", second), ("q2", first)):
        meta = json.dumps({"needs_review": {"edit": edit}})
        any_db.execute("update questions set metadata = ? where id = ?", [meta, qid])
    assert [r["id"] for r in flagged_questions(any_db, second, "pending")] == ["q1"]
    assert [r["id"] for r in flagged_questions(any_db, first, "pending")] == ["q2"]
    assert flagged_questions(any_db, first, "accepted") == []


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


def test_sums_come_back_as_sqlite_gives_them(any_db: Database) -> None:
    got = any_db.execute(
        "select sum(x), sum(x) / 2.0, max(y) from (select 3 as x, 1.5 as y union all "
        "select 4, 2.25) t"
    ).fetchone()
    assert list(got) == [7, 3.5, 2.25]
    assert [type(v) for v in got] == [int, float, float]
