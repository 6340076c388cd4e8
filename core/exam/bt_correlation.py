"""EXAM against side-by-side judging on one book: Bradley-Terry fits of the stored pairwise
verdicts and their rank correlation with the EXAM scores of the same systems."""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from core.corpus.json_input import loads_bounded
from core.corpus.tabular import read_input_text
from core.errors import InputError
from core.exam.articles import GOLD
from core.exam.scores import leaderboard_correlation, run_scores
from core.stats.bradley_terry import bootstrap_bradley_terry, fit_bradley_terry
from core.stats.pairwise_counts import NotIdentifiableError, PairwiseCounts
from core.stats.ranking_settings import RankingSettings
from core.store.exam_results import run_questions_of_query
from core.store.judgments import JudgmentKind, JudgmentStatus, PairwiseVerdict, effective_values

if TYPE_CHECKING:
    from core.store.engine import Database


def reference_from_rank_json(path: str | Path) -> tuple[dict[str, float], dict[str, float]]:
    """``(beta, se)`` per system from ``python -m core rank --json`` output.

    The SE is read off the 95% bootstrap percentile interval as ``(high - low) / (2 * 1.96)``
    (exact for a normal bootstrap distribution, an approximation otherwise).
    """
    path = Path(path)
    try:
        data = loads_bounded(read_input_text(path), path)
        systems = data["systems"]
        beta = {s["name"]: float(s["beta"]) for s in systems}
        se = {
            s["name"]: (float(s["ci_high"]) - float(s["ci_low"])) / (2 * 1.959963984540054)
            for s in systems
            if s.get("ci_low") is not None and s.get("ci_high") is not None
        }
    except (KeyError, TypeError, ValueError) as exc:
        raise InputError(f"not a 'rank --json' result ({exc})", path=str(path)) from None
    return beta, se


def bradley_terry_reference(
    db: Database,
    document_id: str,
    *,
    rater: str | None = None,
    systems: Iterable[str] | None = None,
    n_boot: int = 200,
    seed: int = 0,
) -> tuple[dict[str, float], dict[str, float]]:
    """Bradley-Terry ``(beta, se)`` of the systems judged side by side on one book's questions.

    See :func:`bradley_terry_fit` (this is its ``beta`` and ``se``).
    """
    fit = bradley_terry_fit(db, document_id, rater=rater, systems=systems, n_boot=n_boot, seed=seed)
    return fit["beta"], fit["se"]


def bradley_terry_fit(
    db: Database,
    document_id: str,
    *,
    rater: str | None = None,
    systems: Iterable[str] | None = None,
    n_boot: int = 200,
    seed: int = 0,
    prior_alpha: float = 0.01,
) -> dict[str, Any]:
    """Bradley-Terry fit of the systems judged side by side on one book's questions.

    Uses the current pairwise judgments (superseded rows left out; ``rater`` exact or a prefix
    such as ``human:``; ``systems``: only comparisons between two of them; ``None`` verdicts
    carry no preference and are left out, ``Equal`` counts half a win each). When the maximum-
    likelihood estimate does not exist (a system never wins or never loses, common with few
    decisive verdicts) the MAP estimate under a weak ``N(0, 1/prior_alpha)`` prior is used and
    ``estimate`` says so. The SE comes from ``n_boot`` question-resampled bootstrap fits
    (:func:`core.stats.bradley_terry.bootstrap_bradley_terry`, seeded), read off their 95%
    percentile interval as ``(high - low) / (2 * 1.96)`` so that runaway strengths of degenerate
    replicates do not inflate it. Returns ``{"beta", "se", "estimate", "n_judgments",
    "n_decisive", "n_questions_decisive"}`` (decisive: ``A``, ``B`` or ``Equal``).
    """

    judged = effective_values(
        db,
        ("question_id", "system_a", "system_b", "verdict", "rater"),
        kind=JudgmentKind.PAIRWISE,
        status=JudgmentStatus.OK,
        with_verdict=True,
        document_id=document_id,
    )
    if rater:
        judged = [j for j in judged if j[4] == rater or j[4].startswith(rater)]
    if systems is not None:
        keep = set(systems)
        judged = [j for j in judged if j[1] in keep and j[2] in keep]
    if not judged:
        raise InputError(f"no side-by-side judgments for document {document_id!r}")
    counts = PairwiseCounts.from_records([j[:4] for j in judged])
    alpha, estimate = 0.0, "maximum likelihood"
    try:
        beta = fit_bradley_terry(counts.win_matrix("half"), systems=counts.systems)
    except NotIdentifiableError as exc:
        alpha, estimate = prior_alpha, f"MAP with N(0, 1/{prior_alpha}) prior ({exc})"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            beta = fit_bradley_terry(counts.win_matrix("half"), alpha=alpha, systems=counts.systems)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        boot = bootstrap_bradley_terry(
            counts, RankingSettings(n_boot=n_boot, seed=seed, alpha=alpha)
        )
    se = (np.asarray(boot.ci_high) - np.asarray(boot.ci_low)) / (2 * 1.959963984540054)
    return {
        "beta": {s: float(b) for s, b in zip(counts.systems, beta)},
        "se": {s: float(e) for s, e in zip(counts.systems, se)},
        "estimate": estimate,
        "n_judgments": len(judged),
        "n_decisive": sum(1 for j in judged if j[3] != PairwiseVerdict.NONE),
        "n_questions_decisive": len({j[0] for j in judged if j[3] != PairwiseVerdict.NONE}),
    }


def correlate_with_bradley_terry(
    db: Database,
    run_id: str,
    document_id: str,
    *,
    rater: str | None = None,
    systems: Iterable[str] | None = None,
    n_boot: int = 200,
    repeats: int = 10,
    seed: int = 0,
) -> dict[str, Any]:
    """EXAM leaderboard of a run (exam = the book's long-span questions) vs. its BT ranking.

    Both leaderboards carry standard errors, so ties within one SE are broken at random on both
    sides (``repeats`` draws). The gold article is not a system and is left out; ``systems``
    restricts both leaderboards. Adds ``exam``, ``exam_se``, ``bradley_terry``,
    ``bradley_terry_se`` (per system), the judgment counts of :func:`bradley_terry_fit` and
    ``bt_estimate`` (maximum likelihood, or MAP under a weak prior when the MLE does not exist).
    """
    keep = None if systems is None else set(systems)
    board = [
        r
        for r in run_scores(db, run_id, queries=[document_id])
        if r.system != GOLD and (keep is None or r.system in keep)
    ]
    fit = bradley_terry_fit(db, document_id, rater=rater, systems=systems, n_boot=n_boot, seed=seed)
    beta, bse = fit["beta"], fit["se"]
    exam = {r.system: r.exam for r in board}
    # One query (the book): the per-question binomial SE sqrt(p(1-p)/n) stands in for the
    # across-query SE, which a single query cannot give.
    n = run_questions_of_query(db, run_id, document_id)
    se = {r.system: float(np.sqrt(r.exam * (1 - r.exam) / n)) if n else 0.0 for r in board}
    out = leaderboard_correlation(exam, beta, se=se, reference_se=bse, repeats=repeats, seed=seed)
    out["exam"], out["bradley_terry"] = exam, beta
    out["exam_se"], out["bradley_terry_se"] = se, bse
    out["bt_estimate"] = fit["estimate"]
    for key in ("n_judgments", "n_decisive", "n_questions_decisive"):
        out[key] = fit[key]
    return out
