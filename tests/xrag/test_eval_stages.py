"""XRAG evaluation on the one LLM-stage runner: interrupted among the answers, the stored answers
are kept (results awaiting the panel); interrupted among the panel's votes, the stored votes and
finished results are kept; each rerun sends only what is missing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from interrupting import answered, interrupt_after, one_call_in_flight

from core.store.connection import rows
from core.views.xrag import accuracy_table
from core.xrag.articles import import_articles, pair_articles
from core.xrag.baseline import compose_baseline
from core.xrag.evaluate import evaluate
from core.xrag.notes import import_single_qas

DEMO = Path(__file__).resolve().parents[2] / "demo"
PANEL = ("scripted:xrag-judge-int", "rule:key-recall", "rule:key-facts")


def _count(db, where: str = "true") -> int:
    return db.execute(f"select count(*) from xrag_results where {where}").fetchone()[0]


def test_interrupted_evaluation_keeps_answers_and_votes_and_resumes(db):
    import_articles(db, DEMO / "xrag" / "articles.jsonl", source="xquad")
    import_single_qas(db, DEMO / "xrag" / "qas.jsonl")
    pair_articles(db, min_shared=1)
    compose_baseline(db)
    model = "scripted:xrag-ans-int"

    def run():
        return evaluate(
            db, model, settings=("oracle",), languages=(), controlled=False, panel=PANEL
        )

    def finished() -> int:
        return _count(db, "panel_status != 'pending'")

    def judge(req) -> str:
        return '{"verdict": "yes", "evidence": [], "explanation": "ok"}'

    with one_call_in_flight():
        interrupt_after("xrag-ans-int", 5, lambda req: "(1) x (2) y", lambda: _count(db))
        interrupt_after("xrag-judge-int", None, judge)
        with pytest.raises(KeyboardInterrupt):
            run()  # 18 items (oracle, English): Ctrl-C on the sixth answer
        assert answered("xrag-ans-int") == 5 and _count(db) == 5  # each answer stored at once
        assert _count(db, "panel_status = 'pending'") == 5 and answered("xrag-judge-int") == 0
        assert accuracy_table(db).empty  # answers awaiting the panel are not results yet
        assert [
            r["status"] for r in rows(db, "select status from runs where kind = 'xrag-eval'")
        ] == ["failed"]

        interrupt_after("xrag-ans-int", None, lambda req: "(1) x (2) y")
        interrupt_after("xrag-judge-int", 7, judge, finished)
        with pytest.raises(KeyboardInterrupt):
            run()  # the 13 missing answers, then Ctrl-C on the eighth model vote
        assert answered("xrag-ans-int") == 13 and _count(db) == 18
        assert answered("xrag-judge-int") == 7 and finished() == 7
        judged = "select count(*) from judgments where criterion = 'xrag-key-info'"
        assert db.execute(judged).fetchone()[0] == 7 * 4  # three judges and the panel each

        interrupt_after("xrag-ans-int", None, lambda req: "(1) x (2) y")
        interrupt_after("xrag-judge-int", None, judge)
        out = run()
        assert answered("xrag-ans-int") == 0 and answered("xrag-judge-int") == 11
    assert out["cases"] == 0 and out["skipped"] == 18
    assert sum(v for k, v in out.items() if k not in ("run_id", "cases", "skipped")) == 11
    assert finished() == 18 and _count(db, "panel_status = 'pending'") == 0
    assert db.execute(judged).fetchone()[0] == 18 * 4  # no result judged twice
    votes = rows(db, "select votes from xrag_results order by id")
    assert all(len(json.loads(v["votes"])) == 3 for v in votes)
