"""EXAM (EXam Answerability Metric): score articles by the held-out exam questions they answer.

Sander & Dietz (2021) "EXAM: How to Evaluate Retrieve-and-Generate Systems for Users Who Do
Not (Yet) Know What They Want"; Farzi & Dietz (2024) "Pencils Down! Automatic Rubric-based
Evaluation of Retrieve/Generate Systems" / "An Exam-based Evaluation Approach Beyond Traditional
Relevance Judgments" (EXAM++). The pieces, one module each:

* :mod:`core.exam.bank` - import the TREC CAR Y3 banks, derive banks from generated questions;
* :mod:`core.exam.articles` - the systems under test write (or retrieve) one article per query;
* :mod:`core.exam.grading` - the Q/A system answers each exam question from an article alone;
* :mod:`core.exam.scores` - EXAM, n-EXAM, standard errors, ROUGE-1, leaderboard correlation;
* :mod:`core.exam.car_repro` - reproduce the CAR Y3 leaderboard correlations from the published tables.

* :mod:`core.exam.bt_correlation` - EXAM vs. side-by-side Bradley-Terry on one book;
* :mod:`core.exam.book_case` - seeds that tie on one book (:func:`build_book_demo`).

This module builds the offline demo (:func:`build_demo`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.corpus.documents import count_tokens
from core.corpus.tabular import jsonl_records
from core.errors import InputError
from core.exam.articles import GOLD, pool_article, store_article
from core.exam.bank import bank_queries, import_car_bank
from core.exam.grading import grade_bank
from core.exam.scores import run_scores
from core.store.connection import transaction
from core.store.exam_bank import delete_bank_articles

if TYPE_CHECKING:
    from core.store.engine import Database

#: The offline lexical answerability grade runs lower than an LLM's self-rating (it needs the
#: question's own words in one window); the demo grades with this threshold instead of 4.
DEMO_THRESHOLD = 2
DEMO_BANK = "car-y3-sample"


def _nugget_texts(path: Path) -> tuple[dict[str, str], list[str]]:
    """Gold article per query and the shared passage pool from a car-nuggets JSONL sample.

    A facet becomes one passage: ``"<facet heading>. <nugget>. <nugget> ..."``.
    """
    gold: dict[str, list[str]] = {}
    pool: list[str] = []

    for n, rec in jsonl_records(path):
        try:
            heading = rec["query_text"].split(" / ")[-1]
            nuggets = [i["nugget_text"].strip().rstrip(".") + "." for i in rec["items"]]
            if not isinstance(rec["query_id"], str):
                raise TypeError("query_id")
        except (KeyError, TypeError, AttributeError):
            raise InputError("not a car-nuggets record", path=str(path), line=n) from None
        block = f"{heading[:1].upper()}{heading[1:]}. " + " ".join(nuggets)
        gold.setdefault(rec["query_id"], []).append(block)
        pool.append(block)
    return {q: "\n\n".join(blocks) for q, blocks in gold.items()}, pool


def build_demo(db: Database, demo_dir: str | Path) -> dict[str, Any]:
    """Offline EXAM demo from the bundled CAR Y3 sample (``demo/exam``), in a few seconds.

    Imports the bank sample; writes articles for a gold system (the query's own LLM-generated
    nuggets, Farzi & Dietz) and three retrieval-only systems over the pooled nuggets of all sample
    queries (BM25 for the query text at 60 and 200 tokens; the pool's first 200 tokens whatever
    the query); grades them offline (self-rating by the lexical baseline, threshold
    ``DEMO_THRESHOLD``). Returns the bank id, the run id and the leaderboard.
    """

    folder = Path(demo_dir)
    folder = folder / "exam" if (folder / "exam").is_dir() else folder
    bank = import_car_bank(
        db,
        folder / "car-y3-genq-sample.jsonl",
        bank_id=DEMO_BANK,
        name="TREC CAR Y3 generated questions (sample)",
    )
    gold, pool = _nugget_texts(folder / "car-nuggets-sample.jsonl")
    queries = {q["query_id"]: q["query_text"] for q in bank_queries(db, DEMO_BANK)}
    lead, used = [], 0
    for passage in pool:
        n = count_tokens(passage)
        if used + n > 200:
            break
        lead.append(passage)
        used += n
    kept: list[int] = []  # an article stored again unchanged keeps its id and its grades

    def put(query_id: str, system: str, text: str, **how: Any) -> None:
        kept.append(store_article(db, DEMO_BANK, query_id, system, text, **how))

    with transaction(db):
        for qid, text in queries.items():
            if qid in gold:
                put(
                    qid,
                    GOLD,
                    gold[qid],
                    kind="gold",
                    metadata={"source": "car-nuggets (gpt-3.5-turbo, Farzi & Dietz)"},
                )
            for budget in (60, 200):
                article = pool_article(pool, text, budget)
                if article:
                    put(
                        qid,
                        f"bm25-pool-{budget}",
                        article,
                        kind="retrieval",
                        metadata={"budget_tokens": budget},
                    )
            put(
                qid,
                "lead-pool-200",
                "\n\n".join(lead),
                kind="retrieval",
                metadata={"budget_tokens": 200, "query_blind": True},
            )
        delete_bank_articles(db, DEMO_BANK, keep=kept)  # the articles no longer written
    run_id = grade_bank(db, DEMO_BANK, verification="self_rating", threshold=DEMO_THRESHOLD)
    board = run_scores(db, run_id)
    return {
        "bank_id": DEMO_BANK,
        "run_id": run_id,
        "n_questions": bank["n_questions"],
        "leaderboard": [(r.system, round(r.exam, 3)) for r in board],
    }
