"""The shortcuts of the Bradley-Terry fit and bootstrap give the plain computation's numbers bit
for bit (benchmarks/ranking.py's speed without changing a result)."""

from __future__ import annotations

import numpy as np
import pytest

from core.stats import bradley_terry as bt


@pytest.mark.parametrize("n", [2, 3, 20, 41])
def test_gradient_takes_tanh_above_the_diagonal_only_and_gives_the_full_matrix(n: int) -> None:
    rng = np.random.default_rng(n)
    beta = rng.normal(0, 2, (50, n))
    beta[:, 1] = beta[:, 0]  # equal strengths: a zero difference
    W = rng.integers(0, 5, (50, n, n)).astype(float)
    N = W + W.transpose(0, 2, 1)
    alpha = rng.uniform(0, 1, 50)
    t, g = bt._gradient(N, N.sum(axis=2), W.sum(axis=2), beta, alpha)
    full = beta[:, :, None] - beta[:, None, :]  # the computation before the shortcut
    full *= 0.5
    np.tanh(full, out=full)
    assert np.array_equal(t, full)
    plain = W.sum(axis=2) - 0.5 * (N.sum(axis=2) + np.einsum("bij,bij->bi", N, full))
    assert np.array_equal(g, plain - alpha[:, None] * beta)


@pytest.mark.parametrize("n_questions", [7, 999, 1000, 2500])
def test_question_weights_are_the_flat_count_of_the_draws(n_questions: int) -> None:
    """One count per replicate (many questions) or one count of all offset draws (few): the
    same weights from the same draws."""
    w = bt.question_weights(np.random.default_rng(3), n_questions, 30)
    draws = np.random.default_rng(3).integers(0, n_questions, (30, n_questions), dtype=np.int32)
    flat = (draws + np.arange(30)[:, None] * n_questions).ravel()
    expected = np.bincount(flat, minlength=30 * n_questions).reshape(30, n_questions)
    assert w.dtype == np.int64 and np.array_equal(w, expected)
    assert (w.sum(axis=1) == n_questions).all()
