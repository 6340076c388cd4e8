"""The fitting internals of core.stats.bradley_terry / core.stats.pairwise_counts and the CLI's CSV reader,
against independent references: numpy's quantile, scipy's strong components, scipy/choix fits,
plain-Python counts and a pandas reader."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import choix
import numpy as np
import pandas as pd
import pytest
from scipy.optimize import minimize
from scipy.sparse.csgraph import connected_components

from core.cli.stats_commands import _read_rank_csv
from core.errors import InputError
from core.stats.bradley_terry import (
    bootstrap_bradley_terry,
    fit_bradley_terry_batch,
    percentile_interval,
    question_weights,
    strongly_connected,
)
from core.stats.pairwise_counts import PairwiseCounts
from core.stats.ranking_settings import RankingSettings


def random_records(rng: np.random.Generator, n_sys: int, n_rows: int, n_q: int) -> list:
    i = rng.integers(0, n_sys, n_rows)
    j = (i + rng.integers(1, n_sys, n_rows)) % n_sys
    v = rng.choice(["A", "B", "Equal", "None"], n_rows, p=[0.4, 0.35, 0.15, 0.1])
    return [
        (f"q{q}", f"s{a}", f"s{b}", str(x))
        for q, a, b, x in zip(rng.integers(0, n_q, n_rows), i, j, v)
    ]


def test_percentile_interval_equals_numpy_quantile() -> None:
    rng = np.random.default_rng(0)
    for n in (1, 2, 3, 10, 999, 1000):
        for level in (0.5, 0.9, 0.95, 0.99):
            x = rng.normal(size=(n, 4)) * 3
            ref = np.quantile(x, [(1 - level) / 2, (1 + level) / 2], axis=0)
            assert np.array_equal(np.array(percentile_interval(x, level)), ref)


def test_strongly_connected_matches_scipy() -> None:
    rng = np.random.default_rng(1)
    mats = [
        (rng.random((6, 6)) < p).astype(float) for p in (0.15, 0.3, 0.5, 0.9) for _ in range(40)
    ]
    mats.append(np.ones((6, 6)))  # complete: the shortcut path
    ref = [
        connected_components(m * (1 - np.eye(6)), directed=True, connection="strong")[0] == 1
        for m in mats
    ]
    assert strongly_connected(np.stack(mats)).tolist() == ref
    assert sum(ref) > 20 and not all(ref)


def scipy_fit(W: np.ndarray, alpha: float) -> np.ndarray:
    """Independent MLE/MAP: scipy BFGS on -l(beta) = -sum W_ij log sigma(b_i - b_j) + alpha/2 |b|^2."""

    def f(b):
        d = b[:, None] - b[None, :]
        p = 1 / (1 + np.exp(-d))
        g = W.sum(1) - ((W + W.T) * p).sum(1) - alpha * b
        return -(W * -np.logaddexp(0, -d)).sum() + 0.5 * alpha * b @ b, -g

    res = minimize(f, np.zeros(len(W)), jac=True, method="BFGS", options={"gtol": 1e-10})
    return res.x - res.x.mean()


def test_batch_fit_from_far_starts_matches_scipy_and_choix() -> None:
    """A start far from the optimum forces the objective-based backtracking; the result is still
    the estimate (gradient norm <= 1e-9, same as scipy and choix)."""
    rng = np.random.default_rng(2)
    n = 5
    W = rng.integers(0, 30, size=(6, n, n)).astype(float) + 1.0
    W[:, np.arange(n), np.arange(n)] = 0
    W[5] *= 0.01  # little data: flat likelihood
    alpha = np.array([0, 0, 0, 0.3, 1e-6, 0])
    init = rng.normal(scale=8.0, size=(6, n))
    beta = fit_bradley_terry_batch(W, alpha, init=init)
    for k in range(6):
        p = 1 / (1 + np.exp(-(beta[k][:, None] - beta[k][None, :])))
        grad = W[k].sum(1) - ((W[k] + W[k].T) * p).sum(1) - alpha[k] * beta[k]
        assert np.linalg.norm(grad) <= 1e-9
        assert np.allclose(beta[k], scipy_fit(W[k], alpha[k]), atol=1e-5)
    data = [(i, j) for i in range(n) for j in range(n) for _ in range(int(W[0, i, j]))]
    ref = choix.opt_pairwise(n, data, alpha=0.0, tol=1e-12)
    assert np.allclose(beta[0], ref - ref.mean(), atol=1e-6)


@pytest.mark.parametrize("ties", ["half", "drop"])
def test_question_matrix_and_outcomes_match_plain_python(ties: str) -> None:
    rng = np.random.default_rng(3)
    recs = random_records(rng, 5, 600, 40)
    counts = PairwiseCounts.from_records(recs)
    for rec in recs[:25]:  # retractions, then one re-added
        counts.remove(*rec)
    counts.add(*recs[0])
    live = recs[:1] + recs[25:]
    sidx = {s: k for k, s in enumerate(counts.systems)}
    cell: dict = defaultdict(float)
    decided, tie = np.zeros((5, 5)), np.zeros((5, 5))
    for q, a, b, v in live:
        i, j = sidx[a], sidx[b]
        if v == "A":
            cell[q, i, j] += 1
            decided[i, j] += 1
        elif v == "B":
            cell[q, j, i] += 1
            decided[j, i] += 1
        elif v == "Equal":
            tie[i, j] += 1
            tie[j, i] += 1
            if ties == "half":
                cell[q, i, j] += 0.5
                cell[q, j, i] += 0.5
    m, pairs = counts.question_matrix(ties)
    per_q = defaultdict(dict)
    for (q, i, j), val in cell.items():
        per_q[q][i * 5 + j] = val
    expected = sorted(tuple(sorted(d.items())) for d in per_q.values())
    got = sorted(
        tuple((int(p), float(x)) for p, x in zip(pairs, row) if x) for row in np.asarray(m)
    )
    assert got == expected
    dec, t = counts.outcome_matrices()
    assert np.array_equal(dec, decided) and np.array_equal(t, tie)


def test_question_weights_are_counts_of_uniform_draws() -> None:
    w = question_weights(np.random.default_rng(4), 7, 5)
    draws = np.random.default_rng(4).integers(0, 7, size=(5, 7))
    assert w.tolist() == [[int((row == q).sum()) for q in range(7)] for row in draws]


def test_cli_reader_matches_pandas_on_a_multi_block_file(tmp_path: Path) -> None:
    """~6 MB, so pyarrow reads several blocks with their own dictionaries."""
    rng = np.random.default_rng(5)
    n = 200_000
    df = pd.DataFrame(
        random_records(rng, 12, n, 3000), columns=["question_id", "system_a", "system_b", "verdict"]
    )
    path = tmp_path / "j.csv"
    df.to_csv(path, index=False)
    counts = _read_rank_csv(str(path))
    kept = df[df["verdict"] != "None"]
    first_seen = list(pd.unique(df["question_id"]))
    kept_ids = set(kept["question_id"])  # built once: inside the comprehension it was quadratic
    assert counts.questions == [q for q in first_seen if q in kept_ids]
    assert counts.systems == list(
        pd.unique(
            pd.concat(
                [df["system_a"], df["system_b"].loc[~df["system_b"].isin(set(df["system_a"]))]]
            )
        )
    )
    q, a, b, o, w = counts.arrays()
    names = np.array(counts.systems)
    assert (names[a] == kept["system_a"].to_numpy()).all()
    assert (names[b] == kept["system_b"].to_numpy()).all()
    assert (np.array(counts.questions)[q] == kept["question_id"].to_numpy()).all()
    assert (np.array(["A", "B", "Equal"])[o] == kept["verdict"].to_numpy()).all()
    assert counts.n_none == n - len(kept)
    df.loc[150_000, "system_b"] = None
    df.to_csv(path, index=False)
    with pytest.raises(InputError, match="line 150002") as err:
        _read_rank_csv(str(path))
    assert "system_b" in str(err.value)


def test_one_battle_per_question_bootstraps_sparse_with_the_same_replicates(monkeypatch) -> None:
    """Arena data (one battle per question): the per-question matrix is sparse (the dense product
    with the bootstrap's weights made a live refresh take a second), and the replicates equal
    the dense matrix's exactly."""
    rng = np.random.default_rng(5)
    recs = [
        (f"q{k}", *(f"s{x}" for x in rng.choice(8, 2, replace=False)), v)
        for k, v in enumerate(rng.choice(["A", "B", "Equal"], 3000))
    ]
    counts = PairwiseCounts.from_records(recs)
    m, pairs = counts.question_matrix("half")
    assert hasattr(m, "tocsc")  # sparse
    settings = RankingSettings(n_boot=50, seed=1)
    sparse_run = bootstrap_bradley_terry(counts, settings)
    monkeypatch.setattr(
        PairwiseCounts, "question_matrix", lambda self, ties="half": (m.toarray(), pairs)
    )
    dense_run = bootstrap_bradley_terry(counts, settings)
    assert np.array_equal(sparse_run.beta, dense_run.beta)
