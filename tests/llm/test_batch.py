"""Batch paths (OpenAI Batch API, Anthropic Message Batches, Gemini batch jobs) through the SDKs,
loopback only."""

from __future__ import annotations

import json

import pytest
from bound_sql import run_sql
from llm_servers import FakeServer, reply_text

from core.llm.batch import BatchError, batch_status, import_batch, submit_batch
from core.llm.catalog import configure, reset_configuration
from core.llm.cost import call_cost
from core.llm.engine import complete_many
from core.llm.registry import clear_instances
from core.llm.types import LLMRequest
from core.store.llm_batches import list_batches


@pytest.fixture
def server(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-batchtest-0123456789abcdefgh")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-batchtest-0123456789abcdef")
    monkeypatch.setenv("GEMINI_API_KEY", "AIzaBATCHTEST-gemini-0123456789abcdef")
    with FakeServer(batch_polls=2) as srv:
        configure("openai", base_url=srv.url + "/v1", timeout_s=30)
        configure("anthropic", base_url=srv.url, timeout_s=30)
        configure("google", base_url=srv.url, timeout_s=30)
        yield srv
    reset_configuration()
    clear_instances()


@pytest.mark.parametrize(
    "model, gemini_file",
    [
        ("openai:gpt-4o-mini", False),
        ("anthropic:claude-haiku-4-5", False),
        ("google:gemini-2.5-flash", False),
        ("google:gemini-2.5-flash", True),
    ],
)
def test_batch_submit_poll_import_then_cache(server, db, model, gemini_file, monkeypatch):
    from core.store.connection import utcnow

    if gemini_file:  # force the JSONL upload instead of inline requests
        monkeypatch.setattr("core.llm.batch_google.INLINE_MAX_BYTES", 0)
    db["runs"].insert({"id": "run1", "kind": "judge", "started_at": utcnow()})
    reqs = [
        LLMRequest(
            model=model, prompt=f"q{i}", context="the book", purpose="judge", tags={"judge": "j1"}
        )
        for i in range(5)
    ]
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
    rows = db.execute(
        "select cost_usd, input_tokens, output_tokens, cached_tokens from llm_calls "
        "where batch_id is not null"
    ).fetchall()
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
        submit_batch(
            db,
            [
                LLMRequest(
                    model="offline:lexical", task="support", fields={"answer": "a", "context": "a"}
                )
            ],
        )


def _gemini_reqs(n, **kw):
    return [
        LLMRequest(
            model="google:gemini-2.5-flash",
            prompt=f"q{i}",
            system="S",
            context="the book",
            temperature=0.0,
            max_tokens=64,
            **kw,
        )
        for i in range(n)
    ]


def test_gemini_inline_request_shape(server, db):
    ids = submit_batch(db, _gemini_reqs(2))
    assert ids[0].startswith("batches/")
    job = server.batches[ids[0]]
    assert not job["file"] and job["model"] == "gemini-2.5-flash"
    first = job["requests"][0]
    keys = sorted(r[0] for r in db.execute("select custom_id from llm_batch_items"))
    assert sorted(r["metadata"]["key"] for r in job["requests"]) == keys  # each stored once
    assert first["request"]["contents"] == [{"role": "user", "parts": [{"text": "q0"}]}]
    # the context goes first in the system instruction: no explicit cache for a 24 h job
    assert first["request"]["systemInstruction"]["parts"][0]["text"] == "the book\n\nS"
    assert first["request"]["generationConfig"] == {"temperature": 0.0, "maxOutputTokens": 64}
    assert not server.caches


def test_gemini_file_mode_errors_and_resume_by_id(server, db, monkeypatch):
    """JSONL upload + result file; a failed item is recorded; a fresh client resumes by id."""
    monkeypatch.setattr("core.llm.batch_google.INLINE_MAX_BYTES", 0)
    reqs = _gemini_reqs(3) + [LLMRequest(model="google:gemini-2.5-flash", prompt="FAILME")]
    (bid,) = submit_batch(db, reqs)
    (upload,) = [v for k, v in server.files.items() if k.startswith("files/")]
    lines = [json.loads(x) for x in upload.decode().splitlines()]
    assert sorted(x["key"] for x in lines) == sorted(
        r[0] for r in db.execute("select custom_id from llm_batch_items")
    )
    assert lines[0]["request"]["contents"][0]["parts"][0]["text"] == "q0"
    assert lines[0]["request"]["generationConfig"]["maxOutputTokens"] == 64
    assert batch_status(db, bid) == batch_status(db, bid) == "in_progress"
    clear_instances()  # as after a restart: only the batch id is known
    assert import_batch(db, bid) == {"ok": 3, "failed": 1, "new": 4}
    assert import_batch(db, bid)["new"] == 0
    err = run_sql(
        db,
        "select status, error_kind from llm_calls where batch_id = :b and status = 'error'",
        b=bid,
    ).fetchall()
    assert err == [("error", "bad_request")]
    n_before = len(server.calls)
    out = complete_many(db, reqs[:3])
    assert len(server.calls) == n_before and all(r.cache_hit for r in out)
    assert [r.text for r in out] == [reply_text(f"q{i}") for i in range(3)]
