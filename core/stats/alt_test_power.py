"""How many doubly-labelled items would make the alt-test's decision stable? A bootstrap at the
observed agreement levels.

Method: the alt-test's per-item indicators ``W^f_{ij}``, ``W^h_{ij}`` (:func:`indicator_table`)
depend only on the item's own labels, so an item's *label profile* (which humans labelled it and
each left-out human's ``W^f``, ``W^h``) is resampled whole. For each candidate number of items
``n``, ``n_sim`` samples of ``n`` items are drawn with replacement from the observed used items
(each keeps its humans, labels and the rater's labels, hence the observed agreement levels and the
observed share of items each human labels); the alt-test is rerun on each sample (humans with
fewer than ``min_items`` sampled items skipped; fewer than ``min_humans`` tested = no decision).
``pass_probability[n]`` is the share of samples in which the rater passes, ``stability[n]`` the
share reaching the majority decision (pass or fail; "no decision" counts against), and ``needed``
the smallest candidate ``n`` with ``stability >= target`` (None if no candidate reaches it).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Mapping, Sequence
from typing import Any

import numpy as np
from scipy import stats

from core.errors import InputError
from core.stats.alt_test import Labels, indicator_table

METHOD = (
    "bootstrap at the observed agreement levels: for each n, {n_sim} samples of n items drawn "
    "with replacement from the {current} observed items (each with all its human and rater "
    "labels), the alt-test (epsilon {epsilon}, q {q}) rerun on each; needed = smallest n whose "
    "majority decision is reached in at least {target:.0%} of samples (seed {seed})"
)


def _p_values(d_sum: np.ndarray, d_sq: np.ndarray, n: np.ndarray, epsilon: float) -> np.ndarray:
    """One-sided one-sample t-test p-values of ``mean(d) < epsilon`` from sums, elementwise
    (zero variance: 0 if the mean is below epsilon else 1; ``n < 2``: NaN)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = d_sum / n
        var = np.maximum(d_sq - n * mean**2, 0.0) / (n - 1)
        t = (mean - epsilon) / np.sqrt(var / n)
        p = stats.t.cdf(t, df=np.maximum(n - 1, 1))
    flat = var <= 1e-12
    p = np.where(flat, np.where(mean < epsilon, 0.0, 1.0), p)
    return np.where(n >= 2, p, np.nan)


def _by_count(p: np.ndarray, q: float) -> int:
    """How many hypotheses Benjamini-Yekutieli's step-up rejects at level ``q``."""
    m = len(p)
    c_m = float(np.sum(1.0 / np.arange(1, m + 1)))
    ordered = np.sort(p)
    below = np.nonzero(ordered <= np.arange(1, m + 1) * q / (m * c_m))[0]
    return int(below[-1] + 1) if len(below) else 0


def simulate_decisions(
    wf: np.ndarray,
    wh: np.ndarray,
    labelled: np.ndarray,
    n: int,
    *,
    epsilon: float,
    q: float,
    n_sim: int,
    rng: np.random.Generator,
    min_items: int = 30,
    min_humans: int = 3,
) -> np.ndarray:
    """Decisions of ``n_sim`` bootstrap samples of ``n`` items (rows of the indicator arrays):
    1 pass, 0 fail, -1 no decision (too few humans with ``min_items`` sampled items)."""
    idx = rng.integers(0, wf.shape[0], size=(n_sim, n))
    mask = labelled[idx]  # (n_sim, n, humans)
    d = np.where(mask, wh[idx] - wf[idx], 0.0)
    count = mask.sum(axis=1).astype(float)
    p = _p_values(d.sum(axis=1), (d**2).sum(axis=1), count, epsilon)
    tested = count >= min_items
    out = np.full(n_sim, -1, dtype=int)
    for s in range(n_sim):
        m = int(tested[s].sum())
        if m >= min_humans:
            winning = _by_count(p[s, tested[s]], q) / m
            out[s] = int(winning >= 0.5)
    return out


def items_needed(
    humans: Mapping[str, Mapping[Hashable, Labels]],
    rater: Mapping[Hashable, Labels],
    *,
    epsilon: float = 0.2,
    q: float = 0.05,
    target: float = 0.9,
    candidates: Sequence[int] = (30, 50, 75, 100, 150, 200, 300),
    n_sim: int = 200,
    seed: int = 0,
    min_items: int = 30,
    min_humans: int = 3,
) -> dict[str, Any]:
    """Pass probability and decision stability of the alt-test at each candidate number of
    doubly-labelled items (module docstring). Returns ``{"method", "per_item_counts" (number of
    human labels -> items), "pass_probability": {n: p}, "stability": {n: s}, "decision":
    {n: "pass" | "fail" | "none"}, "needed": int | None, "current": int}``."""
    if not 0 < target < 1:
        raise InputError(f"target must be between 0 and 1, got {target}")
    if n_sim < 1 or any(n < 1 for n in candidates):
        raise InputError("n_sim and every candidate must be at least 1")
    table = indicator_table(humans, rater)
    current = len(table.items)
    if current == 0:
        raise InputError("no item has both a rater label and two human labels: nothing to resample")
    rng = np.random.default_rng(seed)
    passing, stability, decision = {}, {}, {}
    needed = None
    for n in sorted(set(candidates)):
        got = simulate_decisions(
            table.wf,
            table.wh,
            table.labelled,
            n,
            epsilon=epsilon,
            q=q,
            n_sim=n_sim,
            rng=rng,
            min_items=min_items,
            min_humans=min_humans,
        )
        share_pass = float(np.mean(got == 1))
        share_fail = float(np.mean(got == 0))
        passing[n] = share_pass
        stability[n] = max(share_pass, share_fail)
        decision[n] = (
            "pass" if share_pass > share_fail else "fail" if share_fail > share_pass else "none"
        )
        if needed is None and stability[n] >= target:
            needed = n
    per_item = Counter(int(c) for c in table.labelled.sum(axis=1))
    return {
        "method": METHOD.format(
            n_sim=n_sim, current=current, epsilon=epsilon, q=q, target=target, seed=seed
        ),
        "per_item_counts": dict(sorted(per_item.items())),
        "pass_probability": passing,
        "stability": stability,
        "decision": decision,
        "needed": needed,
        "current": current,
    }
