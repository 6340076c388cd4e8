"""The questions table layer: lookups, filters, upserts and counts."""

from __future__ import annotations

from dataclasses import replace

import pytest
from bound_sql import run_sql
from contract_registry import contract_case

from core.errors import StoreError
from core.store.answers import get_answer
from core.store.connection import utcnow
from core.store.questions import (
    Question,
    QuestionOrigin,
    QuestionStatus,
    counts_by_origin,
    distinct_values,
    document_questions,
    find_question_ids,
    generated_exists,
    get_question,
    insert_question,
    pending_review_count,
    question_counts_by_document,
    question_exists,
    questions_by_id,
    update_question,
    upsert_question,
)


@contract_case(get_question, questions_by_id)
def test_get_and_decode(seeded):
    q = get_question(seeded, "q1")
    assert q.answers == ["ref"] and q.provenance == {"model": "m:1"}
    assert q.status == QuestionStatus.PENDING == "pending" and q.origin == QuestionOrigin.GENERATED
    assert get_question(seeded, "nope") is None
    q2 = get_question(seeded, "q2")
    assert (q2.id, q2.origin, q2.metadata) == ("q2", "imported", {})
    assert sorted(questions_by_id(seeded, ["q2", "q1", "zz"])) == ["q1", "q2"]
    assert questions_by_id(seeded, []) == {}
    seeded.execute("update questions set metadata = '{oops' where id = 'q2'")
    with pytest.raises(StoreError, match="column 'metadata' of row 'q2'"):
        get_question(seeded, "q2")


@contract_case(
    counts_by_origin,
    distinct_values,
    document_questions,
    find_question_ids,
    pending_review_count,
    question_counts_by_document,
)
def test_filters_and_counts(seeded):
    db = seeded
    assert find_question_ids(db, {"origin": "generated"}) == ["q1"]
    assert find_question_ids(db, {"origin": "", "status": None}) == ["q1", "q2"]
    assert find_question_ids(db, {}, search="tion q2") == ["q2"]
    assert find_question_ids(db, {}, search="q1") == ["q1"]
    with pytest.raises(ValueError, match="not a question filter"):
        find_question_ids(db, {"question": "x"})
    assert distinct_values(db, "origin") == ["generated", "imported"]
    assert distinct_values(db, "qtype") == []
    accepted = QuestionStatus.ACCEPTED
    assert [q.id for q in document_questions(db, "d1", statuses=[accepted])] == ["q2"]
    assert [q.id for q in document_questions(db, "d1", exclude_status=accepted)] == ["q1"]
    assert document_questions(db, "d1", origin=QuestionOrigin.XRAG) == []
    assert counts_by_origin(db) == {"generated": 1, "imported": 1}
    assert pending_review_count(db) == 1
    assert question_counts_by_document(db, "imported", ["accepted"], ["book"]) == {"d1": 1}
    assert question_counts_by_document(db, "imported", ["accepted"], ["story"]) == {}


@contract_case(
    generated_exists, get_question, question_exists, update_question, upsert_question, utcnow
)
def test_upsert_and_generated(seeded):
    db = seeded
    now = utcnow()
    new = Question(
        id="q3",
        document_id="d1",
        question="new?",
        origin=QuestionOrigin.IMPORTED,
        created_at=now,
        updated_at=now,
    )
    assert upsert_question(db, new) == "inserted"
    assert question_exists(db, "q3")
    update_question(db, "q3", status=QuestionStatus.ACCEPTED, metadata={"note": "kept"})
    changed = replace(new, question="changed?", answers=["a"], created_at="x")
    assert upsert_question(db, changed) == "updated"
    stored = get_question(db, "q3")
    assert (stored.question, stored.answers, stored.created_at) == ("changed?", ["a"], now)
    # the review (status) and metadata of a stored question stay
    assert (stored.status, stored.metadata) == ("accepted", {"note": "kept"})
    assert stored == replace(changed, created_at=now, status="accepted", metadata={"note": "kept"})
    # the same content again (a later time, another run): nothing is written
    assert upsert_question(db, replace(changed, updated_at="later", run_id=None)) == "unchanged"
    assert get_question(db, "q3") == stored
    entity = {"id": 7, "document_id": "d1", "name": "E", "n_mentions": 1, "rank": 1}
    db["entities"].insert({**entity, "method": "proper-noun"})
    run_sql(
        db,
        "update questions set entity_id = 7, provenance = :p where id = 'q1'",
        p='{"model": "m:1", "prompt_hash": "h"}',
    )
    assert generated_exists(db, "d1", 7, "m:1", "h")
    assert not generated_exists(db, "d1", 7, "m:1", "other")


@contract_case(get_answer, get_question)
def test_unknown_stored_status_is_a_store_error(seeded):
    seeded.execute("update questions set status = 'lost' where id = 'q2'")
    with pytest.raises(StoreError, match="column 'status' of row 'q2' holds 'lost', not one of"):
        get_question(seeded, "q2")
    seeded.execute("update answers set status = 'maybe' where id = 2")
    with pytest.raises(StoreError, match="column 'status' of row 2 holds 'maybe'"):
        get_answer(seeded, 2)


@contract_case(get_question, insert_question)
def test_a_question_round_trips_through_its_row(seeded):
    q = Question(
        id="q9",
        document_id="d1",
        question="Who?",
        answers=["Ann", "Anne"],
        origin=QuestionOrigin.XRAG,
        status=QuestionStatus.EDITED,
        provenance={"model": "m:2", "line": 3},
        metadata={"pair_id": 4},
        entity_id=None,
        created_at="2026-01-01",
        updated_at="2026-01-02",
    )
    row = q.to_row()
    assert row["answers"] == '["Ann", "Anne"]' and row["status"] == "edited"
    assert type(row["status"]) is str and type(row["origin"]) is str
    insert_question(seeded, q)
    assert get_question(seeded, "q9") == q
    assert q.as_dict()["status"] == "edited" and type(q.as_dict()["origin"]) is str
