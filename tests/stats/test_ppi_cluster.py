"""The question bootstrap of the people + judge win probabilities (core/stats/ppi_cluster.py):
with one battle per question it is the ordinary bootstrap, as wide as ppi-python's CLT interval
and its prediction-powered bootstrap (``ppboot``); with several correlated battles per question
the battle-level intervals under-cover and the question bootstrap's cover (a simulation)."""

from __future__ import annotations

import numpy as np
import pytest
from ppi_py import ppboot, ppi_mean_ci
from scipy import stats as sps

from core.errors import InputError
from core.stats.ppi_cluster import Clustered, clustered, replicates
from core.stats.ppi_mean import Battles, classical_win_rates, ppi_win_rates

Z = float(sps.norm.ppf(0.975))


def one_per_question(seed: int, n: int = 400, big_n: int = 1600) -> Clustered:
    """Two systems, every battle its own question: system 0 wins with probability 0.6; the
    judge agrees with people 80% of the time and otherwise says system 0."""
    rng = np.random.default_rng(seed)
    y = (rng.random(n + big_n) < 0.6).astype(float)
    f = np.where(rng.random(n + big_n) < 0.8, y, 1.0)
    zeros, ones = np.zeros(n + big_n, int), np.ones(n + big_n, int)
    lab, unl = slice(0, n), slice(n, None)
    q = rng.permutation(n + big_n)  # question ids in no particular order
    return Clustered(
        Battles(zeros[lab], ones[lab], y[lab], 1 - y[lab]),
        Battles(zeros[lab], ones[lab], f[lab], 1 - f[lab]),
        Battles(zeros[unl], ones[unl], f[unl], 1 - f[unl]),
        q[lab],
        q[unl],
        n + big_n,
    )


def test_one_battle_per_question_matches_ppi_python() -> None:
    data = one_per_question(5)
    fits = {
        "people": classical_win_rates(data.people, 2),
        "combined": ppi_win_rates(data.people, data.judge_paired, data.judge_only, 2),
    }
    lam = fits["combined"].lam
    boot = clustered(fits, replicates(data, 2, lam, 4000, seed=1))
    y, f, g = data.people.score_a, data.judge_paired.score_a, data.judge_only.score_a
    lo, hi = ppi_mean_ci(y, f, g, alpha=0.05, lam=lam)
    clt_sd = (float(np.ravel(hi)[0]) - float(np.ravel(lo)[0])) / (2 * Z)
    assert np.sqrt(boot["combined"].cov[0, 0]) == pytest.approx(clt_sd, rel=0.08)
    people_sd = np.std(y, ddof=0) / np.sqrt(len(y))  # ppi_py's classical CLT (lam = 0)
    assert np.sqrt(boot["people"].cov[0, 0]) == pytest.approx(people_sd, rel=0.08)
    np.random.seed(2)  # ppboot draws from numpy's global generator
    blo, bhi = ppboot(np.mean, y, f, g, lam=lam, n_resamples=2000, alpha=0.05)
    ours = boot["combined"].intervals(0.05)[0]
    assert ours[1] - ours[0] == pytest.approx(float(bhi - blo), rel=0.1)
    # the two systems of a two-system battle move together: estimates sum to 1, as replicates
    assert abs(boot["combined"].cov[0, 1] + boot["combined"].cov[0, 0]) < 1e-12


def test_replicates_do_not_depend_on_the_order_of_battles() -> None:
    data = one_per_question(6, n=50, big_n=200)
    a = replicates(data, 2, 0.5, 50, seed=3)
    order = np.random.default_rng(0).permutation(50)
    shuffled = Clustered(
        *(
            Battles(*(x[order] for x in (b.a, b.b, b.score_a, b.score_b)))
            for b in (data.people, data.judge_paired)
        ),
        data.judge_only,
        data.q_paired[order],
        data.q_only,
        data.n_questions,
    )
    b = replicates(shuffled, 2, 0.5, 50, seed=3)
    for name in a:
        assert np.allclose(a[name], b[name], rtol=0, atol=1e-12)


def test_too_few_questions_or_replicates_is_one_clear_error() -> None:
    data = one_per_question(7, n=50, big_n=200)
    with pytest.raises(InputError, match="at least 2 replicates"):
        replicates(data, 2, 0.5, 1, seed=0)
    thin = Clustered(
        data.people, data.judge_paired, data.judge_only, data.q_paired * 0, data.q_only * 0 + 1, 2
    )
    with pytest.raises(InputError, match="too few questions"):
        replicates(thin, 2, 0.5, 200, seed=0)


# -- coverage with clustered battles ------------------------------------------------------------

STRENGTH = np.array([0.5, 0.0, -0.5])
PAIRS = np.array([(0, 1), (0, 2), (1, 2)] * 4)  # twelve battles per question


def clustered_battles(rng: np.random.Generator, n_questions: int) -> tuple[np.ndarray, ...]:
    """Questions that favour or disfavour system 0 as a whole (a question effect with sd 2.5 on
    its strength), each pair four times; people's outcome (a tie now and then); a judge that
    agrees 70% of the time and otherwise leans to system 2."""
    q = np.repeat(np.arange(n_questions), len(PAIRS))
    a, b = np.tile(PAIRS[:, 0], n_questions), np.tile(PAIRS[:, 1], n_questions)
    u = rng.normal(0, 2.5, n_questions)[q]
    beta_a = STRENGTH[a] + np.where(a == 0, u, 0.0)
    p = 1 / (1 + np.exp(STRENGTH[b] - beta_a))
    draw, tie = rng.random(len(q)), rng.random(len(q)) < 0.1
    y_a = np.where(tie, 0.0, (draw < p).astype(float))
    y_b = np.where(tie, 0.0, 1.0 - y_a)
    lean = rng.random(len(q)) < 0.3
    f_a = np.where(lean, (a == 2).astype(float), y_a)
    f_b = np.where(lean, (b == 2).astype(float), y_b)
    return q, a, b, y_a, y_b, f_a, f_b


def truth() -> np.ndarray:
    rng = np.random.default_rng(123)
    _, a, b, y_a, y_b, _, _ = clustered_battles(rng, 200_000)
    system, score = np.r_[a, b], np.r_[y_a, y_b]
    return np.bincount(system, score, 3) / np.bincount(system, minlength=3)


def test_question_bootstrap_covers_where_battle_intervals_do_not() -> None:
    theta = truth()
    rng = np.random.default_rng(39)
    hits: dict[str, list[np.ndarray]] = {"battles": [], "questions": []}
    runs, n_questions = 400, 120
    for _ in range(runs):
        q, a, b, y_a, y_b, f_a, f_b = clustered_battles(rng, n_questions)
        lab = rng.random(len(q)) < 0.3  # people judge a random 30% of the battles
        people = Battles(a[lab], b[lab], y_a[lab], y_b[lab])
        judge = Battles(a[lab], b[lab], f_a[lab], f_b[lab])
        only = Battles(a[~lab], b[~lab], f_a[~lab], f_b[~lab])
        fit = ppi_win_rates(people, judge, only, 3)
        data = Clustered(people, judge, only, q[lab], q[~lab], n_questions)
        boot = clustered({"combined": fit}, replicates(data, 3, fit.lam, 300, seed=1))
        for name, f in (("battles", fit), ("questions", boot["combined"])):
            iv = f.intervals(0.05)
            hits[name].append((iv[:, 0] <= theta) & (theta <= iv[:, 1]))
    cover = {name: np.mean(h, axis=0) for name, h in hits.items()}
    # system 0 carries the question effect: battle-level intervals miss it far too often
    assert cover["battles"][0] < 0.85
    assert (cover["questions"] >= 0.92).all(), cover
