"""Large imports of answers and verdicts are staged (short transactions) and switched in at
once: the stored questions, answers and verdicts equal those of the one-transaction path, answer
ids included; a label stored on the same
item between staging and the switch is superseded correctly (the switch plans again)."""

from __future__ import annotations

from pathlib import Path

import pytest

import core.corpus.evaluations as evaluations
from core.corpus.evaluation_layouts import read_judgments
from core.corpus.evaluations import read_answers, store_evaluation
from core.store.database import open_db
from core.store.judgments import (
    JudgmentKind,
    NewJudgment,
    RaterKind,
    effective_values,
    insert_judgment,
)
from core.store.row_stage import live_stages

DATA = Path(__file__).parent / "data" / "evaluations"
COLUMNS = (
    "kind",
    "question_id",
    "rater",
    "system",
    "system_a",
    "system_b",
    "answer_id",
    "answer_a_id",
    "answer_b_id",
    "order_shown",
    "verdict",
    "status",
    "rationale",
    "raw",
    "supersedes",
)


def _import(location: Path | str, stage_above: int, monkeypatch) -> list[list]:
    monkeypatch.setattr(evaluations, "STAGE_ABOVE", stage_above)
    db = open_db(location)
    try:
        store_evaluation(db, read_answers(DATA / "answers.csv"))
        counts = store_evaluation(db, read_judgments(DATA / "judgments.csv"))
        assert counts["judgments"]["inserted"] > 0
        again = store_evaluation(db, read_judgments(DATA / "judgments.csv"))
        assert again["judgments"]["inserted"] == again["judgments"]["updated"] == 0
        got = effective_values(db, ("id", *COLUMNS))
        assert db.execute("select count(*) from row_stage").fetchone()[0] == 0
        assert live_stages(db) == []  # every stage dropped
        stored = [
            db.execute(f"select {cols} from {table} order by 1, 2").fetchall()
            for table, cols in (
                ("answers", "id, question_id, system, text, status, metadata"),
                ("questions", "id, question, context_kind, origin, status, provenance, metadata"),
            )
        ]
        return [sorted(got), *stored]
    finally:
        db.close()


def test_staged_verdicts_equal_the_one_transaction_path(db_path, init_location, monkeypatch):
    staged = _import(db_path, 1, monkeypatch)
    direct = _import(init_location("direct"), 10**9, monkeypatch)
    assert staged == direct  # verdicts, answers and questions
    assert any(r[COLUMNS.index("answer_a_id") + 1] for r in staged[0])  # answer ids were filled
    assert len(staged[1]) > 0 and len(staged[2]) > 0


def test_a_label_on_the_same_item_during_staging_is_superseded(db_path, monkeypatch):
    monkeypatch.setattr(evaluations, "STAGE_ABOVE", 1)
    db = open_db(db_path)
    store_evaluation(db, read_answers(DATA / "answers.csv"))
    ev = read_judgments(DATA / "judgments.csv")
    first = next(r for r in ev.ratings if r["kind"] == "pairwise")
    real_stage_rows = evaluations.stage_rows

    def stage_then_someone_labels(db_, target, rows):
        stage = real_stage_rows(db_, target, rows)
        if target != "judgments":
            return stage
        other = open_db(db_path)  # another writer, between staging and the switch
        try:
            insert_judgment(
                other,
                NewJudgment(
                    kind=JudgmentKind.PAIRWISE,
                    question_id=first["question_id"],
                    rater=first["rater"],
                    rater_kind=RaterKind(first["rater_kind"]),
                    criterion=first["criterion"],
                    system_a=first["system_a"],
                    system_b=first["system_b"],
                    order_shown="ab",
                    verdict="None" if first["verdict"] != "None" else "A",
                    created_at="2026-01-01T00:00:00.000+00:00",
                ),
            )
        finally:
            other.close()
        return stage

    monkeypatch.setattr(evaluations, "stage_rows", stage_then_someone_labels)
    try:
        store_evaluation(db, ev)
        item = ("question_id", "rater", "system_a", "system_b")
        keys = effective_values(db, item)
        assert len(keys) == len(set(keys))  # one effective verdict per rater and item
        mine = [
            r[-1]
            for r in effective_values(db, (*item, "verdict"))
            if r[:-1] == tuple(first[c] for c in item)
        ]
        assert mine == [first["verdict"]]
    finally:
        db.close()


@pytest.mark.parametrize("n_rows", [0, 1, 5000, 5001])
def test_stage_chunks_cover_every_row(db, n_rows):
    from core.store.row_stage import CHUNK_ROWS, drop_rows_stage, live_stages, stage_rows

    rows = [{"a": i, "b": f"x{i}", "c": None} for i in range(n_rows)]
    stage = stage_rows(db, "t", rows)
    if n_rows:
        got = db.execute(f'select a, b, c from {stage.stage} order by "seq"').fetchall()
        assert [(str(a), b, c) for a, b, c in got] == [
            (str(i), f"x{i}", None) for i in range(n_rows)
        ]
        assert live_stages(db) == [stage.stage]
    assert n_rows == stage.n_rows
    assert CHUNK_ROWS == 5000
    drop_rows_stage(db, stage)
    assert live_stages(db) == []
