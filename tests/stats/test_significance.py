"""core.stats.significance against statsmodels / scipy and hand-derived values."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats as sps
from statsmodels.stats.contingency_tables import mcnemar as sm_mcnemar
from statsmodels.stats.proportion import proportion_confint

from core.errors import InputError
from core.stats.significance import (
    bernoulli_ci,
    kendall_tau,
    mcnemar,
    paired_bootstrap,
    rank_correlation_with_ties,
    spearman,
    tie_groups,
    wilson_ci,
)


@pytest.mark.parametrize("k,n", [(0, 10), (3, 10), (50, 80), (99, 100), (10, 10)])
@pytest.mark.parametrize("level", [0.9, 0.95])
def test_intervals_match_statsmodels(k: int, n: int, level: float) -> None:
    b = bernoulli_ci(k, n, level)
    assert (b.low, b.high) == pytest.approx(
        proportion_confint(k, n, 1 - level, "normal"), abs=1e-12
    )
    w = wilson_ci(k, n, level)
    assert (w.low, w.high) == pytest.approx(
        proportion_confint(k, n, 1 - level, "wilson"), abs=1e-12
    )
    assert b.level == w.level == level and b.estimate == k / n


def test_bernoulli_by_hand() -> None:
    # p = 0.6, n = 100: 1.96 * sqrt(0.24 / 100) = 0.0960...
    ci = bernoulli_ci(60, 100)
    assert ci.high - 0.6 == pytest.approx(sps.norm.ppf(0.975) * np.sqrt(0.0024), abs=1e-12)
    assert ci.high == pytest.approx(0.6960, abs=1e-4)
    with pytest.raises(InputError):
        bernoulli_ci(5, 3)


@pytest.mark.parametrize("b,c", [(3, 9), (20, 45), (0, 4)])
def test_mcnemar_matches_statsmodels(b: int, c: int) -> None:
    x = np.r_[np.ones(b), np.zeros(c), np.ones(7), np.zeros(11)]
    y = np.r_[np.zeros(b), np.ones(c), np.ones(7), np.zeros(11)]
    ours = mcnemar(x, y)
    exact = b + c < 25
    ref = sm_mcnemar(np.array([[7, b], [c, 11]]), exact=exact, correction=True)
    assert ours["pvalue"] == pytest.approx(ref.pvalue, abs=1e-12)
    assert ours["statistic"] == pytest.approx(ref.statistic, abs=1e-12)
    assert (ours["b"], ours["c"]) == (b, c)


def test_paired_bootstrap_against_normal_theory() -> None:
    rng = np.random.default_rng(0)
    x = rng.binomial(1, 0.7, 2000)
    y = np.where(rng.random(2000) < 0.8, x, 1 - x)
    res = paired_bootstrap(x, y, n_boot=4000, seed=1)
    d = x - y
    half = 1.96 * d.std(ddof=1) / np.sqrt(len(d))
    assert res["difference"] == pytest.approx(d.mean())
    assert res["ci_low"] == pytest.approx(d.mean() - half, abs=0.15 * half)
    assert res["ci_high"] == pytest.approx(d.mean() + half, abs=0.15 * half)
    assert res == paired_bootstrap(x, y, n_boot=4000, seed=1)
    same = paired_bootstrap(x, x, n_boot=100, seed=1)
    assert same["pvalue"] == 1.0 and same["ci_low"] == same["ci_high"] == 0


@pytest.mark.parametrize("seed", range(5))
def test_rank_correlations_match_scipy(seed: int) -> None:
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 6, 15).astype(float)  # with ties
    b = a + rng.normal(0, 2, 15)
    assert spearman(a, b) == pytest.approx(sps.spearmanr(a, b).statistic, abs=1e-12)
    assert kendall_tau(a, b) == pytest.approx(sps.kendalltau(a, b).statistic, abs=1e-12)


def test_tie_groups_by_hand() -> None:
    assert tie_groups([3.0, 2.9, 1.0, 0.95], 0.2).tolist() == [0, 0, 1, 1]
    assert tie_groups([3.0, 2.0, 1.0], 0.0).tolist() == [0, 1, 2]


def test_rank_correlation_with_ties() -> None:
    scores_a, se_a, scores_b = [3.0, 2.9, 1.0], [0.2, 0.2, 0.2], [3.0, 2.0, 1.0]
    # No ties (se = 0): plain correlations.
    plain = rank_correlation_with_ties(scores_a, 0.0, scores_b)
    assert plain["spearman"] == pytest.approx(1.0) and plain["kendall"] == pytest.approx(1.0)
    # Systems 0 and 1 tied: half the trials give the identity (rho = tau = 1), half a swap:
    # ranks (2, 1, 3) vs (1, 2, 3): rho = 1 - 6 * 2 / (3 * 8) = 0.5, tau = (2 - 1) / 3 = 1/3.
    res = rank_correlation_with_ties(scores_a, se_a, scores_b, repeats=10, seed=3)
    k = round((res["spearman"] - 0.5) / 0.05)
    assert res["spearman"] == pytest.approx((k * 1 + (10 - k) * 0.5) / 10)
    assert res["kendall"] == pytest.approx((k * 1 + (10 - k) / 3) / 10)
    many = rank_correlation_with_ties(scores_a, se_a, scores_b, repeats=4000, seed=0)
    assert many["spearman"] == pytest.approx(0.75, abs=0.02)
    assert many["kendall"] == pytest.approx(2 / 3, abs=0.02)
    with pytest.raises(InputError):
        rank_correlation_with_ties([1.0], 0.1, [1.0])
