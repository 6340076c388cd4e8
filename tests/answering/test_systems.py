"""Answering systems: contexts (none / rag / full / oracle), windows, storage and reruns."""

import json

import pytest
from qa_fixtures import STORY, SUMMARY, seed

from core.answering.answer_runs import answer_questions, plan_answers
from core.answering.systems import (
    bm25_rag,
    full_context,
    load_questions,
    make_system,
    no_context,
    oracle,
    system_kinds,
)
from core.errors import ConfigError, ContextTooLongError, InputError
from core.llm import catalog
from core.llm.scripted import call_count, set_script
from core.store.connection import utcnow


def echo_context(request):
    """A scripted answerer that reports what it was given (to test contexts)."""
    return f"ctx={len(request.context)} orion={'Orion' in request.context}"


def test_kinds_and_factories():
    assert set(system_kinds()) == {"none", "rag", "full", "oracle"}
    assert no_context("offline:extractive").context == "none"
    assert bm25_rag("offline:extractive", tokens=1000).tokens == 1000
    assert full_context("offline:extractive", fallback="rag").fallback == "rag"
    assert oracle("offline:extractive").prompt == "answer_with_context"
    assert no_context("x:y", one_sentence=True).prompt == "answer_one_sentence_no_context"
    with pytest.raises(ConfigError, match="unknown system kind"):
        make_system({"name": "s", "kind": "telepathy", "model": "offline:extractive"})
    with pytest.raises(ConfigError, match="unknown settings"):
        make_system({"name": "s", "kind": "rag", "model": "offline:extractive", "tokenz": 3})


def test_contexts_reach_the_model(db):
    seed(db)
    set_script("ctx", echo_context)
    systems = [
        no_context("scripted:ctx", name="none"),
        bm25_rag("scripted:ctx", 900, name="rag"),
        full_context("scripted:ctx", name="full"),
        oracle("scripted:ctx", name="orc"),
    ]
    assert answer_questions(db, systems, ["q1"], progress=False) == {"answered": 4, "errors": 0}
    got = {r["system"]: r for r in db.query("select * from answers")}
    assert got["none"]["text"] == "ctx=0 orion=False"
    assert "orion=True" in got["rag"]["text"]  # BM25 found the passage
    rag_len = int(got["rag"]["text"].split()[0][4:])
    full_len = int(got["full"]["text"].split()[0][4:])
    assert 0 < rag_len < full_len == len(STORY)
    assert 0 < got["rag"]["context_tokens"] <= 900
    assert got["orc"]["text"] == f"ctx={len(SUMMARY)} orion=True"  # the summary
    # a rerun skips what is stored: no new call
    before = call_count("ctx")
    assert answer_questions(db, systems, ["q1"], progress=False)["answered"] == 0
    assert call_count("ctx") == before


def test_failed_answers_are_retried(db):
    from core.llm.types import ProviderCallError

    seed(db)
    state = {"fail": True}

    def flaky(request):
        if state["fail"]:
            raise ProviderCallError("bad_request", "refused")
        return "Orion."

    set_script("flaky", flaky)
    system = no_context("scripted:flaky", name="flaky")
    assert answer_questions(db, [system], ["q2"], progress=False)["errors"] == 1
    state["fail"] = False
    assert answer_questions(db, [system], ["q2"], progress=False)["answered"] == 1
    rows = list(db.query("select status, text from answers where system = 'flaky'"))
    assert rows == [{"status": "ok", "text": "Orion."}]


def test_context_over_window_fails_before_any_request(db):
    seed(db)
    set_script("small", echo_context)
    catalog.configure("scripted", default_context_window=1200)
    try:
        with pytest.raises(ContextTooLongError, match="does not fit"):
            answer_questions(
                db, [full_context("scripted:small", name="big")], ["q1", "q2"], progress=False
            )
        assert call_count("small") == 0
        assert db["answers"].count == 0
        # with a configured fallback the question is answered from retrieval instead
        fb = full_context("scripted:small", name="fb", fallback="rag", fallback_tokens=200)
        assert answer_questions(db, [fb], ["q1"], progress=False)["answered"] == 1
        meta = json.loads(db.execute("select metadata from answers").fetchone()[0])
        assert meta["context_used"] == "rag-fallback"
    finally:
        catalog.reset_configuration("scripted")


def test_missing_book_and_oracle(db):
    seed(db)
    now = utcnow()
    db["documents"].insert(
        {
            "id": "ghost",
            "title": "",
            "author": "",
            "kind": "story-missing",
            "source": "narrativeqa",
            "text": "",
            "n_chars": 0,
            "n_tokens": 0,
            "sha256": "",
            "created_at": now,
            "updated_at": now,
        }
    )
    db["questions"].insert(
        {
            "id": "q3",
            "document_id": "ghost",
            "context_document_id": "ghost",
            "question": "Who?",
            "origin": "narrativeqa",
            "created_at": now,
            "updated_at": now,
        }
    )
    set_script("ctx", echo_context)
    with pytest.raises(InputError, match="not in the store"):
        plan_answers(db, [no_context("scripted:ctx")], load_questions(db, ["q1", "q3"]))
    with pytest.raises(InputError, match="unknown question"):
        load_questions(db, ["nope"])
    # oracle without a summary: error, or skipped when asked
    db["questions"].insert(
        {
            "id": "q4",
            "document_id": "s1#summary",
            "question": "Who?",
            "origin": "narrativeqa",
            "created_at": now,
            "updated_at": now,
        }
    )
    with pytest.raises(InputError, match="no oracle text"):
        plan_answers(db, [oracle("scripted:ctx")], load_questions(db, ["q4"]))
    skip = oracle("scripted:ctx", if_missing="skip")
    assert plan_answers(db, [skip], load_questions(db, ["q1", "q4"]))[0].question_id == "q1"


def test_system_name_must_keep_its_configuration(db):
    seed(db)
    set_script("ctx", echo_context)
    answer_questions(db, [no_context("scripted:ctx", name="s")], ["q1"], progress=False)
    with pytest.raises(ConfigError, match="another configuration"):
        answer_questions(db, [bm25_rag("scripted:ctx", name="s")], ["q2"], progress=False)


def test_offline_extractive_end_to_end(db):
    seed(db)
    system = bm25_rag("offline:extractive", 400, name="ex", request_params={"sentences": 1})
    answer_questions(db, [system], ["q1"], progress=False)
    text = db.execute("select text from answers").fetchone()[0]
    assert "Orion" in text
