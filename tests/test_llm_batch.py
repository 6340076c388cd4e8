"""Batch paths (OpenAI Batch API, Anthropic Message Batches) through the SDKs, loopback only."""

from __future__ import annotations

import json

import pytest

from core.llm import LLMRequest, complete_many
from core.llm.batch import BatchError, batch_status, import_batch, list_batches, submit_batch
from core.llm.catalog import configure, reset_configuration
from core.llm.cost import call_cost
from core.llm.registry import clear_instances
from llm_servers import FakeServer, reply_text


@pytest.fixture
def server(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-batchtest-0123456789abcdefgh")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-batchtest-0123456789abcdef")
    with FakeServer(batch_polls=2) as srv:
        configure("openai", base_url=srv.url + "/v1", timeout_s=2)
        configure("anthropic", base_url=srv.url, timeout_s=2)
        yield srv
    reset_configuration()
    clear_instances()


@pytest.mark.parametrize("model", ["openai:gpt-4o-mini", "anthropic:claude-haiku-4-5"])
def test_batch_submit_poll_import_then_cache(server, db, model):
    from core.store import utcnow

    db["runs"].insert({"id": "run1", "kind": "judge", "started_at": utcnow()})
    reqs = [LLMRequest(model=model, prompt=f"q{i}", context="the book", purpose="judge",
                       tags={"judge": "j1"}) for i in range(5)]
    complete_many(db, reqs[:1])  # one already cached: not sent again
    ids = submit_batch(db, reqs + reqs[1:2], run_id="run1")
    assert len(ids) == 1
    stored = db.execute("select count(*) from llm_batch_items").fetchone()[0]
    assert stored == 4
    assert batch_status(db, ids[0]) == "in_progress"
    with pytest.raises(BatchError):
        import_batch(db, ids[0])  # still running
    result = import_batch(db, ids[0])
    assert result == {"ok": 4, "failed": 0, "new": 4}
    assert import_batch(db, ids[0])["new"] == 0  # idempotent
    assert list_batches(db)[0]["status"] == "imported"
    n_before = len(server.calls)
    out = complete_many(db, reqs, run_id="run1")
    assert len(server.calls) == n_before  # everything from the cache
    assert [r.text for r in out] == [reply_text(f"q{i}") for i in range(5)]
    rows = db.execute("select cost_usd, input_tokens, output_tokens, cached_tokens from llm_calls "
                      "where batch_id is not null").fetchall()
    assert len(rows) == 4
    for cost, n_in, n_out, cached in rows:
        full = call_cost(model, n_in, n_out, cached)
        assert cost == pytest.approx(full * 0.5)
    run = db.execute("select n_calls from runs where id='run1'").fetchone()[0]
    assert run == 4


def test_openai_batch_file_format(server, db):
    ids = submit_batch(db, [LLMRequest(model="openai:gpt-4o-mini", prompt="x", system="S")])
    uploaded = [v for k, v in server.files.items()]
    line = json.loads(uploaded[0].decode().splitlines()[0])
    assert line["method"] == "POST" and line["url"] == "/v1/chat/completions"
    assert line["body"]["messages"][0] == {"role": "system", "content": "S"}
    assert line["custom_id"] == db.execute("select custom_id from llm_batch_items").fetchone()[0]
    assert ids


def test_unknown_batch_and_provider_without_batch(server, db):
    with pytest.raises(BatchError):
        batch_status(db, "nope")
    with pytest.raises(BatchError):
        submit_batch(db, [LLMRequest(model="offline:lexical", task="support",
                                     fields={"answer": "a", "context": "a"})])
