"""Bradley-Terry fitting: batched damped Newton, strong connectivity, question-clustered bootstrap.

See :mod:`core.stats` for the model. All functions are re-exported there.
"""

from __future__ import annotations

import functools
import math
import warnings
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import numpy as np

from core.errors import InputError
from core.stats.pairwise_counts import (
    DEGENERATE_ALPHA,
    ConvergenceError,
    NotIdentifiableError,
    PairwiseCounts,
    _log_expit,
)
from core.stats.ranking_settings import DEFAULT_RANKING, RankingSettings


def strongly_connected(W: np.ndarray) -> np.ndarray:
    """Whether each win matrix in ``W`` (shape (..., n, n)) has a strongly connected graph.

    Edge i -> j when ``W[i, j] > 0``; reachability by repeated Boolean squaring of ``A + I``.
    Matrices with every off-diagonal entry positive (complete graphs) skip the squaring.
    """
    W = np.asarray(W)
    n = W.shape[-1]
    flat = W.reshape(-1, n, n)
    pos = flat > 0
    out = pos.sum(axis=(1, 2)) - pos[:, np.arange(n), np.arange(n)].sum(axis=1) == n * (n - 1)
    rest = np.flatnonzero(~out)
    if rest.size:
        r = (pos[rest] | np.eye(n, dtype=bool)).astype(np.float32)
        for _ in range(max(1, math.ceil(math.log2(max(n, 2))))):
            r = (np.matmul(r, r) > 0).astype(np.float32)
        out[rest] = r.reshape(len(rest), n * n).min(axis=-1) > 0
    result: np.ndarray = out.reshape(W.shape[:-2])
    return result


def _objective(W: np.ndarray, beta: np.ndarray, alpha: np.ndarray) -> np.ndarray:
    d = beta[:, :, None] - beta[:, None, :]
    out: np.ndarray = (W * _log_expit(d)).sum(axis=(1, 2)) - 0.5 * alpha * (beta * beta).sum(axis=1)
    return out


@functools.cache
def _triangles(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Flat indices ``i*n+j`` of the cells above the diagonal (``i < j``) and of their mirrors."""
    i, j = np.triu_indices(n, 1)
    return i * n + j, j * n + i


def _gradient(
    N: np.ndarray, n_sum: np.ndarray, wins: np.ndarray, beta: np.ndarray, alpha: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """``(T, g)``: ``T_ij = tanh((beta_i - beta_j) / 2)`` (so ``p_ij = (1 + T_ij) / 2``) and the
    gradient ``g_i = sum_j W_ij - sum_j N_ij p_ij - alpha beta_i``. ``tanh`` (most of the time
    of a fit) is taken above the diagonal only: ``T`` is antisymmetric, ``T_ji = -T_ij``."""
    k, n = beta.shape
    upper, lower = _triangles(n)
    d = beta[:, upper // n] - beta[:, upper % n]
    d *= 0.5
    np.tanh(d, out=d)
    t = np.zeros((k, n * n))
    t[:, upper] = d
    t[:, lower] = -d
    t = t.reshape(k, n, n)
    g = wins - 0.5 * (n_sum + np.einsum("bij,bij->bi", N, t)) - alpha[:, None] * beta
    return t, g


def _newton_step(
    N: np.ndarray, t: np.ndarray, g: np.ndarray, alpha: np.ndarray, beta: np.ndarray
) -> np.ndarray:
    """Solve ``(diag(C 1) - C + alpha I + 11^T/n) d = g`` with ``C_ij = N_ij (1 - T_ij^2) / 4``
    (``= N_ij p_ij p_ji``); overwrites ``t``."""
    n = t.shape[-1]
    sat = np.flatnonzero(np.abs(t).max(axis=(1, 2)) >= 1.0)  # 1 - T^2 underflowed somewhere
    np.multiply(t, t, out=t)
    np.subtract(1.0, t, out=t)
    if sat.size:  # 1 - T_ij^2 = 1 / cosh^2((beta_i - beta_j) / 2)
        b = beta[sat]
        t[sat] = np.cosh(0.5 * (b[:, :, None] - b[:, None, :])) ** -2.0
    t *= N
    t *= -0.25  # t = -C
    diag = np.arange(n)
    t[:, diag, diag] -= t.sum(axis=2) - alpha[:, None]
    t += 1.0 / n
    return np.linalg.solve(t, g[..., None])[..., 0]


def fit_bradley_terry_batch(
    W: np.ndarray,
    alpha: float | np.ndarray = 0.0,
    tol: float = 1e-9,
    max_iter: int = 200,
    init: np.ndarray | None = None,
) -> np.ndarray:
    """Fit Bradley-Terry to a batch of win matrices ``W`` (shape (B, n, n)) at once.

    Damped Newton on the centred, concave log-likelihood: with ``C_ij = N_ij p_ij p_ji``
    (``N = W + W^T``, ``p_ij = sigma(beta_i - beta_j)``), gradient ``g_i = sum_j W_ij - N_ij p_ij
    - alpha beta_i`` and step ``(diag(C 1) - C + alpha I + 11^T/n) d = g`` (the ``11^T/n`` term
    fixes the sum-to-zero gauge). A full step of at most 1 in every ``beta_i`` that lowers
    ``||g||`` is taken as is (near the optimum, e.g. bootstrap replicates started from the
    full-data fit, this skips the objective); otherwise the step is halved until the objective
    does not decrease. Stops at ``||g||_2 <= tol`` (float64) or a step
    below 1e-12. ``init`` (centred, shape (n,) or (B, n)) is the starting point (default 0; the
    bootstrap starts from the full-data estimate). Returns centred ``beta`` of shape (B, n).
    """
    W = np.asarray(W, dtype=float)
    B, n, _ = W.shape
    alphas = np.broadcast_to(np.asarray(alpha, dtype=float), (B,)).copy()
    N = W + W.transpose(0, 2, 1)
    n_sum, wins = N.sum(axis=2), W.sum(axis=2)
    beta = np.zeros((B, n))
    if init is not None:
        beta += np.asarray(init, dtype=float) - np.mean(init, axis=-1, keepdims=True)
    out = beta.copy()
    idx = np.arange(B)  # the unfinished fits; state arrays follow it
    t, g = _gradient(N, n_sum, wins, beta, alphas)
    gnorm = np.linalg.norm(g, axis=1)
    for _ in range(max_iter):
        done = gnorm <= tol
        if done.any():
            out[idx[done]] = beta[done]
            keep = ~done
            idx, W, N, n_sum, wins, alphas = (
                idx[keep],
                W[keep],
                N[keep],
                n_sum[keep],
                wins[keep],
                alphas[keep],
            )
            beta, t, g, gnorm = beta[keep], t[keep], g[keep], gnorm[keep]
            if idx.size == 0:
                result: np.ndarray = out - out.mean(axis=1, keepdims=True)
                return result
        d = _newton_step(N, t, g, alphas, beta)
        tiny = np.abs(d).max(axis=1) <= 1e-12
        trial = beta + d
        t, g1 = _gradient(N, n_sum, wins, trial, alphas)
        g1norm = np.linalg.norm(g1, axis=1)
        near = (g1norm < gnorm) & (np.abs(d).max(axis=1) <= 1.0)
        back = np.flatnonzero(~(near | tiny))
        if back.size:  # backtrack on the objective
            b0, d0, Wb, al = beta[back], d[back], W[back], alphas[back]
            f0 = _objective(Wb, b0, al)
            s = np.ones(back.size)
            for _ in range(60):
                worse = _objective(Wb, b0 + s[:, None] * d0, al) < f0 - 1e-13 * np.abs(f0)
                if not worse.any():
                    break
                s[worse] *= 0.5
            trial[back] = b0 + s[:, None] * d0
            t[back], g1[back] = _gradient(N[back], n_sum[back], wins[back], trial[back], al)
            g1norm[back] = np.linalg.norm(g1[back], axis=1)
        beta, g, gnorm = trial, g1, g1norm
        if tiny.any():  # at machine precision: finished
            gnorm = np.where(tiny, 0.0, gnorm)
    raise ConvergenceError(
        f"Bradley-Terry fit did not converge in {max_iter} Newton iterations "
        f"({idx.size} of {B} fits)"
    )


def fit_bradley_terry(
    W: np.ndarray, alpha: float = 0.0, tol: float = 1e-9, systems: list[str] | None = None
) -> np.ndarray:
    """Bradley-Terry log-strengths ``beta`` (centred) from one win matrix ``W`` (n x n).

    Maximises ``l(beta) = sum_ij W_ij log sigma(beta_i - beta_j) - alpha/2 ||beta||^2``
    (see :func:`fit_bradley_terry_batch`). Raises :class:`NotIdentifiableError` when the
    comparison graph is not strongly connected and ``alpha == 0``; with ``alpha > 0`` warns and
    returns the regularised (MAP) estimate.
    """
    W = np.asarray(W, dtype=float)
    if W.ndim != 2 or W.shape[0] != W.shape[1] or W.shape[0] < 2:
        raise InputError("need a square win matrix over at least two systems")
    if not strongly_connected(W):
        names = systems or [str(i) for i in range(len(W))]
        why = _why_not_connected(W, names)
        if alpha <= 0:
            raise NotIdentifiableError(
                f"Bradley-Terry MLE does not exist: {why}; "
                "collect more comparisons or pass a prior (alpha > 0, CLI --alpha)"
            )
        warnings.warn(
            f"comparison graph not strongly connected ({why}); returning the MAP "
            f"estimate with prior alpha={alpha}",
            RuntimeWarning,
            stacklevel=2,
        )
    out: np.ndarray = fit_bradley_terry_batch(W[None], alpha, tol)[0]
    return out


def _why_not_connected(W: np.ndarray, names: list[str]) -> str:
    n = len(W)
    wins, losses = (W > 0).sum(axis=1), (W > 0).sum(axis=0)
    for i in range(n):
        if wins[i] == 0:
            return f"{str(names[i])!r} never wins"
        if losses[i] == 0:
            return f"{str(names[i])!r} never loses"
    reach = np.linalg.matrix_power(((W + W.T) > 0) | np.eye(n, dtype=bool), n).astype(bool)
    if not reach[0].all():
        group = [str(names[i]) for i in np.flatnonzero(reach[0])]
        return f"systems {group} are never compared with the others"
    return "some group of systems never loses to the rest"


@dataclass
class BootstrapResult:
    """Bootstrap replicates of ``beta`` and percentile intervals at ``level``."""

    beta: np.ndarray  # (n_boot, n_systems), centred
    ci_low: np.ndarray
    ci_high: np.ndarray
    level: float
    n_degenerate: int  # replicates not strongly connected (fitted with alpha=1e-6)


def question_weights(rng: np.random.Generator, n_questions: int, n_boot: int) -> np.ndarray:
    """Multinomial(Q; 1/Q, ..., 1/Q) question weights, one row per replicate (shape (B, Q)).

    Each replicate draws ``Q`` question indices uniformly; the weights are their counts.
    """
    dtype = np.int32 if n_boot * n_questions < 2**31 else np.int64  # same draws, less memory
    draws = rng.integers(0, n_questions, size=(n_boot, n_questions), dtype=dtype)
    if n_questions >= 1000:  # a count per replicate: no offset pass, no int64 copy of all draws
        out = np.empty((n_boot, n_questions), np.int64)
        for r in range(n_boot):
            out[r] = np.bincount(draws[r], minlength=n_questions)
        return out
    draws += (np.arange(n_boot, dtype=np.int64) * n_questions).astype(draws.dtype)[:, None]
    counts: np.ndarray = np.bincount(draws.ravel(), minlength=n_boot * n_questions)
    return counts.reshape(n_boot, n_questions)


#: The weights of the last bootstrap, reused while its seed, question count and chunks are the
#: same (a live leaderboard refits after each new verdict with the same seed; the draws are
#: then the same, and redrawing them was most of a refresh at 26,919 questions). One entry, at
#: most :data:`CACHED_CELLS` weights; a read-only tuple swapped whole, so threads may share it.
_LAST_WEIGHTS: tuple[tuple[int, int, int, int, bool], tuple[np.ndarray, ...]] | None = None
CACHED_CELLS = 8_000_000


def replicate_weights(
    seed: int, n_questions: int, n_boot: int, chunk: int, exact32: bool
) -> Iterable[np.ndarray]:
    """:func:`question_weights` of ``n_boot`` replicates drawn ``chunk`` at a time from
    ``default_rng(seed)``, as float32 (when ``exact32``) or float arrays; the same draws again
    come from :data:`_LAST_WEIGHTS` when they were the last ones and small enough to keep
    (larger ones are drawn a chunk at a time, as they are used)."""
    global _LAST_WEIGHTS
    key = (seed, n_questions, n_boot, chunk, exact32)
    last = _LAST_WEIGHTS
    if last is not None and last[0] == key:
        return last[1]
    drawn = _drawn(np.random.default_rng(seed), n_questions, n_boot, chunk, exact32)
    if n_boot * n_questions > CACHED_CELLS:
        return drawn
    kept = tuple(drawn)
    _LAST_WEIGHTS = (key, kept)
    return kept


def _drawn(
    rng: np.random.Generator, n_questions: int, n_boot: int, chunk: int, exact32: bool
) -> Iterator[np.ndarray]:
    for start in range(0, n_boot, chunk):
        w = question_weights(rng, n_questions, min(chunk, n_boot - start))
        w = w.astype(np.float32 if exact32 else float)
        w.flags.writeable = False
        yield w


def bootstrap_bradley_terry(
    counts: PairwiseCounts,
    settings: RankingSettings = DEFAULT_RANKING,
    init: np.ndarray | None = None,
) -> BootstrapResult:
    """Question-clustered bootstrap of Bradley-Terry ``beta``: percentile intervals at ``level``
    (``ties``, ``n_boot``, ``seed``, ``level`` and prior precision ``alpha`` from ``settings``).

    Replicate ``b`` draws question weights ``w_b ~ Multinomial(Q, 1/Q)`` and fits
    ``W*_b = sum_q w_bq W_q``; all replicates are fitted at once. The interval is
    ``[quantile((1-level)/2), quantile((1+level)/2)]`` of the replicates. ``W*`` is summed in
    float32 when that is exact (all partial sums are multiples of 1/2 below 2^22).
    """
    ties, n_boot, level, alpha = settings.ties, settings.n_boot, settings.level, settings.alpha
    if n_boot < 1:
        raise InputError(f"n_boot must be positive, not {n_boot}")
    m, pairs = counts.question_matrix(ties)
    n, nq = counts.n_systems, m.shape[0]
    dense = not hasattr(m, "tocsc")
    exact32 = dense and nq * max(float(m.max(initial=0.0)), -float(m.min(initial=0.0))) < 2**22
    if exact32:
        m = m.astype(np.float32)
    chunk = max(1, min(n_boot, 20_000_000 // max(nq, len(pairs) * 4, 1), 4_000_000 // (n * n)))
    out = np.empty((n_boot, n))
    n_degenerate = 0
    weights = replicate_weights(settings.seed, nq, n_boot, chunk, exact32)
    for start, w in zip(range(0, n_boot, chunk), weights):
        k = len(w)
        flat = w @ m if dense else np.asarray((m.T @ w.T).T)
        W: np.ndarray = np.zeros((k, n * n))
        W[:, pairs] = flat
        W = W.reshape(k, n, n)
        ok = strongly_connected(W)
        n_degenerate += int((~ok).sum())
        al = np.where(ok, alpha, max(alpha, DEGENERATE_ALPHA))
        out[start : start + k] = fit_bradley_terry_batch(W, al, init=init)
    if n_degenerate:
        warnings.warn(
            f"{n_degenerate} of {n_boot} bootstrap replicates were not strongly "
            f"connected and were fitted with alpha={max(alpha, DEGENERATE_ALPHA):g}",
            RuntimeWarning,
            stacklevel=2,
        )
    lo, hi = percentile_interval(out, level)
    return BootstrapResult(out, lo, hi, level, n_degenerate)


def percentile_interval(x: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray]:
    """``np.quantile(x, [(1-level)/2, (1+level)/2], axis=0)`` (its default linear method, same
    rounding), without the ``numpy.ma`` import that ``np.quantile`` triggers (~30 ms at start-up)."""
    xs = np.sort(np.asarray(x, dtype=float), axis=0)
    n = xs.shape[0]
    out = []
    for p in ((1 - level) / 2, (1 + level) / 2):
        h = (n - 1) * p
        i = min(int(math.floor(h)), n - 1)
        t = h - i
        a, b = xs[i], xs[min(i + 1, n - 1)]
        diff = b - a
        q = b - diff * (1 - t) if t >= 0.5 else a + diff * t
        out.append(np.where(np.isnan(xs[-1]), np.nan, q))
    return out[0], out[1]


def rank_ub(ci_low: np.ndarray, ci_high: np.ndarray) -> np.ndarray:
    """Chatbot Arena's "Rank (UB)": 1 + number of systems whose lower bound exceeds my upper bound."""
    out: np.ndarray = 1 + (ci_low[None, :] > ci_high[:, None]).sum(axis=1)
    return out
