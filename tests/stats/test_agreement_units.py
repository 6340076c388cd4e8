"""The unit of agreement: whole items, items split by shown order, never row order."""

from __future__ import annotations

import numpy as np
import pytest

from core.stats.agreement_units import MISSING, agreement_units, paired_units, unit_label_counts

M = MISSING


def test_whole_item_compares_across_orders():
    # Two raters, one item: rater 0 saw order 0 (label 1), rater 1 saw order 1 (label 1).
    codes = np.array([[[1, M], [M, 1]]])
    pairs, item, order = paired_units(codes)
    assert pairs.tolist() == [[1, 1]] and item.tolist() == [0] and order.tolist() == [-1]


def test_item_splits_when_either_rater_saw_both_orders():
    # Rater 0 saw both orders (0 then 2); rater 1 saw order 1 only: one shared unit, order 1.
    codes = np.array([[[0, 2], [M, 2]]])
    pairs, item, order = paired_units(codes)
    assert pairs.tolist() == [[2, 2]] and order.tolist() == [1]
    # Both saw both orders: two units.
    pairs, _, order = paired_units(np.array([[[0, 2], [0, 1]]]))
    assert pairs.tolist() == [[0, 0], [2, 1]] and order.tolist() == [0, 1]


def test_split_is_decided_for_the_raters_compared_only():
    # Three raters; rater 2 saw both orders. Raters 0 and 1 (one order each, different ones)
    # share one whole unit; with rater 2 among the compared raters the item splits.
    codes = np.array([[[1, M], [M, 0], [1, 0]]])
    assert paired_units(codes[:, [0, 1], :])[0].tolist() == [[1, 0]]
    units, _, order = agreement_units(codes)
    assert units.tolist() == [[1, M, 1], [M, 0, 0]] and order.tolist() == [0, 1]
    counts = unit_label_counts(codes, 2)
    assert counts.tolist() == [[0, 2], [2, 0]]


def test_units_do_not_depend_on_item_or_rater_positions():
    rng = np.random.default_rng(3)
    codes = rng.integers(-1, 3, size=(200, 4, 2))
    units, item, order = agreement_units(codes)
    perm = rng.permutation(200)
    u2, i2, o2 = agreement_units(codes[perm])
    # the same units, each found at its permuted item index
    key1 = sorted(zip(item.tolist(), order.tolist(), map(tuple, units.tolist())))
    key2 = sorted(zip(perm[i2].tolist(), o2.tolist(), map(tuple, u2.tolist())))
    assert key1 == key2
    swapped = agreement_units(codes[:, ::-1, :])[0]
    assert swapped.tolist() == units[:, ::-1].tolist()


def test_matches_a_plain_python_reading_of_the_rule():
    rng = np.random.default_rng(7)
    codes = rng.integers(-1, 3, size=(300, 3, 2))
    expect = []
    for i in range(300):
        split = any(sum(codes[i, r, o] >= 0 for o in range(2)) >= 2 for r in range(3))
        if split:
            for o in range(2):
                row = [int(codes[i, r, o]) for r in range(3)]
                if any(x >= 0 for x in row):
                    expect.append((i, o, row))
        else:
            row = [max(int(codes[i, r, 0]), int(codes[i, r, 1])) for r in range(3)]
            if any(x >= 0 for x in row):
                expect.append((i, -1, row))
    units, item, order = agreement_units(codes)
    got = list(zip(item.tolist(), order.tolist(), units.tolist()))
    assert got == expect


def test_bad_shape():
    with pytest.raises(ValueError):
        agreement_units(np.zeros((3, 2)))
    with pytest.raises(ValueError):
        paired_units(np.zeros((3, 3, 2)))
