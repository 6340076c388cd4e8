"""Question generation: reply parsing, scripted-model runs, failures, dedupe, baseline, re-runs."""

from __future__ import annotations

import json

import pytest
from db_content import snapshot

from core.__main__ import main
from core.corpus.documents import upsert_document
from core.errors import ConfigError, ContextTooLongError, InputError
from core.generation import question_store
from core.generation import questions as gen
from core.generation.entity_store import build_entities, entity_passage_indexes, get_entities
from core.generation.span import span_fraction, span_summary
from core.llm.prompts import prompt_hash
from core.llm.scripted import call_count, set_script
from core.store.connection import rows
from core.store.documents import get_passages

FILLER = (
    "the rain kept falling on the roofs of the town and the carts went by slowly while "
    "the bells rang for the evening and nobody in the street looked up at the windows. "
)


def _book(n: int = 24) -> str:
    """A book of ``n`` one-passage chapters; Marius and Cosette meet early and late, Javert and
    Valjean too; other chapters mention one name each."""
    events = {
        1: "Marius saw Cosette in the garden and could not speak.",
        3: "Javert watched Valjean from the corner of the street.",
        8: "Marius wrote a letter to Cosette that he never sent.",
        12: "Valjean lifted the cart while Javert looked on in silence.",
        20: "Marius married Cosette at last, and the old house was full of flowers.",
        22: "Javert let Valjean go on the bridge and walked away into the night.",
    }
    names = ["Marius", "Cosette", "Javert", "Valjean"]
    chapters = []
    for i in range(n):
        event = events.get(i, f"then {names[i % 4]} walked alone and thought of nothing.")
        event = event[0].upper() + event[1:]
        chapters.append((FILLER * 3 + "In the morning " + event + " " + FILLER * 3).strip())
    return "\n\n".join(chapters)


@pytest.fixture
def book(db):
    upsert_document(db, "book", _book(), kind="book", source="file", title="Test Book")
    assert len(get_passages(db, "book")) == 24
    build_entities(db, "book", method="regex")
    return db


TOPICS = {
    "Marius": [
        "Why does the young lawyer's political loyalty shift after he learns of his father?",
        "What does the unsent letter reveal about the student's courtship?",
    ],
    "Cosette": [
        "How does the child from the inn come to see her rescuer by the end?",
        "Which object bought at the fair follows the girl into her new life?",
    ],
    "Javert": [
        "What belief does the policeman lose at the river, and why?",
        "How does the inspector's pursuit mirror the convict's own flight?",
    ],
    "Valjean": [
        "Which early gift from a churchman shapes the convict's later mercy?",
        "Why does the mayor reveal his identity in the courtroom?",
    ],
}


def _qa_json(entity: str, n: int = 2) -> str:
    return json.dumps(
        [
            {"question": q, "answer": f"{entity} answer {i}."}
            for i, q in enumerate(TOPICS[entity][:n])
        ]
    )


# --- parsing -----------------------------------------------------------------------------------


def test_parse_json_variants():
    bare = gen.parse_qa_pairs('[{"question": "Q1?", "answer": "A1."}]')
    assert bare == [gen.QAPair("Q1?", "A1.")]
    fenced = gen.parse_qa_pairs(
        'Here you go:\n```json\n[{"Question": "Q1?", "Answer": '
        '"A1."}, {"question": "Q2?", "answer": ["A", "2."]}]\n```\nDone.'
    )
    assert [p.question for p in fenced] == ["Q1?", "Q2?"] and fenced[1].answer == "A 2."
    wrapped = gen.parse_qa_pairs('{"questions": [{"q": "Q?", "a": "A."}]}')
    assert wrapped == [gen.QAPair("Q?", "A.")]


def test_parse_question_answer_text():
    text = (
        "Sure! Here are two.\n\n**Question 1:** Why does the\nman keep the candlesticks?\n"
        "**Answer 1:** Because they remind him of a promise.\n\n"
        "Question 2: What links the two bridges?\nAnswer 2: Both mark a decision.\n"
    )
    pairs = gen.parse_qa_pairs(text)
    assert pairs == [
        gen.QAPair(
            "Why does the man keep the candlesticks?", "Because they remind him of a promise."
        ),
        gen.QAPair("What links the two bridges?", "Both mark a decision."),
    ]


def test_parse_malformed_raises():
    for bad in ["I cannot help with that.", '[{"title": "x"}]', "```json\n[{broken\n```"]:
        with pytest.raises(ValueError):
            gen.parse_qa_pairs(bad)


# --- LLM generation with the scripted provider -------------------------------------------------


def test_generate_with_scripted_model(book):
    seen = []

    def reply(request):
        seen.append(request)
        entity = request.fields["entity"]
        if entity == "Marius":
            return "```json\n" + _qa_json(entity) + "\n```"
        if entity == "Cosette":
            return (
                "Question: What does the one who hides in the garden learn about waiting?\n"
                "Answer: That patience is rewarded.\n"
                "Question: Which unsent object foreshadows the wedding?\n"
                "Answer: The letter."
            )
        if entity == "Javert":
            return "Sorry, I would rather not."
        return _qa_json(entity)

    set_script("gen", reply)
    summary = gen.generate_questions(book, "book", "scripted:gen", n_entities=4, per_entity=2)
    assert summary["failures"] == 1 and summary["kept"] == 6 and summary["discarded"] == 0
    qs = rows(book, "select * from questions where origin = 'generated' order by id")
    assert len(qs) == 6
    text = book["documents"].get("book")["text"]
    starts = {p.idx: p.start for p in get_passages(book, "book")}
    ents = {e.name: e.id for e in get_entities(book, "book")}
    for q in qs:
        prov = q["provenance"]
        assert prov["model"] == "scripted:gen" and prov["prompt_hash"] == prompt_hash(gen.PROMPT)
        assert prov["context_kind"] == "full" and prov["run_id"] == summary["run_id"]
        assert q["entity_id"] == ents[prov["entity"]] and q["qtype"] == "long-span"
        assert q["status"] == "pending" and len(q["answers"]) == 1
        # full-book context: the span is that of the entity's mention passages
        meta, mentioned = q["metadata"], entity_passage_indexes(book, q["entity_id"])
        expected = span_fraction([starts[i] for i in mentioned], len(text))
        assert meta["span_fraction"] == expected > 0.2 and meta["span_flag"] is False
        assert meta["question_type"] == "long-span" and meta["min_span_fraction"] == 0.2
    # the whole book is the context block; the prompt names the entity and asks for JSON
    assert seen[0].context == book["documents"].get("book")["text"]
    assert seen[0].task == "generate_questions" and "JSON" in seen[0].prompt
    failure = rows(book, "select * from generation_failures")
    assert len(failure) == 1 and failure[0]["kind"] == "unparsed"
    assert failure[0]["raw"] == "Sorry, I would rather not."
    assert failure[0]["entity_id"] == ents["Javert"]


def test_rerun_is_idempotent_and_retries_failures(book):
    state = {"javert_ok": False}

    def reply(request):
        if request.fields["entity"] == "Javert" and not state["javert_ok"]:
            return "no"
        return _qa_json(request.fields["entity"])

    set_script("rerun", reply)
    first = gen.generate_questions(book, "book", "scripted:rerun", n_entities=4, per_entity=2)
    assert first["kept"] == 6 and first["failures"] == 1
    calls = call_count("rerun")
    state["javert_ok"] = True
    second = gen.generate_questions(book, "book", "scripted:rerun", n_entities=4, per_entity=2)
    assert second["skipped_entities"] == 3 and second["kept"] == 2
    assert call_count("rerun") == calls + 1  # only the failed entity was asked again
    third = gen.generate_questions(book, "book", "scripted:rerun", n_entities=4, per_entity=2)
    assert third["kept"] == 0 and third["skipped_entities"] == 4
    n = book.execute("select count(*) from questions").fetchone()[0]
    assert n == 8


def test_near_duplicates_discarded_with_reason(book):
    def reply(request):
        e = request.fields["entity"]
        return json.dumps(
            [
                {
                    "question": f"How does {e}'s view of the garden change over the whole book?",
                    "answer": "a",
                },
                {
                    "question": f"How does {e}'s view of the garden change over the whole novel?",
                    "answer": "b",
                },
                {
                    "question": f"How does {e}'s view of the garden change over the whole book?",
                    "answer": "c",
                },
                {
                    "question": f"Which promise made early by {e} shapes the final scene?",
                    "answer": "d",
                },
            ]
        )

    set_script("dup", reply)
    summary = gen.generate_questions(book, "book", "scripted:dup", n_entities=1, per_entity=4)
    assert summary["kept"] == 2 and summary["discarded"] == 2
    qs = rows(book, "select * from questions")
    kept = [q for q in qs if q["status"] == "pending"]
    dropped = [q for q in qs if q["status"] == "discarded"]
    (first,) = [q for q in kept if "garden" in q["question"]]  # the first garden question
    for q in dropped:
        assert q["metadata"]["duplicate_of"] == first["id"]
        assert q["metadata"]["similarity"] >= question_store.DUPLICATE_THRESHOLD
        assert q["metadata"]["reason"] == "near-duplicate"
    assert question_store.similarity_matrix(["a b c", "x y z"])[0, 1] == pytest.approx(0.0)


def test_questions_below_the_minimum_span_are_flagged(book):
    set_script("narrow", lambda r: _qa_json(r.fields["entity"], 2))
    gen.generate_questions(
        book, "book", "scripted:narrow", n_entities=2, per_entity=2, min_span_fraction=0.99
    )
    qs = rows(book, "select id, qtype, metadata from questions")
    assert len(qs) == 4 and all(q["metadata"]["span_flag"] for q in qs)
    assert all(q["metadata"]["span_fraction"] < 0.99 for q in qs)
    summary = span_summary(book, [q["id"] for q in qs] + ["gen-missing"])
    assert summary["n"] == 4 and summary["flagged"] == 4 and summary["missing"] == 1
    values = sorted(q["metadata"]["span_fraction"] for q in qs)
    assert summary["median"] == pytest.approx((values[1] + values[2]) / 2)
    assert summary["min"] == values[0] and summary["max"] == values[-1]


def test_small_window_uses_mention_passages(book):
    seen = []
    set_script("small", lambda r: seen.append(r) or _qa_json(r.fields["entity"], 1))
    budget_window = 1200 + gen.MAX_REPLY_TOKENS + gen.PROMPT_RESERVE_TOKENS
    gen.generate_questions(
        book, "book", "scripted:small", n_entities=1, per_entity=1, window_tokens=budget_window
    )
    req = seen[0]
    assert req.fields["context_kind"] == "entity-mentions"
    assert "[Passage " in req.context
    from core.corpus.documents import count_tokens

    assert count_tokens(req.context) <= 1200 + 50  # separators add a few tokens
    q = rows(book, "select * from questions")[0]
    assert q["provenance"]["context_kind"] == "entity-mentions"
    idxs = q["metadata"]["context_passages"]
    assert idxs == sorted(idxs) and idxs[0] < 6 and idxs[-1] > 15  # spread over the book
    starts = {p.idx: p.start for p in get_passages(book, "book")}
    length = len(book["documents"].get("book")["text"])
    assert q["metadata"]["span_fraction"] == span_fraction([starts[i] for i in idxs], length)
    with pytest.raises(ContextTooLongError):
        gen.generate_questions(book, "book", "scripted:small", n_entities=2, window_tokens=3000)


def test_offline_model_refuses_generation(book):
    with pytest.raises(ConfigError):
        gen.generate_questions(book, "book", "offline:extractive", n_entities=1)


@pytest.mark.parametrize(
    "model, match",
    [
        ("nosuch:model", "unknown provider"),
        ("openai:gpt-4o", "OPENAI_API_KEY"),
        ("offline:extractive", "needs a real model"),
        ("offline:nonexistent", "unknown offline baseline"),
        ("scripted:never-set", "no script"),
    ],
)
def test_bad_model_fails_before_anything_is_written(db, db_path, monkeypatch, model, match):
    """No runs row, no entities, no failure rows: the database file is byte-identical (on
    PostgreSQL: every row of every table is the same)."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("WORKBENCH_ENV_FILE", "/nonexistent/.env")
    upsert_document(db, "raw", _book(8), kind="book", source="file", title="Raw")
    before = snapshot(db, db_path)
    with pytest.raises(ConfigError, match=match):
        gen.generate_questions(db, "raw", model, n_entities=2, per_entity=1)
    with pytest.raises(ConfigError, match=match):
        build_entities(db, "raw", method="regex", model=model)  # the LLM alias merger
    assert snapshot(db, db_path) == before


def test_errors(db):
    with pytest.raises(InputError, match="unknown document"):
        gen.generate_questions(db, "nope", "baseline")
    with pytest.raises(InputError):
        gen.generate_questions(db, "nope", "baseline", n_entities=0)


# --- CLI ----------------------------------------------------------------------------------------


def test_cli(book, db_path, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["generate", "--help"])
    assert exc.value.code == 0 and "--min-span-fraction" in capsys.readouterr().out
    assert (
        main(
            ["--db", str(db_path), "entities", "book", "--top", "3", "--method", "regex", "--json"]
        )
        == 0
    )
    out = json.loads(capsys.readouterr().out)
    assert [e["name"] for e in out["top"]][:2] == ["Marius", "Cosette"] or len(out["top"]) == 3
    assert (
        main(
            [
                "--db",
                str(db_path),
                "generate",
                "book",
                "--model",
                "baseline",
                "--entities",
                "4",
                "--per-entity",
                "1",
                "--json",
            ]
        )
        == 0
    )
    summary = json.loads(capsys.readouterr().out)
    kept = "select count(*) from questions where status != 'discarded'"
    assert summary["kept"] == book.execute(kept).fetchone()[0] >= 1
    args = ["--db", str(db_path), "generate", "book", "--model", "baseline"]
    assert main([*args, "--min-span-fraction", "2"]) == 2
    assert "between 0 and 1" in capsys.readouterr().err
    assert main(["--db", str(db_path), "entities", "missing"]) == 2
    assert "unknown document" in capsys.readouterr().err


def test_cli_generation_whose_replies_are_unusable_exits_3(book, db_path, capsys):
    """A model whose every reply breaks the question format used to end a `done` run with exit
    0 ("0 new questions ... 4 failed replies"); now the run is `failed`, exit 3, one error line.
    A rerun with readable replies asks only for the failed entities and passes."""
    state = {"ok": False}

    def reply(request):
        return _qa_json(request.fields["entity"]) if state["ok"] else "Hard to say."

    set_script("mute", reply)
    argv = ["--db", str(db_path), "generate", "book", "--model", "scripted:mute"]
    capsys.readouterr()
    assert main([*argv, "--entities", "4", "--per-entity", "2"]) == 3
    out, err = capsys.readouterr()
    assert "0 new questions" in out and "4 failed replies" in out
    assert err.strip().splitlines() == [
        "error: generate book: scripted:mute 4/4 replies unparsed or failed (100%) > "
        "max_failure_share 20%; see generation_failures"
    ]
    statuses = rows(book, "select status from runs where kind = 'generate'")
    assert statuses == [{"status": "failed"}]
    state["ok"] = True
    assert main([*argv, "--entities", "4", "--per-entity", "2"]) == 0
    assert "8 new questions" in capsys.readouterr().out
