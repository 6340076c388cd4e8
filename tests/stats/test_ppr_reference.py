"""Rank-sets and PPI estimates against the algorithm of Chatzi et al. ("Prediction-Powered Ranking
of Large Language Models", NeurIPS 2024) on a subset of their Chatbot Arena data
(tests/data/ppr/battles.csv, PROVENANCE.md there).

``reference_*`` below re-derive, loop by loop, what the authors' ``src/estimate.py`` and
``scripts/ranksets.py`` compute (written for this test from their formulas, not copied): the
per-system sample average and its covariance, their lambda, their PPI estimate, and their
rank-set rule. The workbench's functions must give the same rank-sets for the same estimate and
covariance, and the same estimate for the same lambda. The covariance is where the two differ
on purpose: theirs divides by ``n^2`` where the variance of a mean over a system's ``n_m``
battles divides by ``n_m n_l`` (checked exactly below; docs/statistics.md says why).
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest
from scipy import stats as sps

from core.stats.ppi_mean import Battles, classical_win_rates, ppi_win_rates
from core.stats.rank_sets import rank_sets

DATA = Path(__file__).resolve().parent.parent / "data" / "ppr" / "battles.csv"
N_LABELLED = 59  # the first 59 battles are "judged by people"; the rest by the judge alone


def load() -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    with DATA.open(newline="") as f:
        rows = list(csv.DictReader(f))
    models = sorted({r["model_a"] for r in rows} | {r["model_b"] for r in rows})
    a = np.array([models.index(r["model_a"]) for r in rows])
    b = np.array([models.index(r["model_b"]) for r in rows])
    human = np.array([{"model_a": 1, "model_b": 2, "tie": 0}[r["winner_human"]] for r in rows])
    judge = np.array([{"model_a": 1, "model_b": 2, "tie": 0}[r["winner_gpt4"]] for r in rows])
    return models, a, b, human, judge


def reference_average(k: int, a: np.ndarray, b: np.ndarray, out: np.ndarray):
    """Their ``sample_avg``: the win share of each model over its battles (a tie is no win)
    and ``A A^T / n^2`` with ``A[m, j]`` the residual of model m in battle j."""
    n = len(a)
    w1, w2 = (out == 1).astype(float), (out == 2).astype(float)
    count = np.zeros(k)
    total = np.zeros(k)
    for j in range(n):
        count[a[j]] += 1
        count[b[j]] += 1
        total[a[j]] += w1[j]
        total[b[j]] += w2[j]
    mean = total / count
    resid = np.zeros((k, n))
    for j in range(n):
        resid[a[j], j] = w1[j] - mean[a[j]]
        resid[b[j], j] = w2[j] - mean[b[j]]
    return mean, resid, resid @ resid.T / n**2


def reference_lambda(k, a, b, human, judge, au, bu, judge_u) -> float:
    """Their ``lhat_opt``: tr(cross-covariance of people and judge residuals / n) over
    (1 + n/N) tr(judge-only residual covariance / N), clipped to [0, 1]."""
    n, big_n = len(a), len(au)
    _, r_judge, _ = reference_average(k, a, b, judge)
    _, r_human, _ = reference_average(k, a, b, human)
    _, r_only, _ = reference_average(k, au, bu, judge_u)
    num = np.trace(r_human @ r_judge.T / n)
    den = (1 + n / big_n) * np.trace(r_only @ r_only.T / big_n)
    return float(min(max(num / den, 0.0), 1.0))


def reference_estimate(k, a, b, human, judge, au, bu, judge_u, lam):
    """Their ``estimate``: lam * (judge-only average) - average of (lam * judge - people)."""
    judge_mean, _, judge_cov = reference_average(k, au, bu, judge_u)
    n = len(a)
    w_h = np.stack([(human == 1), (human == 2)]).astype(float)
    w_f = np.stack([(judge == 1), (judge == 2)]).astype(float)
    d = lam * w_f - w_h
    count, total = np.zeros(k), np.zeros(k)
    for j in range(n):
        for side, m in ((0, a[j]), (1, b[j])):
            count[m] += 1
            total[m] += d[side, j]
    rect = total / count
    resid = np.zeros((k, n))
    for j in range(n):
        resid[a[j], j] = d[0, j] - rect[a[j]]
        resid[b[j], j] = d[1, j] - rect[b[j]]
    return lam * judge_mean - rect, lam**2 * judge_cov + resid @ resid.T / n**2


def reference_rank_sets(k: int, theta: np.ndarray, cov: np.ndarray, alpha: float):
    """Their ``find_ranksets``: for every ordered pair, the gap over sqrt(2) against the
    half-width of the chi-square(k) ellipsoid's projection, counted into [low, up]."""
    low, up = [1] * k, [k] * k
    q = sps.chi2.ppf(1 - alpha, k)
    for m1 in range(k):
        for m2 in range(k):
            if m1 == m2:
                continue
            d = abs(theta[m1] - theta[m2]) / np.sqrt(2) - np.sqrt(
                (cov[m1][m1] + cov[m2][m2] - 2 * cov[m1][m2]) * (q / 2)
            )
            if d > 0 and theta[m1] < theta[m2]:
                low[m1] += 1
            elif d > 0 and theta[m1] > theta[m2]:
                up[m1] -= 1
    return [(lo, hi) for lo, hi in zip(low, up)]


def split():
    models, a, b, human, judge = load()
    cut = N_LABELLED
    return (
        len(models),
        (a[:cut], b[:cut], human[:cut], judge[:cut]),
        (a[cut:], b[cut:], judge[cut:]),
    )


def scored(a: np.ndarray, b: np.ndarray, out: np.ndarray) -> Battles:
    return Battles(a, b, (out == 1).astype(float), (out == 2).astype(float))


@pytest.mark.parametrize("alpha", [0.05, 0.1, 0.3, 0.6])
def test_rank_sets_equal_theirs_on_their_data(alpha: float) -> None:
    k, (a, b, human, judge), (au, bu, judge_u) = split()
    lam = reference_lambda(k, a, b, human, judge, au, bu, judge_u)
    cases = {
        "people": reference_average(k, a, b, human)[::2],
        "judge": reference_average(k, np.r_[a, au], np.r_[b, bu], np.r_[judge, judge_u])[::2],
        "ppr": reference_estimate(k, a, b, human, judge, au, bu, judge_u, lam),
    }
    informative = 0
    for theta, cov in cases.values():
        theirs = reference_rank_sets(k, theta, cov, alpha)
        assert rank_sets(theta, cov, alpha) == theirs
        informative += sum(hi - lo < k - 1 for lo, hi in theirs)
    if alpha >= 0.1:
        assert informative  # not only the trivial [1, k]


def test_rank_sets_equal_theirs_on_random_estimates() -> None:
    rng = np.random.default_rng(7)
    for _ in range(300):
        k = int(rng.integers(2, 12))
        theta = rng.random(k)
        root = rng.normal(size=(k, k)) * rng.uniform(0.001, 0.1)
        cov = root @ root.T
        alpha = float(rng.uniform(0.01, 0.9))
        assert rank_sets(theta, cov, alpha) == reference_rank_sets(k, theta, cov, alpha)


def test_ppi_estimate_equals_theirs_at_their_lambda() -> None:
    k, (a, b, human, judge), (au, bu, judge_u) = split()
    lam = reference_lambda(k, a, b, human, judge, au, bu, judge_u)
    assert 0 < lam <= 1
    theta, _ = reference_estimate(k, a, b, human, judge, au, bu, judge_u, lam)
    ours = ppi_win_rates(scored(a, b, human), scored(a, b, judge), scored(au, bu, judge_u), k, lam)
    assert ours.estimate == pytest.approx(theta, abs=1e-9)
    people, _, _ = reference_average(k, a, b, human)
    assert classical_win_rates(scored(a, b, human), k).estimate == pytest.approx(people, abs=1e-9)


def test_covariance_is_theirs_rescaled_by_each_systems_battle_count() -> None:
    k, (a, b, human, _), _ = split()
    _, _, theirs = reference_average(k, a, b, human)
    n = len(a)
    n_m = np.bincount(a, minlength=k) + np.bincount(b, minlength=k)
    ours = classical_win_rates(scored(a, b, human), k).cov
    assert ours == pytest.approx(theirs * n**2 / np.outer(n_m, n_m), abs=1e-12)
