"""EXAM vs. side-by-side Bradley-Terry on one book (core.exam.book_case): synthetic book, real story."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from spacy_once import extraction_once, shared_folder

from core.corpus.documents import upsert_document
from core.errors import ConfigError, InputError
from core.exam.book_case import (
    BOOK_EXPERIMENT,
    SUFFIX,
    book_systems,
    build_book_demo,
    overview,
    pick_book,
    ranks,
)
from core.pipeline.config import read_toml
from core.store.connection import utcnow
from core.views.exam import book_correlation_frame, book_systems_frame

ROOT = Path(__file__).resolve().parents[2]
STORY = "ed524405685e79384ca61daa883a2c0da21cfc9c"  # An Ideal Husband, about 51k tokens

FACTS = [
    "Alice lent Bob the silver compass in the harbour.",
    "Bob mocked Alice for her maps at the autumn fair.",
    "Alice hid Bob in the mill when the soldiers came.",
    "Bob carried Alice across the flooded bridge at night.",
    "Alice forgave Bob at the lighthouse when the compass came back.",
    "Bob named his boat after Alice in the last summer.",
]
KEY_AT = [4, 9, 14, 19, 24, 29]  # paragraph positions of the facts (of 32)


def _filler(i: int) -> str:
    return " ".join(
        f"The rain fell on the quiet town in season {i} and the market stalls stood "
        f"empty while carts number {i * 7 + k} rolled past the chapel."
        for k in range(12)
    )


def _book(db) -> str:
    paras = [_filler(i) for i in range(32)]
    for fact, pos in zip(FACTS, KEY_AT):
        paras[pos] = f"{fact} " + " ".join(
            f"Alice and Bob spoke of it again on day {pos * 3 + k}." for k in range(4)
        )
    upsert_document(
        db,
        "synthetic",
        "\n\n".join(paras),
        kind="book",
        source="file",
        title="The Compass",
        author="A. Tester",
    )
    for rank, (name, n) in enumerate([("Alice", 30), ("Bob", 28)], start=1):
        db["entities"].insert(
            {
                "document_id": "synthetic",
                "name": name,
                "aliases": "[]",
                "label": "PERSON",
                "n_mentions": n,
                "rank": rank,
                "method": "proper-noun",
            }
        )
    now = utcnow()
    for i in range(len(FACTS) - 1):
        early, late = FACTS[i], FACTS[i + 1]
        db["questions"].insert(
            {
                "id": f"syn-q{i}",
                "document_id": "synthetic",
                "origin": "generated",
                "question": f"How does the relationship between Alice and Bob change between the "
                f"early passage where “{early}” and the later passage where “{late}”?",
                "answers": json.dumps([f"early — “{early}” Later — “{late}”"]),
                "status": "pending",
                "created_at": now,
                "updated_at": now,
            }
        )
    return "synthetic"


def _config(strategies: list[str]) -> dict:
    raw = read_toml(BOOK_EXPERIMENT)
    raw["name"] = "exam_book_test"
    raw["systems"] = [
        {
            "name": f"ov/{s}",
            "kind": "oracle",
            "suffix": f"{SUFFIX}{s}",
            "model": "offline:extractive",
            "request_params": {"sentences": 2},
        }
        for s in strategies
    ]
    return raw


SYNTHETIC = ["bm25-entities-3000", "bm25-entities-400", "opening-700", "spread-700"]


def test_overview_strategies_never_read_the_exam(db):
    doc = _book(db)
    before = {s: overview(db, doc, s)[0] for s in SYNTHETIC}
    db.execute("delete from questions")  # the exam cannot change them
    assert {s: overview(db, doc, s)[0] for s in SYNTHETIC} == before
    assert all(f in before["bm25-entities-3000"] for f in FACTS)  # names -> every key passage
    assert sum(f in before["bm25-entities-400"] for f in FACTS) == 1  # one passage fits
    assert "season 0 " in before["opening-700"] and FACTS[0] not in before["opening-700"]
    assert "season 0 " not in before["spread-700"]  # spread skips the opening
    with pytest.raises(ConfigError):
        overview(db, doc, "summary-100")
    with pytest.raises(ConfigError):
        book_systems({"systems": [{"name": "x", "kind": "rag"}] * 3})


def test_synthetic_book_correlation_stored_and_idempotent(db):
    doc = _book(db)
    start = time.process_time()  # CPU seconds: a budget that holds on a busy machine
    res = build_book_demo(db, doc, config=_config(SYNTHETIC), n_boot=50)
    assert time.process_time() - start < 20
    exam = {s["system"]: s["exam"] for s in res["systems"]}
    bt = {s["system"]: s["bt"] for s in res["systems"]}
    # the big entity overview holds every quoted passage, the opening none of them
    assert exam["ov/bm25-entities-3000"] == 1.0
    assert exam["ov/bm25-entities-3000"] > exam["ov/opening-700"] == 0.0
    assert bt["ov/bm25-entities-3000"] > bt["ov/opening-700"]
    assert res["n_questions"] == 5 and res["n_systems"] == 4
    assert res["n_judgments"] == 5 * 6 * 2 and 0 < res["n_decisive"] <= res["n_judgments"]
    assert res["spearman"] > 0.5 and -1 <= res["kendall_ties"] <= 1
    assert res["answers"]["answered"] == 20
    frame = book_correlation_frame(db, doc)
    assert len(frame) == 1 and frame["Spearman"].item() == pytest.approx(res["spearman"])
    systems = book_systems_frame(db)
    assert list(systems["system"])[0] == "ov/bm25-entities-3000"
    assert systems["EXAM rank"].min() == 1 and set(systems["Bradley-Terry rank"]) >= {1}
    judged = db["judgments"].count
    again = build_book_demo(db, doc, config=_config(SYNTHETIC), n_boot=50)  # idempotent
    assert db["judgments"].count == judged and again["answers"]["answered"] == 0
    assert db["exam_book_correlations"].count == 1
    assert again["spearman"] == pytest.approx(res["spearman"])
    assert db.execute("select count(*) from documents where kind = 'overview'").fetchone()[0] == 4


def test_pick_book_and_errors(db):
    with pytest.raises(InputError):
        pick_book(db)  # no generated questions anywhere
    _book(db)
    assert pick_book(db) == "synthetic"  # demo book absent: the fallback
    with pytest.raises(InputError):
        pick_book(db, min_questions=50)
    assert ranks([0.5, 0.9, 0.5, 0.1]) == [2, 1, 2, 4]
    assert book_correlation_frame(db).empty and book_systems_frame(db).empty


def _demo_story() -> str:
    """:data:`STORY`'s text as the demo's NarrativeQA import stores it (cut at its markers)."""
    from core.corpus.narrativeqa import DOC_COLUMNS, story_text
    from core.corpus.tabular import read_document_text, read_records

    folder = ROOT / "demo" / "narrativeqa"
    rows = read_records(folder / "documents.csv", DOC_COLUMNS)
    (meta,) = [r for _, r in rows if r["document_id"] == STORY]
    raw = read_document_text(folder / "stories" / f"{STORY}.txt")
    return story_text(raw, meta["kind"], meta.get("story_start", ""), meta.get("story_end", ""))[0]


def test_runs_on_a_small_real_story(db, tmp_path_factory):
    """The book case on a real story, stored as the demo stores it: its entities are the demo
    build's (:func:`spacy_once.extraction_once`: spaCy reads it once a session)."""
    from core.generation.questions import generate_questions

    text = _demo_story()
    upsert_document(db, STORY, text, kind="story", source="narrativeqa", title="An Ideal Husband")
    with extraction_once(shared_folder(tmp_path_factory)):
        kept = generate_questions(db, STORY, "baseline", n_entities=8, per_entity=2)["kept"]
    assert kept >= 5
    start = time.process_time()  # CPU seconds: a budget that holds on a busy machine
    res = build_book_demo(db, n_boot=50)  # picks the story (no demo book)
    assert time.process_time() - start < 20
    assert res["document_id"] == STORY and res["n_systems"] == 4
    assert res["n_questions"] == kept and res["n_judgments"] == kept * 6 * 2
    assert all(0 <= s["exam"] <= 1 for s in res["systems"])
    assert res["experiment"].startswith("exam_book_demo:")  # TOML names Les Miserables
    assert not book_systems_frame(db, STORY).empty
