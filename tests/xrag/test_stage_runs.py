"""XRAG stages on the one LLM-stage runner, against a slow loopback OpenAI server: no write
transaction is held during the network run (an annotator's label lands at once), an interrupted
build keeps every paid reply, and a rerun sends nothing for them."""

from __future__ import annotations

import _thread
import json
import threading
import time

import pytest
from llm_servers import FakeServer

from core.annotation.identity import sign_in_open
from core.annotation.reviews import record_review
from core.errors import ConfigError
from core.llm.catalog import configure, reset_configuration
from core.llm.engine import complete_many
from core.llm.registry import clear_instances
from core.llm.stage import run_stage
from core.llm.types import LLMRequest
from core.store.connection import rows, transaction
from core.store.database import open_db
from core.xrag.articles import import_articles, pair_articles
from core.xrag.baseline import compose_baseline
from core.xrag.build import build_cross_questions
from core.xrag.notes import import_single_qas

MODEL = "openai:gpt-4o-mini"
OK = {
    "intelligible": True,
    "answerable": True,
    "answer_correct": True,
    "support_a": "Some",
    "support_b": "Some",
}


def cross_reply(prompt: str) -> str:
    """A valid cross-document question for any pair and type."""
    return json.dumps(
        {
            "question": "Which of the two events happened first?",
            "answer": "The first one.",
            "sub_questions": ["A1", "B1"],
        }
    )


@pytest.fixture
def server(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-stage-test-0123456789abcdefXYZ")
    monkeypatch.delenv("WORKBENCH_LLM_CACHE", raising=False)
    with FakeServer(delay=0.4) as srv:
        srv.reply = cross_reply
        configure("openai", base_url=srv.url + "/v1", max_in_flight=2, max_attempts=1)
        yield srv
    reset_configuration()
    clear_instances()


@pytest.fixture
def items(db, demo_dir):
    import_articles(db, demo_dir / "xrag" / "articles.jsonl", source="xquad")
    import_single_qas(db, demo_dir / "xrag" / "qas.jsonl")
    pair_articles(db, min_shared=1)
    compose_baseline(db, per_pair=1)
    ids = [
        r["id"] for r in rows(db, "select id from questions where parent_id is null order by id")
    ]
    return db, ids


def test_a_label_lands_within_a_second_during_a_long_xrag_build(server, items, db_path):
    db, ids = items
    result: dict = {}

    def build() -> None:
        result["stats"] = build_cross_questions(db, MODEL)

    worker = threading.Thread(target=build)
    worker.start()
    while len(server.calls) < 3:  # the build is on the network (24 calls, 2 in flight, 0.4 s)
        time.sleep(0.01)
    annotator = open_db(db_path)  # the app's own connection
    took = []
    for name in ("ann1", "ann2", "ann3"):  # three labels: the fastest shows no lock was held
        started = time.monotonic()
        out = record_review(annotator, ids[0], sign_in_open(annotator, name), OK)
        took.append(time.monotonic() - started)
    annotator.conn.close()
    still_running = worker.is_alive()
    worker.join(timeout=60)
    assert still_running, "the build finished before the labels were written: test too short"
    assert min(took) < 1.0, f"the labels waited {took} s for the build's transaction"
    assert out.decision == "accept"
    assert result["stats"] == {"stored": 24}
    assert len(rows(db, "select 1 from xrag_items where builder = 'llm'")) == 24


def test_an_interrupted_build_keeps_every_paid_reply_and_the_rerun_sends_none_of_them(
    server, items
):
    db, _ = items
    timer = threading.Timer(1.3, _thread.interrupt_main)  # Ctrl-C part-way through the run
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        build_cross_questions(db, MODEL)
    timer.join()
    paid = [c["body"] for c in server.calls]
    assert 0 < len(paid) < 24
    cached = rows(db, "select key from llm_cache")
    ledger = rows(db, "select cache_key from llm_calls where status = 'ok'")
    assert len(cached) == len(paid)  # every reply the server sent is kept
    assert sorted(r["cache_key"] for r in ledger) == sorted(r["key"] for r in cached)
    stored = len(rows(db, "select 1 from xrag_items where builder = 'llm'"))
    assert 0 < stored <= len(paid)

    sent = len(server.calls)
    stats = build_cross_questions(db, MODEL)
    assert len(server.calls) - sent == 24 - len(paid)  # 0 requests for the paid replies
    again = [json.dumps(c["body"], sort_keys=True) for c in server.calls[sent:]]
    assert not {json.dumps(b, sort_keys=True) for b in paid} & set(again)
    assert stats["already done"] == stored and stats["stored"] == 24 - stored
    assert len(rows(db, "select 1 from xrag_items where builder = 'llm'")) == 24


def test_model_calls_are_refused_inside_a_write_transaction(db):
    req = LLMRequest(
        model="offline:extractive",
        task="answer",
        prompt="q?",
        context="text",
        fields={"question": "q?", "context": "text"},
    )
    with transaction(db):
        with pytest.raises(ConfigError, match="inside a write transaction"):
            complete_many(db, [req])
        with pytest.raises(ConfigError, match="inside a write transaction"):
            run_stage(db, [(1, req)], lambda db, job, resp: "stored")
    assert run_stage(db, [(1, req)], lambda db, job, resp: "stored") == {"stored": 1}
