"""PPI++ Bradley-Terry strengths (core/stats/ppi_bt.py) equal the authors' library, ppi-python's
``ppi_logistic_ci`` / ``ppi_logistic_pointestimate``, to 1e-9 on fixed data (the same
covariates: the battles' Helmert contrasts), tuned or at a fixed lambda; lambda = 0 is people
alone; the centred strengths recover the truth."""

from __future__ import annotations

import numpy as np
import ppi_py.ppi
import pytest
from ppi_py import ppi_logistic_ci, ppi_logistic_pointestimate

from core.errors import InputError
from core.stats.ppi_bt import classical_strengths, contrasts, design, ppi_strengths
from core.stats.ppi_mean import Battles


@pytest.fixture(autouse=True)
def uncompiled_stats(monkeypatch: pytest.MonkeyPatch) -> None:
    """ppi-python's own ``_logistic_get_stats`` as written, without numba's compilation
    (half a minute on a busy machine; the same code and numbers)."""
    stats = ppi_py.ppi._logistic_get_stats
    monkeypatch.setattr(ppi_py.ppi, "_logistic_get_stats", getattr(stats, "py_func", stats))


BETA = np.array([0.6, 0.2, -0.1, -0.7])
BIAS = np.array([0.8, 0.0, 0.0, -0.5])  # the judge's own lean, per system


def arena(seed: int, n: int = 300, big_n: int = 2000) -> tuple[Battles, Battles, Battles]:
    """People's and a biased judge's outcomes (no ties: ppi-python's first fit is a classifier)
    on n labelled battles, the judge's alone on big_n more."""
    rng = np.random.default_rng(seed)
    k = len(BETA)
    a = rng.integers(k, size=n + big_n)
    b = (a + rng.integers(1, k, size=n + big_n)) % k
    y = (rng.random(n + big_n) < 1 / (1 + np.exp(BETA[b] - BETA[a]))).astype(float)
    lean = 1 / (1 + np.exp(BETA[b] + BIAS[b] - BETA[a] - BIAS[a]))
    f = np.where(rng.random(n + big_n) < 0.6, y, (rng.random(n + big_n) < lean).astype(float))
    lab, unl = slice(0, n), slice(n, None)
    return (
        Battles(a[lab], b[lab], y[lab], 1 - y[lab]),
        Battles(a[lab], b[lab], f[lab], 1 - f[lab]),
        Battles(a[unl], b[unl], f[unl], 1 - f[unl]),
    )


def reference(people: Battles, judge: Battles, only: Battles, **kw: float) -> tuple:
    k = len(BETA)
    x, xu = design(people, k).x, design(only, k).x
    y, f, g = people.score_a, judge.score_a, only.score_a
    return ppi_logistic_ci(x, y, f, xu, g, alpha=0.05, **kw)


@pytest.mark.parametrize("seed", [1, 2])
def test_tuned_strengths_equal_ppi_python(seed: int) -> None:
    people, judge, only = arena(seed)
    fit = ppi_strengths(people, judge, only, len(BETA))
    lo, hi = reference(people, judge, only)
    iv = fit.theta_intervals(0.05)
    assert np.abs(iv[:, 0] - lo).max() < 1e-9 and np.abs(iv[:, 1] - hi).max() < 1e-9
    assert 0 < fit.lam < 1


@pytest.mark.parametrize("lam", [0.0, 0.4, 1.0])
def test_fixed_lambda_equals_ppi_python(lam: float) -> None:
    people, judge, only = arena(4)
    k = len(BETA)
    fit = ppi_strengths(people, judge, only, k, lam=lam)
    lo, hi = reference(people, judge, only, lam=lam)
    iv = fit.theta_intervals(0.05)
    assert np.abs(iv[:, 0] - lo).max() < 1e-9 and np.abs(iv[:, 1] - hi).max() < 1e-9
    x, xu = design(people, k).x, design(only, k).x
    point = ppi_logistic_pointestimate(x, people.score_a, judge.score_a, xu, only.score_a, lam=lam)
    assert np.abs(point - fit.theta).max() < 1e-9


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_estimate_is_the_exact_minimiser_of_ppi_pythons_loss(seed: int) -> None:
    # ppi-python's L-BFGS-B stops when the loss stalls: on seed 3 at lambda 0.4, 5e-9 from the
    # optimum with a gradient of 9e-10. Newton's steps end at the optimum: gradient ~1e-16 of
    # its rectified_logistic_grad.
    people, judge, only = arena(seed)
    k, lam = len(BETA), 0.4
    x, xu = design(people, k).x, design(only, k).x
    y, f, g = people.score_a, judge.score_a, only.score_a
    theta = ppi_strengths(people, judge, only, k, lam=lam).theta

    def expit(t: np.ndarray) -> np.ndarray:
        return 1 / (1 + np.exp(-t))

    grad = lam / len(g) * xu.T @ (expit(xu @ theta) - g)
    grad += (x.T @ (expit(x @ theta) - y) - lam * x.T @ (expit(x @ theta) - f)) / len(y)
    assert np.abs(grad).max() < 1e-14
    ref = ppi_logistic_pointestimate(x, y, f, xu, g, lam=lam)
    assert np.abs(ref - theta).max() < 1e-8


def test_centred_strengths_people_alone_and_truth() -> None:
    people, judge, only = arena(4, n=3000, big_n=3000)
    k = len(BETA)
    q = contrasts(k)
    assert np.allclose(q.T @ q, np.eye(k - 1)) and np.allclose(q.sum(axis=0), 0)
    fit = ppi_strengths(people, judge, only, k)
    assert abs(fit.estimate.sum()) < 1e-12
    assert np.allclose(fit.estimate, q @ fit.theta) and np.allclose(
        fit.cov, q @ fit.theta_cov @ q.T
    )
    iv = fit.intervals(0.01)
    assert ((iv[:, 0] <= BETA - BETA.mean()) & (BETA - BETA.mean() <= iv[:, 1])).all()
    alone = classical_strengths(people, k)
    assert alone.lam == 0.0
    assert np.allclose(alone.theta, ppi_strengths(people, judge, only, k, lam=0.0).theta)
    # combined never (much) wider than people alone: tuning picks lambda for less variance
    assert np.trace(fit.cov) <= np.trace(alone.cov) * 1.001


def test_ties_are_half_a_win_under_either_rule() -> None:
    # a tie scores (0, 0) as no win or (1/2, 1/2) as half: the same outcome 1/2 for the model
    a, b = np.array([0, 0, 1]), np.array([1, 2, 2])
    none = Battles(a, b, np.array([0.0, 1, 0]), np.array([0.0, 0, 1]))
    half = Battles(a, b, np.array([0.5, 1, 0]), np.array([0.5, 0, 1]))
    assert np.array_equal(design(none, 3).y, design(half, 3).y)
    assert design(none, 3).y[0] == 0.5


def test_a_system_that_wins_everything_has_no_finite_strength() -> None:
    a, b = np.array([0, 0, 1, 1]), np.array([1, 2, 2, 2])
    wins = Battles(a, b, np.ones(4), np.zeros(4))
    with pytest.raises(InputError, match="not finite"):
        classical_strengths(wins, 3)
    with pytest.raises(InputError, match="not finite"):
        ppi_strengths(wins, wins, wins, 3)
    with pytest.raises(InputError, match="lambda"):
        ppi_strengths(wins, wins, wins, 3, lam=1.5)
