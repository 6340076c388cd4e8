"""The experiment report's pairwise agreement: the Agreement page's units, whatever the order."""

from __future__ import annotations

import pytest
from sklearn.metrics import cohen_kappa_score

from core.pipeline.report import _agreement, _shared_units

P = ("x", "y")


def test_a_judge_in_both_orders_is_compared_per_order():
    both = {("q1", P, 0): "A", ("q1", P, 1): "B", ("q2", P, 0): "A", ("q2", P, 1): "A"}
    other = {("q1", P, 0): "A", ("q1", P, 1): "A", ("q2", P, 1): "A"}
    va, vb = _shared_units(both, other)
    assert (va, vb) == (["A", "B", "A"], ["A", "A", "A"])
    # one order each, different orders: compared across orders on one item
    assert _shared_units({("q1", P, 0): "B"}, {("q1", P, 1): "B"}) == (["B"], ["B"])


def test_report_rows_do_not_depend_on_insertion_order():
    a = {("q1", P, 0): "A", ("q1", P, 1): "B", ("q2", P, 1): "Equal", ("q3", P, 0): "B"}
    b = {("q1", P, 1): "B", ("q2", P, 0): "Equal", ("q3", P, 0): "A", ("q3", P, 1): "B"}
    one = _agreement({"auto:a": a, "auto:b": b}, _shared_units)
    two = _agreement(
        {"auto:b": dict(reversed(b.items())), "auto:a": dict(reversed(a.items()))},
        _shared_units,
    )
    assert one == two and one[0]["n"] == 3
    va, vb = ["B", "Equal", "B"], ["B", "Equal", "A"]  # q1 order 1; q2 whole; q3 order 0
    assert one[0]["agreement"] == pytest.approx(2 / 3, abs=1e-4)
    assert one[0]["cohen_kappa"] == pytest.approx(cohen_kappa_score(va, vb), abs=1e-4)
