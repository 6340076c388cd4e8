"""Per-person margins of resampled items for the alt-test's simulations
(:mod:`core.stats.alt_test_power`, :mod:`core.stats.alt_test_look_again`): sums of ``d = W^h -
W^f`` over a sample given as counts of each row, their standard errors, and the smallest size
from which a share holds."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from core.stats.alt_test import IndicatorTable


def margin_sums(
    counts: np.ndarray, wf: np.ndarray, wh: np.ndarray, labelled: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per sample and human: the sum of ``d = W^h - W^f`` over the sample's items, of ``d**2``,
    and how many of its items the human labelled."""
    d = np.where(labelled, wh - wf, 0.0)
    quarters = np.stack([2 * d, 4 * d**2, labelled], axis=1).reshape(len(d), -1)
    whole = np.asarray(counts)
    exact = whole.ndim == 2 and np.issubdtype(whole.dtype, np.integer)
    if exact and np.array_equal(quarters, np.round(quarters)):
        # whole counts and margins in halves (one or two labels of the rater per item): one
        # exact integer product, the same sums as floating point gives them (every partial sum
        # is a multiple of 1/4 far below 2**53), without the threads of a BLAS call
        sums = (whole.astype(np.int64) @ quarters.astype(np.int64)).reshape(len(whole), 3, -1)
        return sums[:, 0] / 2, sums[:, 1] / 4, sums[:, 2].astype(float)
    counts = np.asarray(counts, dtype=float)
    return counts @ d, counts @ d**2, counts @ labelled.astype(float)


def errors_from_sums(d_sum: np.ndarray, d_sq: np.ndarray, k: np.ndarray) -> np.ndarray:
    """Standard errors ``sd / sqrt(k)`` of means from sums of ``d`` and ``d**2`` over ``k``
    items, elementwise (0 where ``k < 2``)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = d_sum / k
        var = np.maximum(d_sq - k * mean**2, 0.0) / (k - 1)
        se = np.sqrt(var / k)
    return np.where(k >= 2, se, 0.0)


def worsened(
    d_sum: np.ndarray, d_sq: np.ndarray, count: np.ndarray, se: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The sums of :func:`margin_sums` with every ``d`` raised by ``se`` (a margin that many
    standard errors worse): sum of ``d + se`` and of ``(d + se)**2`` over the same items."""
    return d_sum + count * se, d_sq + 2 * se * d_sum + count * se**2, count


def margin_errors(table: IndicatorTable) -> np.ndarray:
    """Each person's standard error of ``mean(W^h - W^f)`` over the items on hand
    (``sd / sqrt(items)``; 0 with fewer than 2 items)."""
    d = np.where(table.labelled, table.wh - table.wf, 0.0)
    k = table.labelled.sum(axis=0).astype(float)
    return errors_from_sums(d.sum(axis=0), (d**2).sum(axis=0), k)


def held_from(shares: Mapping[int, float], target: float) -> int | None:
    """The smallest size from which every larger size has a share of at least ``target``."""
    held = None
    for n in sorted(shares, reverse=True):
        if shares[n] < target:
            break
        held = n
    return held
