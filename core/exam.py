"""EXAM (EXam Answerability Metric): score articles by the held-out exam questions they answer.

Sander & Dietz (2021) "EXAM: How to Evaluate Retrieve-and-Generate Systems for Users Who Do
Not (Yet) Know What They Want"; Farzi & Dietz (2024) "Pencils Down! Automatic Rubric-based
Evaluation of Retrieve/Generate Systems" / "An Exam-based Evaluation Approach Beyond Traditional
Relevance Judgments" (EXAM++). The pieces, one module each:

* :mod:`core.exam_bank` - import the TREC CAR Y3 banks, derive banks from generated questions;
* :mod:`core.exam_articles` - the systems under test write (or retrieve) one article per query;
* :mod:`core.exam_grading` - the Q/A system answers each exam question from an article alone;
* :mod:`core.exam_scores` - EXAM, n-EXAM, standard errors, ROUGE-1, leaderboard correlation;
* :mod:`core.exam_car` - reproduce the CAR Y3 leaderboard correlations from the published tables.

This module adds the tie to side-by-side judging (EXAM vs. Bradley-Terry on one book) and the
offline demo (:func:`build_demo`); :mod:`core.exam_book` seeds that tie on one book
(:func:`build_book_demo`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterable

import numpy as np
import sqlite_utils

from core.errors import InputError
from core.exam_articles import GOLD, articles, import_articles, pool_article, store_article
from core.exam_bank import bank_queries, derive_bank, import_car_bank
from core.exam_book import build_book_demo
from core.exam_car import reproduce_car
from core.exam_grading import grade_bank
from core.exam_scores import leaderboard_correlation, rouge1_scores, run_scores
from core.store import rows, transaction

__all__ = [
    "GOLD", "articles", "bank_queries", "bradley_terry_fit", "bradley_terry_reference",
    "build_book_demo", "build_demo", "correlate_with_bradley_terry", "derive_bank", "grade_bank",
    "import_articles",
    "import_car_bank", "leaderboard_correlation", "reference_from_rank_json", "reproduce_car",
    "rouge1_scores", "run_scores", "store_article",
]

#: The offline lexical answerability grade runs lower than an LLM's self-rating (it needs the
#: question's own words in one window); the demo grades with this threshold instead of 4.
DEMO_THRESHOLD = 2
DEMO_BANK = "car-y3-sample"


def reference_from_rank_json(path: str | Path) -> tuple[dict[str, float], dict[str, float]]:
    """``(beta, se)`` per system from ``python -m core rank --json`` output.

    The SE is read off the 95% bootstrap percentile interval as ``(high - low) / (2 * 1.96)``
    (exact for a normal bootstrap distribution, an approximation otherwise).
    """
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        systems = data["systems"]
        beta = {s["name"]: float(s["beta"]) for s in systems}
        se = {s["name"]: (float(s["ci_high"]) - float(s["ci_low"])) / (2 * 1.959963984540054)
              for s in systems if s.get("ci_low") is not None and s.get("ci_high") is not None}
    except FileNotFoundError:
        raise InputError("no such file", path=str(path)) from None
    except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
        raise InputError(f"not a 'rank --json' result ({exc})", path=str(path)) from None
    return beta, se


def bradley_terry_reference(db: sqlite_utils.Database, document_id: str, *,
                            rater: str | None = None, systems: Iterable[str] | None = None,
                            n_boot: int = 200, seed: int = 0
                            ) -> tuple[dict[str, float], dict[str, float]]:
    """Bradley-Terry ``(beta, se)`` of the systems judged side by side on one book's questions.

    See :func:`bradley_terry_fit` (this is its ``beta`` and ``se``).
    """
    fit = bradley_terry_fit(db, document_id, rater=rater, systems=systems, n_boot=n_boot,
                            seed=seed)
    return fit["beta"], fit["se"]


def bradley_terry_fit(db: sqlite_utils.Database, document_id: str, *, rater: str | None = None,
                      systems: Iterable[str] | None = None, n_boot: int = 200, seed: int = 0,
                      prior_alpha: float = 0.01) -> dict[str, Any]:
    """Bradley-Terry fit of the systems judged side by side on one book's questions.

    Uses the current pairwise judgments (superseded rows left out; ``rater`` exact or a prefix
    such as ``human:``; ``systems``: only comparisons between two of them; ``None`` verdicts
    carry no preference and are left out, ``Equal`` counts half a win each). When the maximum-
    likelihood estimate does not exist (a system never wins or never loses, common with few
    decisive verdicts) the MAP estimate under a weak ``N(0, 1/prior_alpha)`` prior is used and
    ``estimate`` says so. The SE comes from ``n_boot`` question-resampled bootstrap fits
    (:func:`core.ranking.bootstrap_bradley_terry`, seeded), read off their 95%
    percentile interval as ``(high - low) / (2 * 1.96)`` so that runaway strengths of degenerate
    replicates do not inflate it. Returns ``{"beta", "se", "estimate", "n_judgments",
    "n_decisive", "n_questions_decisive"}`` (decisive: ``A``, ``B`` or ``Equal``).
    """
    import warnings

    from core.ranking import (NotIdentifiableError, PairwiseCounts, bootstrap_bradley_terry,
                              fit_bradley_terry)

    judged = rows(db, "select j.question_id, j.system_a, j.system_b, j.verdict, j.rater "
                      "from judgments j join questions q on q.id = j.question_id "
                      "where j.kind = 'pairwise' and j.status = 'ok' and j.verdict is not null "
                      "and q.document_id = ? and j.id not in (select supersedes from judgments "
                      "where supersedes is not null) order by j.id", [document_id])
    if rater:
        judged = [j for j in judged if j["rater"] == rater or j["rater"].startswith(rater)]
    if systems is not None:
        keep = set(systems)
        judged = [j for j in judged if j["system_a"] in keep and j["system_b"] in keep]
    if not judged:
        raise InputError(f"no side-by-side judgments for document {document_id!r}")
    counts = PairwiseCounts.from_records(
        [(j["question_id"], j["system_a"], j["system_b"], j["verdict"]) for j in judged])
    alpha, estimate = 0.0, "maximum likelihood"
    try:
        beta = fit_bradley_terry(counts.win_matrix("half"), systems=counts.systems)
    except NotIdentifiableError as exc:
        alpha, estimate = prior_alpha, f"MAP with N(0, 1/{prior_alpha}) prior ({exc})"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            beta = fit_bradley_terry(counts.win_matrix("half"), alpha=alpha,
                                     systems=counts.systems)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        boot = bootstrap_bradley_terry(counts, n_boot=n_boot, seed=seed, alpha=alpha)
    se = (np.asarray(boot.ci_high) - np.asarray(boot.ci_low)) / (2 * 1.959963984540054)
    return {"beta": {s: float(b) for s, b in zip(counts.systems, beta)},
            "se": {s: float(e) for s, e in zip(counts.systems, se)},
            "estimate": estimate, "n_judgments": len(judged),
            "n_decisive": sum(1 for j in judged if j["verdict"] != "None"),
            "n_questions_decisive": len({j["question_id"] for j in judged
                                         if j["verdict"] != "None"})}


def correlate_with_bradley_terry(db: sqlite_utils.Database, run_id: str, document_id: str, *,
                                 rater: str | None = None, systems: Iterable[str] | None = None,
                                 n_boot: int = 200, repeats: int = 10, seed: int = 0
                                 ) -> dict[str, Any]:
    """EXAM leaderboard of a run (exam = the book's long-span questions) vs. its BT ranking.

    Both leaderboards carry standard errors, so ties within one SE are broken at random on both
    sides (``repeats`` draws). The gold article is not a system and is left out; ``systems``
    restricts both leaderboards. Adds ``exam``, ``exam_se``, ``bradley_terry``,
    ``bradley_terry_se`` (per system), the judgment counts of :func:`bradley_terry_fit` and
    ``bt_estimate`` (maximum likelihood, or MAP under a weak prior when the MLE does not exist).
    """
    keep = None if systems is None else set(systems)
    board = [r for r in run_scores(db, run_id, queries=[document_id])
             if r.system != GOLD and (keep is None or r.system in keep)]
    fit = bradley_terry_fit(db, document_id, rater=rater, systems=systems, n_boot=n_boot,
                            seed=seed)
    beta, bse = fit["beta"], fit["se"]
    exam = {r.system: r.exam for r in board}
    # One query (the book): the per-question binomial SE sqrt(p(1-p)/n) stands in for the
    # across-query SE, which a single query cannot give.
    n = rows(db, "select count(*) as n from exam_questions x join exam_runs r on "
                 "r.bank_id = x.bank_id where r.id = ? and x.query_id = ?",
             [run_id, document_id])[0]["n"]
    se = {r.system: float(np.sqrt(r.exam * (1 - r.exam) / n)) if n else 0.0 for r in board}
    out = leaderboard_correlation(exam, beta, se=se, reference_se=bse, repeats=repeats, seed=seed)
    out["exam"], out["bradley_terry"] = exam, beta
    out["exam_se"], out["bradley_terry_se"] = se, bse
    out["bt_estimate"] = fit["estimate"]
    for key in ("n_judgments", "n_decisive", "n_questions_decisive"):
        out[key] = fit[key]
    return out


def _nugget_texts(path: Path) -> tuple[dict[str, str], list[str]]:
    """Gold article per query and the shared passage pool from a car-nuggets JSONL sample.

    A facet becomes one passage: ``"<facet heading>. <nugget>. <nugget> ..."``.
    """
    gold: dict[str, list[str]] = {}
    pool: list[str] = []
    from core.importers.tabular import jsonl_records

    for n, rec in jsonl_records(path):
        try:
            heading = rec["query_text"].split(" / ")[-1]
            nuggets = [i["nugget_text"].strip().rstrip(".") + "." for i in rec["items"]]
        except (KeyError, TypeError, AttributeError):
            raise InputError("not a car-nuggets record", path=str(path), line=n) from None
        block = f"{heading[:1].upper()}{heading[1:]}. " + " ".join(nuggets)
        gold.setdefault(rec["query_id"], []).append(block)
        pool.append(block)
    return {q: "\n\n".join(blocks) for q, blocks in gold.items()}, pool


def build_demo(db: sqlite_utils.Database, demo_dir: str | Path) -> dict[str, Any]:
    """Offline EXAM demo from the bundled CAR Y3 sample (``demo/exam``), in a few seconds.

    Imports the bank sample; writes articles for a gold system (the query's own LLM-generated
    nuggets, Farzi & Dietz) and three retrieval-only systems over the pooled nuggets of all sample
    queries (BM25 for the query text at 60 and 200 tokens; the pool's first 200 tokens whatever
    the query); grades them offline (self-rating by the lexical baseline, threshold
    ``DEMO_THRESHOLD``). Returns the bank id, the run id and the leaderboard.
    """
    from core.corpus import count_tokens

    folder = Path(demo_dir)
    folder = folder / "exam" if (folder / "exam").is_dir() else folder
    bank = import_car_bank(db, folder / "car-y3-genq-sample.jsonl", bank_id=DEMO_BANK,
                           name="TREC CAR Y3 generated questions (sample)")
    gold, pool = _nugget_texts(folder / "car-nuggets-sample.jsonl")
    queries = {q["query_id"]: q["query_text"] for q in bank_queries(db, DEMO_BANK)}
    lead, used = [], 0
    for passage in pool:
        n = count_tokens(passage)
        if used + n > 200:
            break
        lead.append(passage)
        used += n
    with transaction(db):
        db.execute("delete from exam_articles where bank_id = ?", [DEMO_BANK])
        for qid, text in queries.items():
            if qid in gold:
                store_article(db, DEMO_BANK, qid, GOLD, gold[qid], kind="gold",
                              metadata={"source": "car-nuggets (gpt-3.5-turbo, Farzi & Dietz)"})
            for budget in (60, 200):
                article = pool_article(pool, text, budget)
                if article:
                    store_article(db, DEMO_BANK, qid, f"bm25-pool-{budget}", article,
                                  kind="retrieval", metadata={"budget_tokens": budget})
            store_article(db, DEMO_BANK, qid, "lead-pool-200", "\n\n".join(lead),
                          kind="retrieval", metadata={"budget_tokens": 200, "query_blind": True})
    run_id = grade_bank(db, DEMO_BANK, verification="self_rating", threshold=DEMO_THRESHOLD)
    board = run_scores(db, run_id)
    return {"bank_id": DEMO_BANK, "run_id": run_id, "n_questions": bank["n_questions"],
            "leaderboard": [(r.system, round(r.exam, 3)) for r in board]}
