"""XRAG stages on the one LLM-stage runner, against a loopback OpenAI server: no write
transaction is held during the network run (an annotator's label lands at once), an interrupted
build keeps every paid reply, and a rerun sends nothing for them.

The server holds its replies after the k-th (``hold_after``), so each test acts at a known
point of the build, not after a wall-clock delay."""

from __future__ import annotations

import json
import threading

import pytest
from interrupting import ctrl_c_raises, ctrl_c_when, wait_until
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
from core.store.database import open_db, postgres_url
from core.xrag.build import build_cross_questions

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
    with FakeServer(delay=0.05) as srv:
        srv.reply = cross_reply
        configure("openai", base_url=srv.url + "/v1", max_in_flight=2, max_attempts=1)
        yield srv
    reset_configuration()
    clear_instances()


@pytest.fixture
def items(composed_xrag):
    """A fresh database with the items, the ids of every root question, and where it is
    (tests/xrag/conftest.py)."""
    db, roots, location = composed_xrag
    return db, [qid for qid, _ in roots], location


def _stored(db) -> int:
    return len(rows(db, "select 1 from xrag_items where builder = 'llm'"))


#: A lock another connection holds fails at once instead of waiting (SQLite, PostgreSQL).
NO_WAIT = {False: "pragma busy_timeout = 0", True: "set lock_timeout = '1ms'"}
IDLE_IN_TRANSACTION = (
    "select count(*) from pg_stat_activity where datname = current_database() "
    "and state in ('idle in transaction', 'idle in transaction (aborted)')"
)


def test_a_label_lands_at_once_during_a_long_xrag_build(server, items):
    db, ids, db_path = items
    result: dict = {}
    server.hold_after(2)  # two replies, then the build waits on the network

    def build() -> None:
        result["stats"] = build_cross_questions(db, MODEL)

    worker = threading.Thread(target=build)
    worker.start()
    try:
        reader = open_db(db_path, migrate=False)
        # both replies stored and two more calls held: the build is between writes, on the network
        wait_until(
            lambda: _stored(reader) == 2 and len(server.calls) == 4,
            "two stored items and two held calls",
        )
        if postgres_url(db_path) is not None:
            # no session of this database sits in an open transaction (the build's included)
            assert reader.execute(IDLE_IN_TRANSACTION).fetchone()[0] == 0
        reader.close()
        annotator = open_db(db_path)  # the app's own connection
        annotator.execute(NO_WAIT[postgres_url(db_path) is not None])  # a held lock fails at once
        out = record_review(annotator, ids[0], sign_in_open(annotator, "ann1"), OK)
        annotator.conn.close()
        assert worker.is_alive()  # the label landed while the build was still running
    finally:
        server.release()
        worker.join(timeout=120)
    assert out.decision == "accept"
    assert result["stats"] == {"stored": 24}
    assert _stored(db) == 24


def test_an_interrupted_build_keeps_every_paid_reply_and_the_rerun_sends_none_of_them(
    server, items
):
    db, _, db_path = items
    server.hold_after(4)
    reader = open_db(db_path, migrate=False)  # read on the helper thread

    def four_stored() -> bool:  # and two calls held at the server: the build is on the network
        return _stored(reader) == 4 and len(server.calls) == 6

    with ctrl_c_raises(), pytest.raises(KeyboardInterrupt):
        # Ctrl-C after the fourth stored item, then the held calls are answered
        helper = ctrl_c_when(four_stored, then=server.release)
        build_cross_questions(db, MODEL)
    helper.join(timeout=60)
    reader.close()
    paid = [c["body"] for c in server.calls]
    assert 0 < len(paid) < 24
    cached = rows(db, "select key from llm_cache")
    ledger = rows(db, "select cache_key from llm_calls where status = 'ok'")
    assert len(cached) == len(paid)  # every reply the server sent is kept
    assert sorted(r["cache_key"] for r in ledger) == sorted(r["key"] for r in cached)
    stored = _stored(db)
    assert 4 <= stored <= len(paid)

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
