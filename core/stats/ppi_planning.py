"""How many more people's verdicts would make the widest rank-set small enough (a simulation, as
the alt-test's items-needed advice is one).

Giving a person ``m`` more of the ``N`` battles the judge judged alone moves them from the
judge-only set to the labelled one. With the weight ``lambda`` held, the two parts of the PPI
covariance (:class:`core.stats.ppi_mean.WinRates`) scale with their sample sizes:

.. math:: \\Sigma(m) = \\frac{n}{n + m} \\Sigma_{\\text{correction}}
   + \\lambda^2 \\frac{N}{N - m} \\Sigma_{\\text{judge}}.

For each candidate ``m`` the simulation draws ``n_sim`` plausible estimates
``theta* ~ N(theta_hat, Sigma(m))``, computes their rank-sets (:func:`core.stats.rank_sets.
rank_sets` with ``Sigma(m)``) and records the size of the widest; the advice is the smallest ``m``
at which at least ``share`` of the draws have a widest rank-set of at most ``target`` ranks.
A plan under the normal approximation, not a promise. Randomness: ``seed``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from core.errors import InputError
from core.stats.ppi_mean import WinRates
from core.stats.rank_sets import rank_sets


def projected_cov(fit: WinRates, n: int, big_n: int, more: int) -> np.ndarray:
    """``Sigma(m)`` of the module docstring for ``more`` = m (``0 <= m < N``)."""
    if fit.rect_cov is None or fit.judge_cov is None:
        raise InputError("a projection needs a PPI estimate (its two covariance parts)")
    if not 0 <= more < big_n:
        raise InputError(f"more must be in [0, {big_n}), not {more}")
    scaled: np.ndarray = fit.rect_cov * n / (n + more) + fit.lam**2 * fit.judge_cov * (
        big_n / (big_n - more)
    )
    return scaled


def widest_rank_set(estimate: np.ndarray, cov: np.ndarray, alpha: float) -> int:
    """The number of ranks in the widest rank-set."""
    return max(hi - lo + 1 for lo, hi in rank_sets(estimate, cov, alpha))


def people_needed(
    fit: WinRates,
    n: int,
    big_n: int,
    alpha: float,
    target: int,
    *,
    share: float = 0.8,
    n_sim: int = 200,
    seed: int = 0,
) -> dict[str, Any]:
    """``{"target", "share", "more": m or None, "curve": {m: share of draws}}`` over the
    candidates ``m = 0`` and ``n * 2^i`` (``i = -2 ...``) below ``N``; ``more`` is None when no
    candidate reaches ``share`` (then the judge-only battles are too few to get there)."""
    k = len(fit.estimate)
    if not 1 <= target <= k:
        raise InputError(f"target must be a number of ranks from 1 to {k}, not {target}")
    rng = np.random.default_rng(seed)
    candidates = [0] + sorted(
        {int(n * 2.0**i) for i in range(-2, 12) if 0 < int(n * 2.0**i) < big_n}
    )
    curve: dict[int, float] = {}
    more = None
    for m in candidates:
        cov = projected_cov(fit, n, big_n, m)
        draws = rng.multivariate_normal(fit.estimate, cov, size=n_sim, method="eigh")
        ok = sum(widest_rank_set(d, cov, alpha) <= target for d in draws)
        curve[m] = ok / n_sim
        if curve[m] >= share:
            more = m
            break
    return {"target": target, "share": share, "more": more, "curve": curve}
