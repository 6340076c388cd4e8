"""How many more people's verdicts (core.stats.ppi_planning): the projection at m = 0 is the
fitted covariance, and the advice holds when the extra verdicts are actually collected."""

from __future__ import annotations

import numpy as np
import pytest
from test_ppi_mean import scored, simulate

from core.errors import InputError
from core.stats.ppi_mean import classical_win_rates, ppi_win_rates
from core.stats.ppi_planning import people_needed, projected_cov, widest_rank_set

K, BIG_N, ALPHA = 4, 6000, 0.05


def fit_at(rng: np.random.Generator, n: int):
    a, b, (human, judge) = simulate(rng, n)
    au, bu, (_, judge_u) = simulate(rng, BIG_N - n)
    return ppi_win_rates(scored(a, b, human), scored(a, b, judge), scored(au, bu, judge_u), K)


def test_projection_starts_at_the_fit_and_shrinks() -> None:
    fit = fit_at(np.random.default_rng(5), 200)
    assert projected_cov(fit, 200, BIG_N - 200, 0) == pytest.approx(fit.cov, abs=1e-15)
    later = projected_cov(fit, 200, BIG_N - 200, 800)
    assert np.trace(later) < np.trace(fit.cov)
    with pytest.raises(InputError, match="PPI estimate"):
        projected_cov(
            classical_win_rates(
                scored(*simulate(np.random.default_rng(1), 50)[:2], np.ones(50, int)), K
            ),
            50,
            10,
            0,
        )
    with pytest.raises(InputError, match="target"):
        people_needed(fit, 200, BIG_N - 200, ALPHA, 9)


def test_advice_holds_when_the_verdicts_are_collected() -> None:
    rng = np.random.default_rng(8)
    n = 150
    fit = fit_at(rng, n)
    advice = people_needed(fit, n, BIG_N - n, ALPHA, target=1, share=0.8, seed=3)
    more = advice["more"]
    assert isinstance(more, int) and more > 0  # 150 battles do not separate all four systems
    assert advice["curve"][0] < 0.8
    runs = 100
    reached = sum(
        widest_rank_set(f.estimate, f.cov, ALPHA) <= 1
        for f in (fit_at(rng, n + more) for _ in range(runs))
    )
    assert reached / runs >= 0.65  # the plan's 0.8, give or take its approximation
