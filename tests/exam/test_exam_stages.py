"""EXAM's LLM stages on the one runner (core.llm.stage.run_stage): interrupted after k replies,
a stage keeps the k results it stored, and the rerun sends only the missing requests."""

from __future__ import annotations

import json

import pytest
from bound_sql import decoded_rows
from interrupting import answered, interrupt_after, one_call_in_flight

from core.exam.articles import generate_articles, store_article
from core.exam.bank import import_car_bank
from core.exam.grading import grade_bank
from core.store.connection import rows

ARTICLE = "Granite is an igneous rock that forms when magma cools slowly underground."


def _bank(db, tmp_path, n_queries: int = 5) -> str:
    lines = []
    for i in range(n_queries):
        for kind in ("mc", "ft"):
            lines.append(
                {
                    "query_id": f"q{i}",
                    "query_text": f"rocks {i}",
                    "qid": f"{kind}{i}",
                    "question": f"Which rock forms when magma cools ({kind} {i})?",
                    "choices": {"a": "limestone", "b": "granite"} if kind == "mc" else None,
                    "correctKey": "b" if kind == "mc" else None,
                    "correct": "granite",
                    "facet_id": "",
                }
            )
    path = tmp_path / "bank.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    import_car_bank(db, path, bank_id="toy")
    return "toy"


def test_interrupted_article_writing_keeps_the_stored_articles_and_resumes(db, tmp_path):
    bank = _bank(db, tmp_path)

    def writer(req):
        return f"An overview of {req.fields['query']}: granite is an igneous rock."

    with one_call_in_flight():
        interrupt_after("exam-writer-int", 2, writer, lambda: db["exam_articles"].count)
        with pytest.raises(KeyboardInterrupt):
            generate_articles(db, bank, "writer", "scripted:exam-writer-int")
        assert answered("exam-writer-int") == 2  # two replies, then Ctrl-C on the third call
        stored = rows(db, "select query_id, metadata from exam_articles where system = 'writer'")
        assert len(stored) == 2  # both paid replies were stored as they arrived
        assert all(a["metadata"]["model"] == "scripted:exam-writer-int" for a in stored)

        interrupt_after("exam-writer-int", None, writer)
        assert generate_articles(db, bank, "writer", "scripted:exam-writer-int") == 3
        assert answered("exam-writer-int") == 3  # only the three missing queries were asked
        assert db["exam_articles"].count == 5
        assert generate_articles(db, bank, "writer", "scripted:exam-writer-int") == 0
        assert answered("exam-writer-int") == 3  # nothing missing: nothing sent
    # an imported article of another system is never replaced by the writer
    store_article(db, bank, "q0", "imported", ARTICLE, kind="imported")
    assert db["exam_articles"].count == 6


def _grader(req) -> str:
    if req.task == "exam_answer_mc":
        return "b"
    if req.task == "answer":
        return "granite"
    assert req.task == "match_reference"
    return '{"verdict": "yes"}'


def test_interrupted_grading_keeps_every_stored_grade_and_rating_and_resumes(db, tmp_path):
    bank = _bank(db, tmp_path)
    for i in range(5):
        store_article(db, bank, f"q{i}", "s", ARTICLE, kind="imported")
    model = "scripted:exam-grade-int"
    kwargs = {"qa_model": model, "verification": "ground_truth", "rater_model": model}

    def grades() -> int:
        return db["exam_grades"].count

    def rated() -> int:
        return db.execute("select count(*) from exam_grades where rater != ''").fetchone()[0]

    with one_call_in_flight():
        # 10 Q/A calls (5 multiple choice, 5 free text), then 5 rater calls
        interrupt_after("exam-grade-int", 4, _grader, grades)
        with pytest.raises(KeyboardInterrupt):
            grade_bank(db, bank, **kwargs)
        assert answered("exam-grade-int") == 4 and grades() == 4  # each grade stored at once
        run = rows(db, "select id, status from runs where kind = 'exam'")
        assert [r["status"] for r in run] == ["failed"]
        assert db["exam_runs"].count == 1

        # the rerun asks only the 6 missing Q/A calls, then is interrupted among the ratings
        interrupt_after("exam-grade-int", 8, _grader, lambda: grades() - 4 + rated())
        with pytest.raises(KeyboardInterrupt):
            grade_bank(db, bank, **kwargs)
        assert answered("exam-grade-int") == 8 and grades() == 10 and rated() == 2

        interrupt_after("exam-grade-int", None, _grader)
        run_id = grade_bank(db, bank, **kwargs)
        assert answered("exam-grade-int") == 3  # only the three ratings still missing
    got = decoded_rows(
        db, "select correct, status, rater from exam_grades where run_id = :v", v=run_id
    )
    assert len(got) == 10 and all(g["correct"] == 1 and g["status"] == "ok" for g in got)
    assert sum(g["rater"] == model for g in got) == 5  # the free-text grades, rated once each
    assert (
        decoded_rows(db, "select status from runs where id = :v", v=run_id)[0]["status"] == "done"
    )
    # a finished run graded again with the same configuration sends nothing
    interrupt_after("exam-grade-int", 0, _grader)
    assert grade_bank(db, bank, **kwargs) == run_id
    assert answered("exam-grade-int") == 0 and db["exam_grades"].count == 10
