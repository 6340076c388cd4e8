"""The unit of agreement: which verdicts of the compared raters are set side by side.

A pairwise item is a (question, system pair); a rater may have judged it in one presentation order
or in both. The rule, for the raters being compared (two for Cohen's kappa, every rater of one kind
for Fleiss' kappa and Krippendorff's alpha):

- a (question, sorted pair) is **one unit** when none of these raters judged it in both orders:
  each rater's one verdict (whichever order it saw) counts, so raters that saw different orders
  are compared across orders;
- it **splits into one unit per shown order** when any of them judged both orders: each rater
  joins the unit(s) of the order(s) it saw (a rater that saw one order only is compared in that
  order only).

Labels must already be canonical (relative to the sorted pair), so the same verdict has the same
label in either order. A rater that judged the same order twice counts with its latest verdict in
that order (the caller's input holds one verdict per rater, item and order). Absolute items have a
single order and are always one unit. Nothing depends on the order of rows.
"""

from __future__ import annotations

import numpy as np

#: The code of "no verdict" in a codes array.
MISSING = -1


def agreement_units(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The units of agreement of some raters over some items (the rule of this module).

    Parameters
    ----------
    codes : ndarray of int, shape (n_items, n_raters, n_orders)
        ``codes[i, r, o]`` is rater ``r``'s label code (>= 0) on item ``i`` shown in order ``o``,
        or :data:`MISSING`.

    Returns
    -------
    units : ndarray of int, shape (n_units, n_raters)
        Each unit's label code per rater (:data:`MISSING` where the rater has none); units with
        no label at all are left out.
    item : ndarray of int, shape (n_units,)
        The item each unit belongs to.
    order : ndarray of int, shape (n_units,)
        The shown order of a split unit, -1 for a whole item; units are sorted by (item, order).

    An item splits when some rater has labels in two or more orders:
    ``split_i = any_r (#{o : codes[i, r, o] >= 0} >= 2)``. A whole item's label per rater is
    ``max_o codes[i, r, o]`` (at most one order is present).
    """
    codes = np.asarray(codes)
    if codes.ndim != 3:
        raise ValueError(f"codes must be (items, raters, orders), got shape {codes.shape}")
    n_items, n_raters, n_orders = codes.shape
    seen = codes >= 0
    split = (seen.sum(axis=2) >= 2).any(axis=1)
    whole = np.flatnonzero(~split)
    parts = np.flatnonzero(split)
    units = np.concatenate(
        [
            codes[whole].max(axis=2, initial=MISSING),
            codes[parts].transpose(0, 2, 1).reshape(len(parts) * n_orders, n_raters),
        ]
    )
    item = np.concatenate([whole, np.repeat(parts, n_orders)])
    order = np.concatenate([np.full(len(whole), -1), np.tile(np.arange(n_orders), len(parts))])
    keep = (units >= 0).any(axis=1)
    units, item, order = units[keep], item[keep], order[keep]
    sort = np.lexsort((order, item))
    return units[sort], item[sort], order[sort]


def paired_units(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The units two raters share: ``codes`` of shape (n_items, 2, n_orders) as for
    :func:`agreement_units`; returns ``(pairs, item, order)`` with ``pairs`` of shape
    (n_shared, 2), only the units where both raters have a label."""
    codes = np.asarray(codes)
    if codes.ndim != 3 or codes.shape[1] != 2:
        raise ValueError(f"codes must be (items, 2, orders), got shape {codes.shape}")
    units, item, order = agreement_units(codes)
    both = (units >= 0).all(axis=1)
    return units[both], item[both], order[both]


def unit_label_counts(codes: np.ndarray, n_labels: int) -> np.ndarray:
    """Units x labels counts (how many of the raters gave each label to each unit) of the units
    of :func:`agreement_units` with at least two labels: the table Fleiss' kappa and
    Krippendorff's alpha (nominal) are computed from."""
    units, _, _ = agreement_units(codes)
    units = units[(units >= 0).sum(axis=1) >= 2]
    row, col = np.nonzero(units >= 0)
    flat = row * n_labels + units[row, col].astype(np.int64)
    return np.bincount(flat, minlength=len(units) * n_labels).reshape(len(units), n_labels)
