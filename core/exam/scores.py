"""EXAM and n-EXAM scores, standard errors, the ROUGE-1 baseline and leaderboard correlation.

For system ``s``, query ``q`` with exam questions ``E_q`` and correctly answered set
``C_s(q)`` (empty when ``s`` has no article for ``q``):

* ``EXAM_s(q) = |C_s(q)| / |E_q|`` and ``EXAM_s = (1/|Q|) sum_q EXAM_s(q)`` (macro average over
  every query of the bank; a query without an article scores 0).
* standard error ``SE = sd(EXAM_s(q)) / sqrt(|Q|)`` with the sample standard deviation (ddof=1),
  as in the reference implementation (rubric-grading-workbench ``exam_cover_metric``); the
  intervals shown are ``mean +/- 1.96 SE`` (normal approximation, 95%).
* n-EXAM against the gold article: ``EXAM_s(q) / EXAM_gold(q)`` averaged over the queries where
  the gold article answers at least one question. A system can answer questions the gold article
  does not, so this ratio **can exceed 1**.
* n-EXAM against the pool: ``|C_s(q)| / |union_t C_t(q)|`` over every graded article of the run
  (gold included), 0 when no article answers anything (as the reference implementation's
  ``frac``); it lies in [0, 1] and equals the "_overall_"-normalised n-EXAM of Farzi & Dietz.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from core.errors import InputError
from core.exam.articles import GOLD
from core.stats import significance as stats
from core.store.exam import get_exam_run
from core.store.exam_bank import bank_articles, questions_per_query
from core.store.exam_results import run_grades

if TYPE_CHECKING:
    from core.store.engine import Database

Z95 = 1.959963984540054
TIE_DECIMALS = 9


def mean_se(values: Iterable[float]) -> tuple[float, float]:
    """``(mean, sd/sqrt(n))`` with ddof=1; ``(0, 0)`` for no values, SE 0 for one value."""
    v = np.asarray(list(values), dtype=float)
    if v.size == 0:
        return 0.0, 0.0
    if v.size == 1:
        return float(v[0]), 0.0
    return float(v.mean()), float(v.std(ddof=1) / math.sqrt(v.size))


@dataclass(frozen=True)
class SystemExam:
    """One leaderboard row."""

    system: str
    exam: float
    exam_se: float
    n_exam_gold: float | None
    n_exam_gold_se: float | None
    n_queries_gold: int
    n_exam_pool: float
    n_exam_pool_se: float
    n_queries: int
    n_articles: int
    per_query: dict[str, float]


def exam_scores(
    correct: Mapping[tuple[str, str], set[str]],
    n_questions: Mapping[str, int],
    systems: Iterable[str],
    has_article: set[tuple[str, str]] | None = None,
    gold: str = GOLD,
) -> list[SystemExam]:
    """EXAM, n-EXAM (gold, pool) and standard errors for every system (see module docstring).

    ``correct[(system, query)]`` is the set of correctly answered question ids; ``n_questions``
    holds ``|E_q|`` for every query of the bank (queries with 0 questions are an error).
    """
    queries = sorted(n_questions)
    if not queries:
        raise InputError("no queries to score")
    zero = [q for q in queries if n_questions[q] <= 0]
    if zero:
        raise InputError(f"query {zero[0]!r} has no exam questions")
    systems = list(dict.fromkeys(systems))
    pool = {q: set().union(*(correct.get((s, q), set()) for s in systems)) for q in queries}
    gold_exam = {q: len(correct.get((gold, q), set())) / n_questions[q] for q in queries}
    has_gold = any(s == gold for s in systems)
    out = []
    for s in systems:
        per_q = {q: len(correct.get((s, q), set())) / n_questions[q] for q in queries}
        exam, se = mean_se(per_q.values())
        pool_vals = [
            len(correct.get((s, q), set())) / len(pool[q]) if pool[q] else 0.0 for q in queries
        ]
        n_pool, n_pool_se = mean_se(pool_vals)
        gold_vals = [per_q[q] / gold_exam[q] for q in queries if gold_exam[q] > 0]
        n_gold, n_gold_se = mean_se(gold_vals) if (has_gold and gold_vals) else (None, None)
        n_art = sum(1 for q in queries if has_article is None or (s, q) in has_article)
        out.append(
            SystemExam(
                s,
                exam,
                se,
                n_gold,
                n_gold_se,
                len(gold_vals) if has_gold else 0,
                n_pool,
                n_pool_se,
                len(queries),
                n_art,
                per_q,
            )
        )
    return sorted(out, key=lambda r: (-r.exam, r.system))


def exam_run_bank(db: Database, run_id: str) -> str:
    """The question bank of the stored EXAM run ``run_id``; an unknown run raises InputError."""
    run = get_exam_run(db, run_id)
    if run is None:
        raise InputError(f"unknown EXAM run {run_id!r}")
    return str(run["bank_id"])


def run_scores(db: Database, run_id: str, queries: Iterable[str] | None = None) -> list[SystemExam]:
    """Leaderboard of one stored EXAM run over all (or the given) queries of its bank."""
    bank_id = exam_run_bank(db, run_id)
    counts = questions_per_query(db, bank_id)
    if queries is not None:
        wanted = set(queries)
        counts = {q: n for q, n in counts.items() if q in wanted}
    graded = run_grades(db, run_id)
    systems = sorted({r.system for r in graded})
    correct: dict[tuple[str, str], set[str]] = {}
    has_article = set()
    for r in graded:
        has_article.add((r.system, r.query_id))
        if r.correct == 1:
            correct.setdefault((r.system, r.query_id), set()).add(r.question_id)
    return exam_scores(correct, counts, systems, has_article)


def rouge1_scores(db: Database, bank_id: str, gold: str = GOLD) -> dict[str, tuple[float, float]]:
    """ROUGE-1 F1 of each system's article against the gold article, ``{system: (mean, SE)}``.

    Averaged over the queries that have a gold article; a missing system article scores 0
    (``rouge-score``, Porter stemming on).
    """
    from rouge_score import rouge_scorer

    arts = bank_articles(db, bank_id)
    golds = {a["query_id"]: a["text"] for a in arts if a["system"] == gold}
    if not golds:
        raise InputError(f"exam bank {bank_id!r} has no gold articles ({gold!r})")
    scorer = rouge_scorer.RougeScorer(["rouge1"], use_stemmer=True)
    texts: dict[str, dict[str, str]] = {}
    for a in arts:
        if a["system"] != gold:
            texts.setdefault(a["system"], {})[a["query_id"]] = a["text"]
    return {
        s: mean_se(
            scorer.score(golds[q], t[q])["rouge1"].fmeasure if q in t else 0.0
            for q in sorted(golds)
        )
        for s, t in sorted(texts.items())
    }


def leaderboard_correlation(
    scores: Mapping[str, float],
    reference: Mapping[str, float],
    *,
    se: Mapping[str, float] | None = None,
    reference_se: Mapping[str, float] | None = None,
    repeats: int = 10,
    seed: int = 0,
) -> dict[str, Any]:
    """Spearman and Kendall tau between two leaderboards over their common systems.

    Higher is better in both. ``plain`` uses the scores as they are (tied scores share the average
    rank; Kendall's tau-b); scores equal to ``TIE_DECIMALS`` (9) decimals count as tied. With
    ``se``, systems within one standard error of each other count as tied and ties are broken at
    random, averaged over ``repeats`` seeded draws
    (:func:`core.stats.significance.rank_correlation_with_ties`).
    """

    common = sorted(set(scores) & set(reference))
    if len(common) < 3:
        raise InputError(f"need at least 3 systems on both leaderboards, have {len(common)}")
    # Scores equal up to floating-point noise (e.g. two Bradley-Terry strengths of systems with
    # identical records, -3.1719039732623955 vs -3.1719039732623933) are the same score: compare
    # at 9 decimals, or the noise would decide their order.
    a = [round(float(scores[s]), TIE_DECIMALS) for s in common]
    b = [round(float(reference[s]), TIE_DECIMALS) for s in common]
    out: dict[str, Any] = {
        "n_systems": len(common),
        "systems": common,
        "spearman": float(stats.spearman(a, b)),
        "kendall": float(stats.kendall_tau(a, b)),
    }
    if se is not None:
        tied = stats.rank_correlation_with_ties(
            a,
            [float(se[s]) for s in common],
            b,
            None if reference_se is None else [float(reference_se[s]) for s in common],
            repeats=repeats,
            seed=seed,
        )
        out.update(_tie_fields(tied))
        out["repeats"], out["seed"] = repeats, seed
    return out


def _tie_fields(result: Mapping[str, float]) -> dict[str, float]:
    """Read the tie-broken means from the mapping ``rank_correlation_with_ties`` gives."""
    sp = result.get("spearman")
    kt = result.get("kendall")
    if kt is None:
        kt = result.get("kendall_tau")
    if sp is None or kt is None:
        raise InputError(
            "core.stats.significance.rank_correlation_with_ties returned no spearman/kendall"
        )
    return {"spearman_ties": float(sp), "kendall_ties": float(kt)}
