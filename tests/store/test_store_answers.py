"""The answers table layer and the app's cache fingerprints."""

from __future__ import annotations

from dataclasses import replace

import sqlalchemy as sa
from bound_sql import run_sql
from contract_registry import contract_case
from pg_round_trips import count_pg

from core.store import prepared
from core.store.answers import (
    Answer,
    AnswerStatus,
    answered,
    answers_version,
    get_answer,
    max_answer_id,
    question_answers,
    save_answer,
)
from core.store.connection import utcnow
from core.store.fingerprints import answers_fingerprint, data_version, judgments_version
from core.store.runs import RunStatus, finish_run, start_run
from core.store.sql_functions import text_size


@contract_case(
    answered, answers_version, get_answer, max_answer_id, question_answers, save_answer, utcnow
)
def test_answers_lookup_and_save(seeded):
    db = seeded
    assert [a.system for a in question_answers(db, "q1")] == ["s1", "s2"]
    first = get_answer(db, 1)
    assert (first.id, first.text, first.status, first.metadata) == (1, "answer s1", "ok", {})
    assert first.status is AnswerStatus.OK
    assert get_answer(db, 99) is None
    assert answered(db, ["s1"]) == {("q1", "s1")} and answered(db, []) == set()
    before = answers_version(db)
    failed = Answer(
        question_id="q1", system="s1", text="", status=AnswerStatus.ERROR, created_at=utcnow()
    )
    assert save_answer(db, failed) == 1  # replaced in place
    assert get_answer(db, 1) == replace(failed, id=1)
    assert answered(db, ["s1"]) == set()
    assert answers_version(db) != before and max_answer_id(db) == 2
    new = save_answer(db, Answer(question_id="q2", system="s2", created_at=utcnow()))
    assert new == 3 == max_answer_id(db)


@contract_case(answers_fingerprint, data_version, finish_run, judgments_version, start_run, utcnow)
def test_fingerprints_move_with_the_data_and_stay_small(seeded):
    db = seeded
    v0 = data_version(db)
    run = start_run(db, "judge", "r", {})
    started = data_version(db)
    assert started != v0
    run_sql(db, "update runs set n_calls = 5 where id = :id", id=run)  # a running run's progress
    v1 = data_version(db)
    assert v1 != started
    for i in range(50):  # many runs: the key keeps its size
        finish_run(db, start_run(db, "judge", f"r{i}", {}), RunStatus.DONE)
    v2 = data_version(db)
    assert len(v2) == len(v0) and v2 != v1
    finish_run(db, run, RunStatus.FAILED)
    assert data_version(db) != v2
    j0, a0 = judgments_version(db), answers_fingerprint(db)
    db["judgments"].insert(
        {
            "kind": "absolute",
            "question_id": "q1",
            "rater": "auto:x",
            "rater_kind": "auto",
            "created_at": utcnow(),
        }
    )
    assert judgments_version(db) != j0 and answers_fingerprint(db) == a0
    assert data_version(db)[0] == 1


def test_the_answers_fingerprint_reads_each_text_s_size_not_its_text(seeded, monkeypatch):
    db = seeded
    """Issue 33: on PostgreSQL ``length`` of a long text decompresses it (5 ms a Side by side
    run for the demo's 776 answers); ``octet_length`` reads the size from the stored value.
    :class:`core.store.sql_functions.text_size` is each database's: characters on SQLite, bytes
    on PostgreSQL. The fingerprint still moves when an answer's size does."""
    size = prepared.scalar(db, sa.select(text_size(sa.literal("é" * 3000))))
    assert size == (3000 if db.dialect.name == "sqlite" else 6000)
    if db.dialect.name == "postgresql":
        sent, _ = count_pg(monkeypatch)
        answers_version(db)
        assert "octet_length(answers.text)" in sent[0] and "(length(" not in sent[0]
    save_answer(db, Answer(question_id="q1", system="s1", created_at=utcnow(), text="é" * 3000))
    before = answers_version(db)
    save_answer(db, Answer(question_id="q1", system="s1", created_at=utcnow(), text="é" * 3001))
    assert answers_version(db) != before
