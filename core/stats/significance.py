"""Absolute ratings, paired significance tests and rank correlations.

Pure numpy/scipy; randomness is passed in (``seed`` or ``numpy.random.Generator``); every interval
carries its confidence ``level``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np
from scipy import stats as sps

from core.errors import InputError


class Interval(NamedTuple):
    """A point estimate with a two-sided confidence interval at ``level``."""

    estimate: float
    low: float
    high: float
    level: float


def _z(level: float) -> float:
    if not 0 < level < 1:
        raise InputError(f"level must be in (0, 1), not {level}")
    return float(sps.norm.ppf(0.5 + level / 2))


def _kn(k: int, n: int) -> tuple[int, int]:
    if n <= 0 or k < 0 or k > n:
        raise InputError(f"need 0 <= k <= n and n > 0 (got k={k}, n={n})")
    return int(k), int(n)


def bernoulli_ci(k: int, n: int, level: float = 0.95) -> Interval:
    """Normal-approximation (Wald) interval used by the Long-Span QA paper.

    ``p +- z sqrt(p (1 - p) / n)`` with ``p = k / n`` and ``z = Phi^-1((1 + level) / 2)``
    (1.96 at 95%), clipped to [0, 1].
    """
    k, n = _kn(k, n)
    p = k / n
    half = _z(level) * np.sqrt(p * (1 - p) / n)
    return Interval(p, max(0.0, p - half), min(1.0, p + half), level)


def wilson_ci(k: int, n: int, level: float = 0.95) -> Interval:
    """Wilson score interval.

    ``(p + z^2/2n +- z sqrt(p(1-p)/n + z^2/4n^2)) / (1 + z^2/n)``.
    """
    k, n = _kn(k, n)
    p, z = k / n, _z(level)
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return Interval(p, max(0.0, centre - half), min(1.0, centre + half), level)


def _paired(x: Any, y: Any) -> tuple[np.ndarray, np.ndarray]:
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if x.shape != y.shape or x.ndim != 1 or len(x) == 0:
        raise InputError("paired samples must be non-empty 1-D arrays of the same length")
    if np.isnan(x).any() or np.isnan(y).any():
        raise InputError("paired samples contain missing values")
    return x, y


def mcnemar(x: Any, y: Any, exact: bool | None = None) -> dict[str, Any]:
    """McNemar's test for two binary outcomes on the same items.

    Discordant counts ``b = #(x=1, y=0)``, ``c = #(x=0, y=1)``. Exact: two-sided binomial test of
    ``min(b, c)`` under Binomial(b + c, 1/2), ``p = min(1, 2 P(X <= min(b, c)))``; chi-square:
    ``(|b - c| - 1)^2 / (b + c)`` on 1 df (continuity-corrected). ``exact=None`` picks exact when
    ``b + c < 25``.
    """
    x, y = _paired(x, y)
    if not (np.isin(x, (0, 1)).all() and np.isin(y, (0, 1)).all()):
        raise InputError("McNemar needs binary (0/1) outcomes")
    b, c = int(((x == 1) & (y == 0)).sum()), int(((x == 0) & (y == 1)).sum())
    if exact is None:
        exact = b + c < 25
    if b + c == 0:
        stat, p = 0.0, 1.0
    elif exact:
        stat = float(min(b, c))
        p = min(1.0, 2 * float(sps.binom.cdf(min(b, c), b + c, 0.5)))
    else:
        stat = (abs(b - c) - 1) ** 2 / (b + c)
        p = float(sps.chi2.sf(stat, 1))
    return {
        "statistic": stat,
        "pvalue": p,
        "b": b,
        "c": c,
        "n": len(x),
        "method": "exact binomial" if exact else "chi-square with continuity correction",
        "difference": (b - c) / len(x),
    }


def paired_bootstrap(
    x: Any, y: Any, n_boot: int = 10_000, seed: int | np.random.Generator = 0, level: float = 0.95
) -> dict[str, Any]:
    """Paired bootstrap of the mean difference ``mean(x - y)`` over items.

    Resamples items with replacement ``n_boot`` times; percentile interval at ``level``; two-sided
    p-value ``min(1, 2 min(P*(d <= 0), P*(d >= 0)))`` over the replicates.
    """
    x, y = _paired(x, y)
    if n_boot < 1:
        raise InputError(f"n_boot must be positive, not {n_boot}")
    _z(level)
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    d = x - y
    reps = np.empty(n_boot)
    chunk = max(1, 5_000_000 // len(d))
    for s in range(0, n_boot, chunk):
        k = min(chunk, n_boot - s)
        reps[s : s + k] = d[rng.integers(0, len(d), size=(k, len(d)))].mean(axis=1)
    lo, hi = np.quantile(reps, [(1 - level) / 2, (1 + level) / 2])
    p = min(1.0, 2 * min((reps <= 0).mean(), (reps >= 0).mean()))
    return {
        "difference": float(d.mean()),
        "ci_low": float(lo),
        "ci_high": float(hi),
        "level": level,
        "pvalue": float(p),
        "n": len(d),
        "n_boot": n_boot,
    }


def _ranks(v: np.ndarray) -> np.ndarray:
    """Average ranks (1-based), ties sharing the mean of their positions."""
    order = np.argsort(v, kind="mergesort")
    sv = v[order]
    starts = np.r_[0, np.flatnonzero(sv[1:] != sv[:-1]) + 1]
    ends = np.r_[starts[1:], len(v)]
    avg = (starts + ends + 1) / 2.0
    ranks = np.empty(len(v))
    ranks[order] = np.repeat(avg, ends - starts)
    return ranks


def _two(a: Any, b: Any) -> tuple[np.ndarray, np.ndarray]:
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.shape != b.shape or a.ndim != 1 or len(a) < 2:
        raise InputError("need two score lists of the same length (at least 2)")
    return a, b


def spearman(a: Any, b: Any) -> float:
    """Spearman's rho: the Pearson correlation of the average ranks of ``a`` and ``b``."""
    ra, rb = (_ranks(v) for v in _two(a, b))
    ra, rb = ra - ra.mean(), rb - rb.mean()
    den = np.sqrt((ra * ra).sum() * (rb * rb).sum())
    return float((ra * rb).sum() / den) if den > 0 else float("nan")


def kendall_tau(a: Any, b: Any) -> float:
    """Kendall's tau-b: ``(C - D) / sqrt((n0 - n1)(n0 - n2))`` over all pairs.

    ``C``/``D`` concordant/discordant pairs, ``n0 = n(n-1)/2``, ``n1``/``n2`` pairs tied in a/b.
    """
    a, b = _two(a, b)
    iu = np.triu_indices(len(a), 1)
    sa = np.sign(a[:, None] - a[None, :])[iu]
    sb = np.sign(b[:, None] - b[None, :])[iu]
    n0 = len(sa)
    den = np.sqrt((n0 - (sa == 0).sum()) * (n0 - (sb == 0).sum()))
    return float((sa * sb).sum() / den) if den > 0 else float("nan")


def tie_groups(scores: Any, se: Any) -> np.ndarray:
    """Group label per system: sorted by score, a system joins the previous group when its score
    is within one standard error (the larger of the two) of the previous system's score."""
    s = np.asarray(scores, dtype=float)
    e = np.broadcast_to(np.asarray(se, dtype=float), s.shape)
    order = np.argsort(-s, kind="mergesort")
    gaps = -np.diff(s[order]) > np.maximum(e[order][1:], e[order][:-1])
    groups = np.empty(len(s), dtype=int)
    groups[order] = np.r_[0, np.cumsum(gaps)]
    return groups


def _random_ranking(
    scores: np.ndarray, se: np.ndarray | None, rng: np.random.Generator
) -> np.ndarray:
    """A score vector whose order breaks within-SE ties at random (tied groups keep their place)."""
    if se is None:
        return scores
    groups = tie_groups(scores, se)
    return -(groups + rng.random(len(scores)))


def rank_correlation_with_ties(
    scores_a: Sequence[float],
    se_a: Any,
    scores_b: Sequence[float],
    se_b: Any = None,
    repeats: int = 10,
    seed: int | np.random.Generator = 0,
) -> dict[str, float]:
    """Spearman and Kendall correlation of two leaderboards, treating near-equal scores as tied.

    As in the EXAM paper (Sander & Dietz 2021): systems whose scores lie within one standard error
    (see :func:`tie_groups`) are tied; each of ``repeats`` trials breaks the ties at random and the
    correlations are averaged. ``se_b=None`` uses ``scores_b`` as they are.
    """
    a, b = _two(scores_a, scores_b)
    if repeats < 1:
        raise InputError(f"repeats must be positive, not {repeats}")
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    ea = np.broadcast_to(np.asarray(se_a, dtype=float), a.shape)
    eb = None if se_b is None else np.broadcast_to(np.asarray(se_b, dtype=float), b.shape)
    rho, tau = [], []
    for _ in range(repeats):
        ra, rb = _random_ranking(a, ea, rng), _random_ranking(b, eb, rng)
        rho.append(spearman(ra, rb))
        tau.append(kendall_tau(ra, rb))
    return {"spearman": float(np.mean(rho)), "kendall": float(np.mean(tau)), "repeats": repeats}
