"""Two imports of the same new question ids at once (issue 38): the one that plans first and
writes second used to meet a unique-constraint error (a traceback, 1 run in 10). The race is
made to happen every time, with no clock: the other import runs to completion right after this
one made its plan. This one then plans again inside its retry and stores nothing twice."""

from __future__ import annotations

import pytest
from cli_run import run_cli

import core.corpus.question_sets as question_sets
from core.corpus.documents import upsert_document
from core.store.database import open_db

QUESTIONS = (
    "question,document_id,answers,id\nWho kept it?,book:b,Ansel,q7\nWhich?,book:b,Orion,q8\n"
)


@pytest.fixture
def files(db_path, tmp_path):
    db = open_db(db_path)
    upsert_document(
        db, "book:b", "Ansel Brand kept the lighthouse.\n", kind="book", source="file", title="B"
    )
    db.close()
    (tmp_path / "q.csv").write_text(QUESTIONS, encoding="utf-8")
    (tmp_path / "q2.csv").write_text(QUESTIONS.replace("Which?", "Which one?"), encoding="utf-8")
    return tmp_path


def _race(monkeypatch, db_path, other_file):
    """After this import's first plan, another connection imports ``other_file`` in full."""
    real_plan = question_sets._plan
    calls = []

    def plan_then_lose_the_race(db, rows, path, replace):
        plan = real_plan(db, rows, path, replace)
        calls.append(plan)
        if len(calls) == 1:
            other = open_db(db_path)
            try:
                question_sets.import_questions(other, other_file)
            finally:
                other.close()
        return plan

    monkeypatch.setattr(question_sets, "_plan", plan_then_lose_the_race)
    return calls


def test_the_same_file_twice_at_once_stores_each_question_once(db_path, files, monkeypatch):
    calls = _race(monkeypatch, db_path, files / "q.csv")
    code, out, err = run_cli(["--db", str(db_path), "import-questions", str(files / "q.csv")])
    assert "Traceback" not in err
    assert code == 0, err
    assert '"unchanged": 2' in out  # planned again: the other import stored the same rows
    assert len(calls) == 3  # this plan, the other import's, this one planned again
    db = open_db(db_path)
    ids = [r["id"] for r in db.query("select id from questions order by id")]
    db.close()
    assert ids == ["q7", "q8"]


def test_a_different_text_meanwhile_is_an_update(db_path, files, monkeypatch):
    _race(monkeypatch, db_path, files / "q2.csv")
    code, out, err = run_cli(["--db", str(db_path), "import-questions", str(files / "q.csv")])
    assert "Traceback" not in err
    assert code == 0, err
    assert '"updated": 1' in out and '"unchanged": 1' in out
    db = open_db(db_path)
    texts = [r["question"] for r in db.query("select question from questions order by id")]
    db.close()
    assert texts == ["Who kept it?", "Which?"]
