"""Near-duplicates of the offline baseline's questions by their filled slots, not their template's
words; answer concentration (issue 36). On bundled stories with the built-in (regex) entities."""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from pathlib import Path

import pytest
from bound_sql import decoded_rows

from core.corpus.documents import read_text_file, upsert_document
from core.corpus.gutenberg import clean_gutenberg
from core.generation import question_store
from core.generation import questions as gen
from core.generation.baseline import baseline_candidates
from core.generation.baseline_mix import (
    MAX_ANSWER_SHARE,
    answer_reason,
    answer_share,
    crowded,
    fill_rank,
)
from core.generation.candidates import Candidate
from core.generation.entity_store import build_entities
from core.generation.question_store import SLOT_MEASURE, slot_similarity, slots
from core.store.documents import get_document
from core.store.runs import start_run

STORIES = Path(__file__).resolve().parents[2] / "demo" / "narrativeqa" / "stories"
AMBERSONS = STORIES / "c3fe35b1c129aa367e223e6cb1cecaba20a26a37.txt"  # The Magnificent Ambersons
SOAMES = STORIES / "829bd66e747e61902f22af2c0ff0d4f8090d2242.txt"  # Enoch Soames


def _import(db, path: Path, doc_id: str) -> None:
    book = clean_gutenberg(read_text_file(path))
    upsert_document(db, doc_id, book.body, kind="book", source="file", title=book.title)
    build_entities(db, doc_id, method="regex")


def _questions(db, doc_id: str) -> list[dict]:
    return decoded_rows(db, "select * from questions where document_id = :v", v=doc_id)


@pytest.fixture
def ambersons(db):
    _import(db, AMBERSONS, "amb")
    return db


def test_template_twins_with_other_answers_are_kept(ambersons):
    """On main, 5 of 15 questions were discarded by TF-IDF cosine, among them four event-order
    questions answered Fanny, Amberson, Lucy and Georgie as near-duplicates of one answered
    George: the template's words made them alike. Now a discarded question has its duplicate's
    answer, by the slot measure, and kept questions with other answers may share their words."""
    db = ambersons
    summary = gen.generate_questions(db, "amb", "baseline", n_entities=8, per_entity=2)
    qs = _questions(db, "amb")
    by_id = {q["id"]: q for q in qs}
    for q in qs:
        if q["status"] == "discarded":
            meta = q["metadata"]
            assert q["answers"][0] == by_id[meta["duplicate_of"]]["answers"][0], q["question"]
            assert meta["similarity_measure"] == SLOT_MEASURE
    kept = [q for q in qs if q["status"] != "discarded"]
    assert len(kept) == summary["kept"] >= 12  # 10 on main
    sims = question_store.similarity_matrix([q["question"] for q in kept])
    twins = [
        (i, j)
        for i in range(len(kept))
        for j in range(i)
        if sims[i, j] >= question_store.DUPLICATE_THRESHOLD
        and kept[i]["answers"][0] != kept[j]["answers"][0]
    ]
    assert twins  # alike to TF-IDF, other questions in substance
    orders = {q["answers"][0] for q in kept if q["qtype"] == "event-order"}
    assert len(orders) >= 3, orders


def test_the_store_compares_baseline_questions_by_slots_and_llm_ones_by_tfidf(ambersons):
    """A baseline question re-worded (its two moments listed the other way round) is a duplicate
    by its slots; the same answer on one shared evidence sentence of two is one (similarity
    0.5); an LLM question is still compared by TF-IDF, with a baseline one too."""
    db = ambersons
    cands = baseline_candidates(db, get_document(db, "amb"), 8, 2)
    r1, r2 = (start_run(db, "generate", "amb", {}) for _ in range(2))
    assert question_store.store_candidates(db, "amb", cands, r1)["discarded"] == 0
    order = next(c for c in cands if c.qtype == "event-order")
    one, two = re.search(r"\(1\) (.*); \(2\) (.*?)\. Which", order.question).groups()
    swapped = order.question.replace(one, "\x00").replace(two, one).replace("\x00", two)
    assert swapped != order.question
    twin = dataclasses.replace(order, question=swapped)
    other = next(c for c in cands if c.qtype != "event-order" and len(c.metadata["evidence"]) > 1)
    shared = dataclasses.replace(
        other,
        qtype="companion" if other.qtype != "companion" else "co-occurrence-bridge",
        question=other.question.replace("Which character", "Who"),
        metadata={
            **other.metadata,
            "entities": ["Somebody Else"],
            "evidence": [other.metadata["evidence"][0], order.metadata["evidence"][0]],
        },
    )
    llm = Candidate(
        question=cands[0].question,
        answer="a reply",
        qtype="long-span",
        entity_id=cands[0].entity_id,
        provenance={"model": "scripted:x", "prompt_hash": "p"},
        metadata={},
    )
    counts = question_store.store_candidates(db, "amb", [twin, shared, llm], r2)
    assert counts == {"kept": 0, "discarded": 3, "existing": 0}
    found = {q["question"]: q["metadata"] for q in _questions(db, "amb")}
    first = {q["question"]: q["id"] for q in _questions(db, "amb") if q["run_id"] == r1}
    assert found[swapped]["duplicate_of"] == first[order.question]
    assert (found[swapped]["similarity"], found[swapped]["similarity_measure"]) == (
        1.0,
        SLOT_MEASURE,
    )
    assert found[shared.question]["duplicate_of"] == first[other.question]
    assert found[shared.question]["similarity"] == 0.5
    (llm_meta,) = [
        q["metadata"] for q in _questions(db, "amb") if q["provenance"]["model"] == "scripted:x"
    ]
    assert llm_meta["duplicate_of"] == first[cands[0].question]
    assert llm_meta["similarity_measure"] == "tfidf-cosine>=0.8" and llm_meta["similarity"] >= 0.8


def test_slot_similarity_needs_the_same_answer():
    ev = [{"start": 100, "end": 200}, {"start": 900, "end": 950}]
    a = slots("event-order", "George", {"entities": ["George", "Lucy"], "evidence": ev})
    assert slot_similarity(a, a._replace(answer="lucy")) == 0.0  # same evidence, other answer
    assert slot_similarity(a, a._replace(evidence=((150, 160),))) == 1.0  # same type, names
    other = a._replace(qtype="companion", entities=frozenset({"george"}))
    assert slot_similarity(a, other._replace(evidence=((150, 160), (300, 310)))) == 0.5
    assert slot_similarity(a, other._replace(evidence=((200, 300),))) == 0.0  # touching only


def test_crowded_answers_wait_and_the_note_names_one_over_a_third():
    assert MAX_ANSWER_SHARE == pytest.approx(1 / 3)
    assert not crowded(0, 0) and crowded(1, 1) and crowded(1, 3) and not crowded(1, 4)
    # the spread first: an answer's uses only order questions with as many offsets at the ends
    assert fill_rank(0, 3) < fill_rank(1, 0) < fill_rank(1, 2)
    assert answer_share(["George", "Fanny", "george", "George"]) == ("George", 3)
    assert answer_share([]) == ("", 0)
    assert answer_reason(["George", "Fanny", "Lucy"]) == ""  # a third: not more
    assert answer_reason(["George"]) == ""
    note = answer_reason(["George", "Fanny", "George", "Lucy"])
    assert note.startswith("2 of 4 kept questions are answered by George") and "50%" in note


def test_generate_note_says_when_one_answer_takes_more_than_a_third(db):
    """Enoch Soames: its title character is named with everyone; most questions answer him and
    the note says what a system that always names him would score."""
    _import(db, SOAMES, "soames")
    summary = gen.generate_questions(db, "soames", "baseline", n_entities=8, per_entity=2)
    answers = Counter(
        q["answers"][0] for q in _questions(db, "soames") if q["status"] != "discarded"
    )
    top, n = answers.most_common(1)[0]
    total = sum(answers.values())
    assert n > MAX_ANSWER_SHARE * total
    assert f"{n} of {total} kept questions are answered by {top}" in summary["note"]
    assert f"would score {n / total:.0%} without reading" in summary["note"]
