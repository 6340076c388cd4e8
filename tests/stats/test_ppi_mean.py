"""PPI++ win probabilities (core.stats.ppi_mean) against the authors' library ``ppi_py`` and in a
coverage simulation with a judge whose bias depends on the system."""

from __future__ import annotations

import numpy as np
import pytest
from ppi_py import ppi_mean_ci, ppi_mean_pointestimate

from core.errors import InputError
from core.stats.ppi_mean import (
    Battles,
    classical_win_rates,
    effective_people,
    ppi_win_rates,
    tie_scores,
)
from core.stats.rank_sets import point_ranks, rank_sets


def random_battles(rng: np.random.Generator, n: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    a = rng.integers(0, k, n)
    b = (a + rng.integers(1, k, n)) % k  # never a == b
    return a, b


def scored(a: np.ndarray, b: np.ndarray, outcome: np.ndarray) -> Battles:
    """``outcome`` 1: a won, 2: b won, 0: tie (no win)."""
    return Battles(a, b, (outcome == 1).astype(float), (outcome == 2).astype(float))


def test_two_systems_equal_ppi_py_with_its_tuned_lambda() -> None:
    # Two systems meet in every battle: the estimand is ppi_py's 2-d mean, lambda tuned by both.
    rng = np.random.default_rng(1)
    n, big_n = 80, 700
    human = rng.choice(3, n, p=[0.2, 0.5, 0.3])
    judge = np.where(rng.random(n) < 0.7, human, rng.choice(3, n))
    judge_only = rng.choice(3, big_n, p=[0.25, 0.45, 0.3])
    zeros, ones = np.zeros(n, int), np.ones(n, int)
    ours = ppi_win_rates(
        scored(zeros, ones, human),
        scored(zeros, ones, judge),
        scored(np.zeros(big_n, int), np.ones(big_n, int), judge_only),
        2,
    )
    y = np.column_stack([human == 1, human == 2]).astype(float)
    yhat = np.column_stack([judge == 1, judge == 2]).astype(float)
    yhat_u = np.column_stack([judge_only == 1, judge_only == 2]).astype(float)
    assert 0 < ours.lam < 1
    assert ours.estimate == pytest.approx(ppi_mean_pointestimate(y, yhat, yhat_u), abs=1e-9)
    low, high = ppi_mean_ci(y, yhat, yhat_u, alpha=0.1)
    assert ours.intervals(0.1)[:, 0] == pytest.approx(low, abs=1e-9)
    assert ours.intervals(0.1)[:, 1] == pytest.approx(high, abs=1e-9)


def own(bt: Battles, rows: np.ndarray, m: int) -> np.ndarray:
    """System ``m``'s scores in the battles ``rows`` (all of which it plays)."""
    return np.where(bt.a[rows] == m, bt.score_a[rows], bt.score_b[rows])


@pytest.mark.parametrize("ties", ["none", "half"])
def test_each_system_equals_ppi_py_on_its_own_battles(ties: str) -> None:
    rng = np.random.default_rng(2)
    k, n, big_n = 5, 400, 3000
    a, b = random_battles(rng, n, k)
    au, bu = random_battles(rng, big_n, k)
    verdicts = np.array(["A", "B", "Equal", "None"])
    human = verdicts[rng.choice(4, n, p=[0.4, 0.35, 0.15, 0.1])]
    judge = np.where(rng.random(n) < 0.6, human, verdicts[rng.choice(4, n)])
    judge_u = verdicts[rng.choice(4, big_n)]

    def battles(x: np.ndarray, y: np.ndarray, v: np.ndarray) -> Battles:
        s = np.array([tie_scores(str(t), ties) for t in v])
        return Battles(x, y, s[:, 0], s[:, 1])

    people, paired, alone = battles(a, b, human), battles(a, b, judge), battles(au, bu, judge_u)
    ours = ppi_win_rates(people, paired, alone, k)
    intervals = ours.intervals(0.05)
    for m in range(k):
        mine, mine_u = (a == m) | (b == m), (au == m) | (bu == m)

        args = (own(people, mine, m), own(paired, mine, m), own(alone, mine_u, m))
        assert ours.estimate[m] == pytest.approx(
            ppi_mean_pointestimate(*args, lam=ours.lam)[0], abs=1e-9
        )
        low, high = ppi_mean_ci(*args, alpha=0.05, lam=ours.lam)
        assert intervals[m] == pytest.approx([low[0], high[0]], abs=1e-9)
    people_only = classical_win_rates(people, k)
    assert effective_people(people_only, ours, n) > n  # the judge adds information here


def test_fixed_lambda_zero_is_the_people_alone_and_bad_input_is_refused() -> None:
    rng = np.random.default_rng(3)
    a, b = random_battles(rng, 200, 3)
    au, bu = random_battles(rng, 500, 3)
    h, j = scored(a, b, rng.choice(3, 200)), scored(a, b, rng.choice(3, 200))
    alone = scored(au, bu, rng.choice(3, 500))
    zero = ppi_win_rates(h, j, alone, 3, lam=0.0)
    people = classical_win_rates(h, 3)
    assert zero.estimate == pytest.approx(people.estimate, abs=1e-12)
    assert zero.cov == pytest.approx(people.cov, abs=1e-12)
    with pytest.raises(InputError, match="lambda"):
        ppi_win_rates(h, j, alone, 3, lam=1.5)
    with pytest.raises(InputError, match="judge alone"):
        ppi_win_rates(h, j, alone, 4)  # system 3 never plays
    with pytest.raises(InputError, match="ties"):
        tie_scores("A", "drop")


# ------------------------------------------------------------------------------------------
# Coverage with a biased judge
# ------------------------------------------------------------------------------------------

STRENGTH = np.array([0.6, 0.2, -0.1, -0.7])  # people's Bradley-Terry strengths
TIE = 0.1  # a battle ends in a tie with this probability (a tie is no win)
FAVOURED = 3  # the judge's pet: the weakest system for people
FLATTERY = 0.5  # the share of its losses the judge turns into wins


def truth() -> np.ndarray:
    """theta_m = E[people's score of m | m plays], pairs drawn uniformly: the mean over m's
    opponents of (1 - TIE) P(m beats l)."""
    k = len(STRENGTH)
    p = 1 / (1 + np.exp(STRENGTH[None, :] - STRENGTH[:, None]))
    np.fill_diagonal(p, 0)
    return (1 - TIE) * p.sum(1) / (k - 1)


def simulate(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``n`` battles: ``a``, ``b``, the people's outcome, the judge's outcome (1 a, 2 b, 0 tie)."""
    a, b = random_battles(rng, n, len(STRENGTH))
    p = 1 / (1 + np.exp(STRENGTH[b] - STRENGTH[a]))
    u = rng.random(n)
    human = np.where(u < TIE, 0, np.where(rng.random(n) < p, 1, 2))
    judge = human.copy()
    flip = rng.random(n) < FLATTERY
    judge[flip & (a == FAVOURED) & (human != 1)] = 1
    judge[flip & (b == FAVOURED) & (human != 2)] = 2
    noise = rng.random(n) < 0.15  # and some plain noise
    judge[noise] = rng.choice(3, int(noise.sum()))
    return a, b, np.stack([human, judge])


def test_combined_intervals_cover_the_people_truth_and_judge_alone_does_not() -> None:
    rng = np.random.default_rng(2024)
    theta = truth()
    true_ranks = point_ranks(theta)
    runs, n, big_n, alpha, k = 1000, 300, 3000, 0.05, len(STRENGTH)
    cover = {"combined": np.zeros(k), "judge": np.zeros(k), "people": np.zeros(k)}
    width = {"combined": np.zeros(k), "people": np.zeros(k)}
    rank_cover = 0
    for _ in range(runs):
        a, b, (human, judge) = simulate(rng, n)
        au, bu, (_, judge_u) = simulate(rng, big_n)
        people, paired = scored(a, b, human), scored(a, b, judge)
        alone = scored(au, bu, judge_u)
        fits = {
            "combined": ppi_win_rates(people, paired, alone, k),
            "people": classical_win_rates(people, k),
            "judge": classical_win_rates(
                scored(np.r_[a, au], np.r_[b, bu], np.r_[judge, judge_u]), k
            ),
        }
        for name, fit in fits.items():
            iv = fit.intervals(alpha)
            cover[name] += (iv[:, 0] <= theta) & (theta <= iv[:, 1])
            if name in width:
                width[name] += iv[:, 1] - iv[:, 0]
        sets = rank_sets(fits["combined"].estimate, fits["combined"].cov, alpha)
        rank_cover += all(lo <= r <= hi for (lo, hi), r in zip(sets, true_ranks))
    assert (cover["combined"] / runs >= 0.93).all(), cover["combined"] / runs
    assert (cover["people"] / runs >= 0.93).all()
    assert cover["judge"][FAVOURED] / runs < 0.05  # the judge's bias, made confident
    assert (width["combined"] <= width["people"]).all()  # never wider than people alone
    assert rank_cover / runs >= 0.95
