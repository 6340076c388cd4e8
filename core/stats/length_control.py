"""Length-controlled Bradley-Terry (Chatbot Arena's style control) and its leaderboard.

``P(a beats b) = sigma(beta_a - beta_b + gamma x)`` with ``x = (len_a - len_b) / (len_a + len_b)``.
Re-exported by :mod:`core.stats`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from core.errors import InputError
from core.stats.bradley_terry import question_weights
from core.stats.leaderboard import Leaderboard, leaderboard
from core.stats.pairwise_counts import (
    _CODE,
    A_WINS,
    B_WINS,
    EQUAL,
    NONE,
    ConvergenceError,
    _expit,
    _log_expit,
    parse_verdict,
)
from core.stats.ranking_settings import DEFAULT_RANKING, RankingSettings


def length_feature(length_a: np.ndarray, length_b: np.ndarray) -> np.ndarray:
    """Chatbot-Arena-style normalised length difference ``x = (len_a - len_b) / (len_a + len_b)``."""
    la, lb = np.asarray(length_a, float), np.asarray(length_b, float)
    tot = la + lb
    return np.where(tot > 0, (la - lb) / np.where(tot > 0, tot, 1.0), 0.0)


def fit_bt_covariate_batch(
    a: np.ndarray,
    b: np.ndarray,
    x: np.ndarray,
    y: np.ndarray,
    weights: np.ndarray,
    n: int,
    alpha: float = 0.0,
    tol: float = 1e-9,
    max_iter: int = 200,
) -> tuple[np.ndarray, np.ndarray]:
    """Bradley-Terry with one covariate, for a batch of row-weight vectors (shape (B, R)).

    ``P(a_r beats b_r) = sigma(beta_a - beta_b + gamma x_r)``; maximises
    ``sum_r w_r [y_r log sigma(eta_r) + (1 - y_r) log sigma(-eta_r)] - alpha/2 ||beta||^2``
    (``y = 1/2`` for a tie counted half) by damped Newton with the sum-to-zero gauge on ``beta``.
    Returns ``(beta (B, n) centred, gamma (B,))``.
    """
    from scipy import sparse

    R = len(a)
    G = sparse.csr_matrix(
        (np.r_[np.ones(R), -np.ones(R)], (np.r_[np.arange(R), np.arange(R)], np.r_[a, b])),
        shape=(R, n),
    )
    Pm = sparse.csr_matrix((np.ones(R), (np.arange(R), a * n + b)), shape=(R, n * n))
    wt = np.atleast_2d(np.asarray(weights, float))
    B = wt.shape[0]
    theta = np.zeros((B, n + 1))
    gauge = np.zeros((n + 1, n + 1))
    gauge[:n, :n] = 1.0 / n
    ridge = np.r_[np.full(n, alpha), 0.0]

    def objective(th: np.ndarray, w: np.ndarray) -> np.ndarray:
        eta = th[:, a] - th[:, b] + th[:, n:] * x
        ll = (w * (y * _log_expit(eta) + (1 - y) * _log_expit(-eta))).sum(axis=1)
        out: np.ndarray = ll - 0.5 * (ridge * th * th).sum(axis=1)
        return out

    active = np.arange(B)
    for _ in range(max_iter):
        th, w = theta[active], wt[active]
        eta = th[:, a] - th[:, b] + th[:, n:] * x
        sig = _expit(eta)
        r, s = w * (y - sig), w * sig * (1 - sig)
        g = np.concatenate([np.asarray((G.T @ r.T).T), (r @ x)[:, None]], axis=1) - ridge * th
        C = np.asarray((Pm.T @ s.T).T).reshape(-1, n, n)
        C = C + C.transpose(0, 2, 1)
        H = np.zeros((len(active), n + 1, n + 1)) + gauge
        H[:, :n, :n] -= C
        H[:, np.arange(n), np.arange(n)] += C.sum(axis=2)
        hbg = np.asarray((G.T @ (s * x).T).T)
        H[:, :n, n], H[:, n, :n] = hbg, hbg
        H[:, n, n] = s @ (x * x)
        H += np.diag(ridge)
        d = np.linalg.solve(H, g[..., None])[..., 0]
        small = (np.linalg.norm(g, axis=1) <= tol) | (np.abs(d).max(axis=1) <= 1e-12)
        f0 = objective(th, w)
        t = np.ones(len(active))
        for _ in range(60):
            worse = (objective(th + t[:, None] * d, w) < f0 - 1e-13 * np.abs(f0)) & ~small
            if not worse.any():
                break
            t[worse] *= 0.5
        theta[active] = th + t[:, None] * d
        active = active[~small]
        if active.size == 0:
            beta = theta[:, :n] - theta[:, :n].mean(axis=1, keepdims=True)
            return beta, theta[:, n]
    raise ConvergenceError(f"length-controlled fit did not converge in {max_iter} iterations")


def leaderboard_length_controlled(
    records: Any, settings: RankingSettings = DEFAULT_RANKING
) -> Leaderboard:
    """Leaderboard with length-adjusted strengths beside the plain ones (Arena's style control).

    ``records``: a DataFrame (or tuples) with ``question_id, system_a, system_b, verdict,
    length_a, length_b``. Fits ``P(a beats b) = sigma(beta_a - beta_b + gamma x)`` with ``x`` from
    :func:`length_feature`; adds columns ``beta_lc, ci_low_lc, ci_high_lc, rank_lc`` and the
    length coefficient ``gamma`` with its interval (same bootstrap, level ``level``; ``ties``,
    ``n_boot``, ``seed``, ``level`` and ``alpha`` from ``settings``).
    """
    ties, n_boot, level, alpha = settings.ties, settings.n_boot, settings.level, settings.alpha
    import pandas as pd

    cols = ["question_id", "system_a", "system_b", "verdict", "length_a", "length_b"]
    df = records if hasattr(records, "columns") else pd.DataFrame(list(records), columns=cols)
    missing = [c for c in cols if c not in df.columns]
    if missing:
        raise InputError(f"length control needs column(s): {', '.join(missing)}")
    lengths = df[["length_a", "length_b"]].apply(pd.to_numeric, errors="coerce").to_numpy(float)
    bad = np.flatnonzero(~np.isfinite(lengths).all(axis=1) | (lengths < 0).any(axis=1))
    if bad.size:
        raise InputError("length_a/length_b must be non-negative numbers", line=int(bad[0]) + 2)
    board = leaderboard(df[cols[:4]], settings)
    verdicts = np.array([_CODE[parse_verdict(v)] for v in df["verdict"]])
    keep = (verdicts != NONE) & ((verdicts != EQUAL) | (ties == "half"))
    sidx = {s: i for i, s in enumerate(board.systems)}
    a = np.array([sidx[s] for s in df["system_a"][keep]], np.int64)
    b = np.array([sidx[s] for s in df["system_b"][keep]], np.int64)
    y = np.select([verdicts[keep] == A_WINS, verdicts[keep] == B_WINS], [1.0, 0.0], 0.5)
    x = length_feature(lengths[keep, 0], lengths[keep, 1])
    if np.all(x == x[0]):
        raise InputError("length control needs answers of different lengths")
    n = len(board.systems)
    beta, gamma = fit_bt_covariate_batch(a, b, x, y, np.ones((1, len(a))), n, alpha)
    lo_b = hi_b = np.full(n, np.nan)
    g_ci: list[float | None] = [None, None]
    if n_boot:
        qcodes, qs = pd.factorize(df["question_id"][keep])
        rng = np.random.default_rng(settings.seed)
        chunk = max(1, 5_000_000 // max(len(a), 1))
        boots, gboots = [], []
        for start in range(0, n_boot, chunk):
            k = min(chunk, n_boot - start)
            w = question_weights(rng, len(qs), k)[:, qcodes].astype(float)
            bb, gg = fit_bt_covariate_batch(a, b, x, y, w, n, max(alpha, 0.0))
            boots.append(bb)
            gboots.append(gg)
        bb, gg = np.concatenate(boots), np.concatenate(gboots)
        q = [(1 - level) / 2, (1 + level) / 2]
        lo_b, hi_b = np.quantile(bb, q, axis=0)
        g_ci = [float(v) for v in np.quantile(gg, q)]
    board.extra_columns = {
        "beta_lc": beta[0],
        "ci_low_lc": lo_b,
        "ci_high_lc": hi_b,
        "rank_lc": 1 + (beta[0][None, :] > beta[0][:, None] + 1e-12).sum(1),
    }
    board.extra = {
        "length_coefficient": float(gamma[0]),
        "length_coefficient_ci": g_ci,
        "length_feature": "(length_a - length_b) / (length_a + length_b)",
    }
    return board
