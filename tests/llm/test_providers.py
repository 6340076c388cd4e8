"""The three SDK providers against loopback servers: replies, failures, retries, limits, keys."""

from __future__ import annotations

import json
import logging

import pytest
from db_content import stored_blobs
from llm_servers import KEYS, MODELS, reply_text

from core.errors import ContextTooLongError
from core.llm.catalog import configure
from core.llm.engine import complete, complete_many
from core.llm.registry import clear_instances
from core.llm.types import LLMRequest, ProviderCallError


def req(model: str, prompt: str = "hello", **kw) -> LLMRequest:
    return LLMRequest(model=model, prompt=prompt, **kw)


@pytest.mark.parametrize("model", MODELS)
def test_normal_reply_through_each_sdk(server, db, model):
    resp = complete(db, req(model, "Who is Anna?", system="Answer briefly.", context="A story."))
    assert resp.text == reply_text("Who is Anna?")
    assert resp.input_tokens > 0 and resp.output_tokens == 3
    assert resp.request_id and resp.finish_reason and not resp.cache_hit
    assert resp.cost_usd > 0
    assert len(server.calls) == 1
    row = db.execute("select status, cost_usd, model from llm_calls").fetchone()
    assert row == ("ok", resp.cost_usd, model)


def test_context_first_and_cache_control(server, db):
    book = "Once upon a time " * 10
    complete(db, req("anthropic:claude-haiku-4-5", "q1", system="S", context=book))
    complete(db, req("openai:gpt-4o-mini", "q2", system="S", context=book))
    anth, oai = server.calls[0]["body"], server.calls[1]["body"]
    assert anth["system"][0] == {
        "type": "text",
        "text": book,
        "cache_control": {"type": "ephemeral"},
    }
    assert oai["messages"][0]["content"].startswith(book)


def test_gemini_explicit_context_cache_created_reused_deleted(server, db):
    from core.llm.providers_google import release_context_caches

    book = "word " * 200
    r = complete_many(db, [req("google:gemini-2.5-flash", f"q{i}", context=book) for i in range(3)])
    assert len(server.caches) == 1  # created once, reused three times
    name = next(iter(server.caches))
    assert all(c["body"].get("cachedContent") == name for c in server.calls)
    assert all(x.cached_tokens == 200 for x in r)
    assert release_context_caches() == 1 and server.deleted_caches == [name]


def test_gemini_context_cache_renewed_before_ttl_and_recreated_when_gone(server, db, monkeypatch):
    import core.llm.providers_google as g

    clock = [0.0]
    monkeypatch.setattr(g, "_now", lambda: clock[0])
    configure("google", explicit_cache_ttl_s=100)
    book = "word " * 200
    ask = lambda p: complete(db, req("google:gemini-2.5-flash", p, context=book))  # noqa: E731
    ask("q0")
    first = next(iter(server.caches))
    clock[0] = 50.0  # half the TTL: reused
    ask("q1")
    assert list(server.caches) == [first] and server.calls[-1]["body"]["cachedContent"] == first
    clock[0] = 85.0  # past RENEW_AT (0.8) of the TTL: replaced, the old one deleted
    ask("q2")
    (second,) = server.caches
    assert second != first and server.deleted_caches == [first]
    assert server.calls[-1]["body"]["cachedContent"] == second
    server.caches.clear()  # expired on the server side anyway
    resp = ask("q3")
    assert resp.ok and resp.cached_tokens == 200 and len(server.caches) == 1
    assert db.execute("select attempts from llm_calls order by id desc").fetchone()[0] == 2
    g.release_context_caches()


@pytest.mark.parametrize("model", MODELS)
def test_retry_after_is_honoured(server, db, model):
    server.plan = [("status", 429, {"Retry-After": "1"}, {"error": {"message": "slow"}})]
    resp = complete(db, req(model))
    assert resp.text == reply_text("hello")
    assert len(server.calls) == 2
    assert server.calls[1]["t"] - server.calls[0]["t"] >= 1.0
    assert db.execute("select attempts from llm_calls").fetchone()[0] == 2


@pytest.mark.parametrize("model", MODELS)
def test_500_is_retried_then_succeeds(server, db, model):
    server.plan = [("status", 500, {}, {"error": {"message": "boom"}})] * 2
    assert complete(db, req(model)).text == reply_text("hello")
    assert len(server.calls) == 3


@pytest.mark.parametrize(
    "behaviour,kind",
    [
        ("timeout", "timeout"),
        ("truncated", "connection"),
        ("nonjson", "bad_response"),
        (("status", 500, {}, {"error": {"message": "boom"}}), "server"),
        (("status", 429, {}, {"error": {"message": "slow"}}), "rate_limit"),
    ],
)
@pytest.mark.parametrize("model", MODELS)
def test_failure_recorded_with_kind_and_run_carries_on(server, db, model, behaviour, kind):
    server.sticky = {"FAIL-ME": behaviour}  # every attempt of this call fails
    if behaviour == "timeout":
        configure(model.split(":")[0], timeout_s=0.5)
        clear_instances()
    out = complete_many(db, [req(model, "FAIL-ME"), req(model, "b")], seed=1)
    assert out[0].error_kind == kind and out[0].text == "" and kind in out[0].error + kind
    assert out[1].ok and out[1].text == reply_text("b")
    assert len(server.calls) == 4  # 3 attempts of the failing call + the other call
    row = db.execute("select error_kind, attempts from llm_calls where status='error'").fetchone()
    assert row == (kind, 3)
    assert db.execute("select count(*) from llm_cache").fetchone()[0] == 1
    with pytest.raises(ProviderCallError):
        complete(db, req(model, "FAIL-ME again"))


def test_bad_request_is_not_retried(server, db):
    server.plan = [("status", 400, {}, {"error": {"message": "bad"}})]
    out = complete_many(db, [req("openai:gpt-4o-mini")])
    assert out[0].error_kind == "bad_request" and len(server.calls) == 1


def test_cache_hit_makes_zero_requests(server, db):
    reqs = [req(m, f"p{i}") for m in MODELS for i in range(3)]
    first = complete_many(db, reqs)
    n = len(server.calls)
    assert n == 9 and not any(r.cache_hit for r in first)
    again = complete_many(db, reqs)
    assert len(server.calls) == n
    assert all(r.cache_hit and r.cost_usd == 0 for r in again)
    assert [r.text for r in again] == [r.text for r in first]
    complete_many(db, reqs[:2], refresh=True)
    complete_many(db, reqs[:1], use_cache=False)
    assert len(server.calls) == n + 3


def test_identical_requests_sent_once(server, db):
    out = complete_many(db, [req("openai:gpt-4o-mini")] * 5)
    assert len(server.calls) == 1 and sum(r.cache_hit for r in out) == 4


def test_concurrency_bound_respected(server, db):
    server.delay = 0.1
    configure("openai", max_in_flight=4)
    complete_many(db, [req("openai:gpt-4o-mini", f"p{i}") for i in range(24)])
    assert server.peak == 4


def test_rpm_limit_spaces_requests(server, db):
    configure("anthropic", rpm=600)  # 10 per second after a full bucket of 600 - use a small one
    configure("anthropic", rpm=120)  # bucket 120, refill 2/s
    from core.llm.limits import TokenBucket

    clock = [0.0]
    slept = []
    bucket = TokenBucket(120, clock=lambda: clock[0])

    def sleep(s):
        slept.append(s)
        clock[0] += s

    for _ in range(121):
        bucket.take(1, sleep=sleep)
    assert slept and abs(sum(slept) - 0.5) < 1e-9  # the 121st waits 1/2 s


def test_run_totals_updated(server, db):
    from core.store.connection import utcnow

    db["runs"].insert({"id": "r1", "kind": "answer", "started_at": utcnow()})
    out = complete_many(db, [req("openai:gpt-4o-mini", f"p{i}") for i in range(3)], run_id="r1")
    run = db.execute("select n_calls, input_tokens, output_tokens, cost_usd from runs").fetchone()
    assert run[0] == 3 and run[1] == sum(r.input_tokens for r in out) and run[2] == 9
    assert run[3] == pytest.approx(sum(r.cost_usd for r in out))
    complete_many(db, [req("openai:gpt-4o-mini", f"p{i}") for i in range(3)], run_id="r1")
    assert db.execute("select n_calls from runs").fetchone()[0] == 3  # hits add nothing


def test_context_too_long_raises_before_any_request(server, db):
    from core.llm.windows import fits_context

    big = req("openai:gpt-4o-mini", context="word " * 130_000)
    assert not fits_context(big.model, big)
    with pytest.raises(ContextTooLongError):
        complete_many(db, [req("openai:gpt-4o-mini"), big])
    assert server.calls == []


def test_planted_key_appears_nowhere(server, db_path, caplog, capsys):
    from core.store.database import open_db

    caplog.set_level(logging.DEBUG)
    db = open_db(db_path)
    # the server echoes the key back in its error body: it must still not leak
    for key in KEYS.values():
        server.plan.append(("status", 401, {}, {"error": {"message": f"bad key {key}"}}))
    errors = []
    for model in MODELS:
        try:
            complete(db, req(model, "x"))
        except ProviderCallError as exc:
            errors.append(str(exc))
    server.plan = []
    complete_many(db, [req(m, "y") for m in MODELS])
    blobs = stored_blobs(db, db_path)  # closes db
    assert len(errors) == 3 and all("401" in e for e in errors)
    assert all(c["auth"] and any(k in c["auth"] for k in KEYS.values()) for c in server.calls)
    text = "\n".join(errors) + caplog.text + capsys.readouterr().err
    for key in KEYS.values():
        assert key not in text
        assert all(key.encode() not in b for b in blobs)


def test_model_available_without_key(monkeypatch, tmp_path):
    from core.llm.registry import model_available

    monkeypatch.chdir(tmp_path)
    for k in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY"):
        monkeypatch.delenv(k, raising=False)
    assert model_available("openai:gpt-4o") == (False, "unavailable: set OPENAI_API_KEY")
    assert model_available("google:gemini-2.5-flash")[0] is False
    assert model_available("offline:lexical") == (True, "ok")
    (tmp_path / ".env").write_text("ANTHROPIC_API_KEY=sk-ant-fromdotenv-0123456789\n")
    assert model_available("anthropic:claude-haiku-4-5") == (True, "ok")


def test_interrupted_run_keeps_every_paid_reply_in_whole_rows_and_resumes(server, db, monkeypatch):
    import core.llm.engine as engine

    real, seen = engine.ledger_row, []

    def interrupt_on_third(*args, **kw):
        seen.append(1)
        if len(seen) == 3:  # Ctrl-C while the third reply is being committed
            raise KeyboardInterrupt
        return real(*args, **kw)

    configure("openai", max_in_flight=1)
    server.delay = 0.05
    monkeypatch.setattr(engine, "ledger_row", interrupt_on_third)
    reqs = [req("openai:gpt-4o-mini", f"p{i}") for i in range(6)]
    with pytest.raises(KeyboardInterrupt):
        complete_many(db, reqs)
    monkeypatch.setattr(engine, "ledger_row", real)
    paid = len(server.calls)
    assert 3 <= paid < 6  # the queued calls were cancelled, not sent
    cached = {r[0] for r in db.execute("select key from llm_cache")}
    ledger = [r[0] for r in db.execute("select cache_key from llm_calls")]
    # every reply the server was paid for is kept, each with exactly one ledger row
    assert len(cached) == paid and sorted(ledger) == sorted(cached)
    sent = len(server.calls)
    out = complete_many(db, reqs)
    assert all(r.ok for r in out) and len(server.calls) - sent == 6 - paid
    assert sum(r.cache_hit for r in out) == paid


@pytest.mark.parametrize("model", ["openai:gpt-4o-mini", "google:gemini-2.5-flash"])
def test_batch_cli_submit_status_import(server, db_path, tmp_path, capsys, model):
    from core.__main__ import main

    server.batch_polls = 0  # finished at the first poll
    path = tmp_path / "reqs.jsonl"
    path.write_text("\n".join(json.dumps({"model": model, "prompt": f"q{i}"}) for i in range(3)))
    assert main(["--db", str(db_path), "batch", "submit", str(path), "--dry-run"]) == 0
    assert "3 requests to send" in capsys.readouterr().out
    assert main(["--db", str(db_path), "batch", "submit", str(path)]) == 0
    batch_id = capsys.readouterr().out.split("submitted ")[1].split()[0]
    assert main(["--db", str(db_path), "batch", "status"]) == 0
    assert batch_id in capsys.readouterr().out
    assert main(["--db", str(db_path), "batch", "import", batch_id]) == 0
    assert "3 replies" in capsys.readouterr().out
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"model": "openai:gpt-4o-mini"}\nnot json\n')
    assert main(["--db", str(db_path), "batch", "submit", str(bad)]) == 2
    assert "line 2" in capsys.readouterr().err


def test_anthropic_temperature_not_sent_unless_in_extra_body(server, db):
    """anthropic SDK 2.x has no sampling parameters: temperature goes only via extra_body."""
    complete(db, req("anthropic:claude-haiku-4-5", "t1", temperature=0.7))
    complete(
        db,
        req(
            "anthropic:claude-haiku-4-5",
            "t2",
            params={"anthropic": {"extra_body": {"temperature": 0.0}}},
        ),
    )
    first, second = server.calls[0]["body"], server.calls[1]["body"]
    assert "temperature" not in first
    assert second["temperature"] == 0.0


def test_cache_mode_off_and_refresh_for_every_caller(server, db, monkeypatch):
    from core.errors import ConfigError
    from core.llm.engine import cache_mode, set_cache_mode

    model = "openai:gpt-4o-mini"
    monkeypatch.setenv("WORKBENCH_LLM_CACHE", "off")
    complete_many(db, [req(model, "a")])
    complete_many(db, [req(model, "a")])
    assert (
        len(server.calls) == 2 and db.execute("select count(*) from llm_cache").fetchone()[0] == 0
    )
    monkeypatch.setenv("WORKBENCH_LLM_CACHE", "refresh")
    complete_many(db, [req(model, "a")])
    assert (
        len(server.calls) == 3 and db.execute("select count(*) from llm_cache").fetchone()[0] == 1
    )
    monkeypatch.delenv("WORKBENCH_LLM_CACHE")
    assert complete(db, req(model, "a")).cache_hit and len(server.calls) == 3
    try:
        set_cache_mode("off")
        assert cache_mode() == "off" and not complete(db, req(model, "a")).cache_hit
        assert complete(db, req(model, "a"), use_cache=True).cache_hit  # explicit wins
    finally:
        set_cache_mode(None)
    assert len(server.calls) == 4
    with pytest.raises(ConfigError):
        set_cache_mode("sometimes")
    monkeypatch.setenv("WORKBENCH_LLM_CACHE", "maybe")
    with pytest.raises(ConfigError, match="WORKBENCH_LLM_CACHE"):
        complete(db, req(model, "b"))
    assert len(server.calls) == 4


def test_ask_cli_estimate_cache_flags_and_errors(server, db_path, tmp_path, capsys):
    from core.__main__ import main

    base = ["--db", str(db_path), "ask", "openai:gpt-4o-mini", "Who is Anna?"]
    book = tmp_path / "book.txt"
    book.write_text("Anna is a painter from Lyon. " * 20)
    assert main(base + ["--context-file", str(book), "--dry-run"]) == 0
    out = capsys.readouterr()
    assert "estimate: 1 requests to send" in out.err and server.calls == []
    assert main(base + ["--context-file", str(book)]) == 0
    out = capsys.readouterr()
    assert out.out.strip() == reply_text("Who is Anna?") and "cached" in out.err
    assert server.calls[0]["body"]["messages"][0]["content"].startswith("Anna is a painter")
    assert main(base + ["--context-file", str(book), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["cache_hit"] is True and len(server.calls) == 1
    assert main(base + ["--context-file", str(book), "--refresh"]) == 0
    assert main(base + ["--context-file", str(book), "--no-cache"]) == 0
    assert len(server.calls) == 3
    capsys.readouterr()
    big = tmp_path / "big.txt"
    big.write_text("word " * 130_000)
    assert main(base + ["--context-file", str(big), "--dry-run"]) == 2
    assert "exceeds the context window" in capsys.readouterr().err
    assert main(base + ["--context-file", str(tmp_path / "missing.txt")]) == 2
    assert "no such file" in capsys.readouterr().err
    assert main(["--db", str(db_path), "ask", "nosuch:model", "q", "--dry-run"]) == 2
    assert "unknown provider" in capsys.readouterr().err
    assert len(server.calls) == 3
