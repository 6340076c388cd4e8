"""What the EXAM page shows: pandas DataFrames assembled from the store and the EXAM scores.

Pages call these and render; no SQL or maths in a page. Intervals are normal 95% intervals
``mean +/- 1.96 SE``; n-EXAM against the gold article can exceed 1 (a system may answer
questions the gold article does not).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from core.errors import InputError
from core.exam.articles import GOLD
from core.exam.book_case import ranks
from core.exam.bt_correlation import bradley_terry_reference
from core.exam.car_repro import reproduce_car
from core.exam.scores import (
    Z95,
    exam_run_bank,
    leaderboard_correlation,
    rouge1_scores,
    run_scores,
)
from core.store.exam_bank import bank_questions, count_bank_questions
from core.store.exam_results import (
    book_correlations,
    exam_runs_overview,
    latest_book_systems,
    run_grades,
    run_systems,
)

if TYPE_CHECKING:
    from core.store.engine import Database

DEMO_RESULTS = Path(__file__).resolve().parents[2] / "demo" / "exam" / "car-results"


def runs_frame(db: Database) -> pd.DataFrame:
    """Every EXAM run: id, bank, Q/A model, verification, threshold, graded pairs, created."""
    data = exam_runs_overview(db)
    return pd.DataFrame(
        data,
        columns=[
            "run_id",
            "bank_id",
            "qa_model",
            "verification",
            "threshold",
            "graded",
            "created_at",
        ],
    )


BINOMIAL_SE = "EXAM SE (per question, binomial)"


def leaderboard_frame(db: Database, run_id: str) -> pd.DataFrame:
    """The leaderboard of one run: EXAM, n-EXAM (gold, pool), SEs, 95% intervals, ROUGE-1 F1.

    ``EXAM SE`` is over queries. For a run over a single query (a book) that SE is undefined
    (0 here), so ``EXAM SE (per question, binomial)`` gives ``sqrt(p(1-p)/n)`` over the query's
    ``n`` exam questions (``p`` = EXAM); with more queries that column is empty. ``n-EXAM (gold)``
    can exceed 1; ``n-EXAM (gold) queries`` counts the queries it averages over (those where the
    gold article answers something). ``unparsed/errors`` counts grades with no verdict (scored
    as not answered).
    """
    board = run_scores(db, run_id)
    bank_id = exam_run_bank(db, run_id)
    try:
        rouge = rouge1_scores(db, bank_id)
    except InputError:
        rouge = {}
    n_questions = count_bank_questions(db, bank_id)
    failed = Counter(g.system for g in run_grades(db, run_id) if g.correct is None)
    out = []
    for rank, r in enumerate(board, start=1):
        binomial = (
            math.sqrt(r.exam * (1 - r.exam) / n_questions)
            if r.n_queries == 1 and n_questions
            else None
        )
        out.append(
            {
                "rank": rank,
                "system": r.system,
                "gold": r.system == GOLD,
                "EXAM": r.exam,
                "EXAM SE": r.exam_se,
                "EXAM 95% low": r.exam - Z95 * r.exam_se,
                "EXAM 95% high": r.exam + Z95 * r.exam_se,
                BINOMIAL_SE: binomial,
                "n-EXAM (gold)": r.n_exam_gold,
                "n-EXAM (gold) SE": r.n_exam_gold_se,
                "n-EXAM (gold) queries": r.n_queries_gold,
                "n-EXAM (pool)": r.n_exam_pool,
                "n-EXAM (pool) SE": r.n_exam_pool_se,
                "ROUGE-1 F1": rouge.get(r.system, (None, None))[0],
                "articles": r.n_articles,
                "queries": r.n_queries,
                "unparsed/errors": failed.get(r.system, 0),
            }
        )
    return pd.DataFrame(out)


def answered_frame(db: Database, run_id: str, query_id: str) -> pd.DataFrame:
    """Per question of one query: which system's article answered it.

    Cells: ``yes`` / ``no`` / ``unparsed`` / ``error``, with the article's self-rating when the
    grade came from one (``yes, rated 5 of 5``: answered when the rating reaches the threshold),
    or ``no article`` when the system wrote none for this query (scored as not answered). Extra
    columns give the question and facet.
    """
    bank_id = exam_run_bank(db, run_id)
    qs = sorted(
        (q for q in bank_questions(db, bank_id) if q.query_id == query_id), key=lambda q: q.qid
    )
    graded = run_grades(db, run_id, query_id)
    systems = run_systems(db, run_id)
    cell = {}
    for g in graded:
        label = {1: "yes", 0: "no"}.get(g.correct, g.status) if g.correct is not None else g.status
        if g.self_rating is not None:
            label += f", rated {g.self_rating:g} of 5"
        cell[(g.system, g.question_id)] = label
    data = [
        {
            "qid": q.qid,
            "facet": q.facet_id,
            "question": q.question,
            **{s: cell.get((s, q.id), "no article") for s in systems},
        }
        for q in qs
    ]
    return pd.DataFrame(data, columns=["qid", "facet", "question", *systems])


def correlation_frame(
    db: Database,
    run_id: str,
    *,
    reference: Mapping[str, float] | None = None,
    reference_se: Mapping[str, float] | None = None,
    reference_name: str = "reference leaderboard",
    bt_document: str | None = None,
    repeats: int = 10,
    seed: int = 0,
) -> pd.DataFrame:
    """Rank correlation of the run's EXAM and n-EXAM leaderboards with the references.

    References: the ROUGE-1 F1 baseline (when gold articles exist), a given leaderboard, and the
    Bradley-Terry ranking from side-by-side judging on ``bt_document``. Columns: reference,
    measure, systems, Spearman, Kendall tau, and both with within-SE ties broken at random. The
    SE is over queries; a single-query run (a book) uses the per-question binomial SE instead.
    """
    board = [r for r in run_scores(db, run_id) if r.system != GOLD]
    bank_id = exam_run_bank(db, run_id)
    exam_se = {r.system: r.exam_se for r in board}
    pool_se = {r.system: r.n_exam_pool_se for r in board}
    if board and all(r.n_queries == 1 for r in board):
        # One query: no SE over queries; use the per-question binomial SE sqrt(p(1-p)/n) (the
        # pool normaliser is a constant there, so n-EXAM (pool)'s SE scales with EXAM's).
        n = count_bank_questions(db, bank_id)
        exam_se = {r.system: math.sqrt(r.exam * (1 - r.exam) / n) if n else 0.0 for r in board}
        pool_se = {
            r.system: exam_se[r.system] * r.n_exam_pool / r.exam if r.exam else 0.0 for r in board
        }
    measures = {
        "EXAM": ({r.system: r.exam for r in board}, exam_se),
        "n-EXAM (pool)": ({r.system: r.n_exam_pool for r in board}, pool_se),
    }
    refs: list[tuple[str, dict[str, float], dict[str, float] | None]] = []
    try:
        rouge = rouge1_scores(db, bank_id)
        refs.append(
            (
                "ROUGE-1 F1 vs gold",
                {s: v[0] for s, v in rouge.items()},
                {s: v[1] for s, v in rouge.items()},
            )
        )
    except InputError:
        pass
    if reference:
        refs.append((reference_name, dict(reference), dict(reference_se) if reference_se else None))
    if bt_document:
        beta, bse = bradley_terry_reference(db, bt_document, seed=seed)
        refs.append(("Bradley-Terry (side by side)", beta, bse))
    out: list[dict[str, object]] = []
    for ref_name, ref, ref_se in refs:
        for measure, (scores, se) in measures.items():
            try:
                c = leaderboard_correlation(
                    scores, ref, se=se, reference_se=ref_se, repeats=repeats, seed=seed
                )
            except InputError as exc:
                out.append({"reference": ref_name, "measure": measure, "note": str(exc)})
                continue
            out.append(
                {
                    "reference": ref_name,
                    "measure": measure,
                    "systems": c["n_systems"],
                    "Spearman": c["spearman"],
                    "Kendall tau": c["kendall"],
                    "Spearman (SE ties)": c.get("spearman_ties"),
                    "Kendall tau (SE ties)": c.get("kendall_ties"),
                    "note": "",
                }
            )
    return pd.DataFrame(
        out,
        columns=[
            "reference",
            "measure",
            "systems",
            "Spearman",
            "Kendall tau",
            "Spearman (SE ties)",
            "Kendall tau (SE ties)",
            "note",
        ],
    )


def car_reproduction_frame(
    results_dir: str | Path | None = None, *, repeats: int = 10, seed: int = 0
) -> pd.DataFrame:
    """Recomputed vs. published rank correlations of the TREC CAR Y3 EXAM leaderboards."""

    return pd.DataFrame(reproduce_car(results_dir or DEMO_RESULTS, repeats=repeats, seed=seed))


def book_correlation_frame(db: Database, document_id: str | None = None) -> pd.DataFrame:
    """Stored EXAM-vs-Bradley-Terry correlations on single books (``core.exam.book_case``).

    One row per (book, EXAM run, side-by-side rater): Spearman and Kendall tau-b plain and with
    systems within one SE tied (ties broken at random, averaged over ``repeats`` draws), with the
    counts behind them; newest first.
    """
    data = book_correlations(db, document_id)
    cols = {
        "document_id": "book",
        "title": "title",
        "exam_run_id": "EXAM run",
        "experiment": "experiment",
        "rater": "side-by-side rater",
        "n_systems": "systems",
        "n_questions": "questions",
        "n_judgments": "judgments",
        "n_decisive": "decisive judgments",
        "spearman": "Spearman",
        "kendall": "Kendall tau",
        "spearman_ties": "Spearman (SE ties)",
        "kendall_ties": "Kendall tau (SE ties)",
        "repeats": "tie repeats",
        "bt_estimate": "Bradley-Terry estimate",
        "created_at": "created_at",
    }
    return pd.DataFrame(data, columns=list(cols)).rename(columns=cols)


def book_systems_frame(db: Database, document_id: str | None = None) -> pd.DataFrame:
    """Per system of the latest stored book correlation: EXAM and Bradley-Terry side by side.

    Columns: system, overview strategy, overview tokens, EXAM (share of the book's generated
    questions its overview answers) with SE and rank, Bradley-Terry strength with SE and rank
    (ranks: 1 = best, ties share the better rank). Empty when nothing is stored.
    """

    found = latest_book_systems(db, document_id)
    cols = [
        "system",
        "strategy",
        "overview tokens",
        "EXAM",
        "EXAM SE",
        "EXAM rank",
        "Bradley-Terry",
        "Bradley-Terry SE",
        "Bradley-Terry rank",
    ]
    if found is None:
        return pd.DataFrame(columns=cols)
    data = found
    exam_rank, bt_rank = ranks(d["exam"] for d in data), ranks(d["bt"] for d in data)
    out = [
        {
            "system": d["system"],
            "strategy": d["strategy"],
            "overview tokens": d["tokens"],
            "EXAM": d["exam"],
            "EXAM SE": d["exam_se"],
            "EXAM rank": er,
            "Bradley-Terry": d["bt"],
            "Bradley-Terry SE": d["bt_se"],
            "Bradley-Terry rank": br,
        }
        for d, er, br in zip(data, exam_rank, bt_rank)
    ]
    return pd.DataFrame(out, columns=cols).sort_values(["EXAM rank", "system"], ignore_index=True)
