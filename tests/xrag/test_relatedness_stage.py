"""XRAG pair relatedness on the one LLM-stage runner: interrupted after k replies, the k pairs
are stored with their verdicts; the rerun asks only about the pairs still undecided."""

from __future__ import annotations

import json

import pytest
from interrupting import answered, interrupt_after, one_call_in_flight

from core.store.connection import rows
from core.xrag.articles import get_pairs, import_articles, pair_articles


def _articles(db, tmp_path) -> None:
    path = tmp_path / "a.jsonl"
    records = [
        {
            "id": f"a{i}",
            "title": f"Tesla and Edison meet in New York, part {i}",
            "text": f"Text of part {i} about Tesla and Edison.",
            "published": f"2024-01-0{i + 1}",
            "language": "en",
            "url": f"https://example.org/a{i}",
        }
        for i in range(5)
    ]
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    import_articles(db, path)


def _reply(req) -> str:
    return '{"related": "yes", "explanation": "same meeting"}'


def test_interrupted_pairing_keeps_each_decided_pair_and_resumes(db, tmp_path):
    _articles(db, tmp_path)
    model = "scripted:xrag-rel-int"
    with one_call_in_flight():
        interrupt_after("xrag-rel-int", 4, _reply, lambda: db["article_pairs"].count)
        with pytest.raises(KeyboardInterrupt):
            pair_articles(db, model=model)  # 10 candidate pairs: Ctrl-C on the fifth reply
        assert answered("xrag-rel-int") == 4
        stored = get_pairs(db, status=None)
        assert len(stored) == 4  # each paid verdict stored as it arrived
        assert all(p["method"] == "title-entities+model" and p["related"] == "yes" for p in stored)

        interrupt_after("xrag-rel-int", None, _reply)
        stats = pair_articles(db, model=model)
        assert answered("xrag-rel-int") == 6  # only the six undecided pairs were asked
    assert stats == {"candidates": 10, "already confirmed": 4, "active": 6, "new": 6}
    assert len(get_pairs(db)) == 10
    rel = rows(db, "select count(*) as n from article_pairs where related = 'yes'")
    assert rel[0]["n"] == 10
