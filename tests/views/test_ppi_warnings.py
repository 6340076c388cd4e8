"""The people + judge ranking says when its people's verdicts are too few for its intervals
(:func:`core.views.ppi_warnings.thin_warnings`): few labelled battles, or people's scores on a
system's labelled battles all the same (a variance of zero)."""

from __future__ import annotations

import numpy as np

from core.stats.ppi_mean import Battles
from core.views.ppi_warnings import MIN_RELIABLE_PAIRED, thin_warnings

SYSTEMS = ["sa", "sb", "sc"]


def battles(pairs: list[tuple[int, int]], a_wins: list[float]) -> Battles:
    wins = np.array(a_wins, float)
    return Battles(np.array([p[0] for p in pairs]), np.array([p[1] for p in pairs]), wins, 1 - wins)


def test_two_labelled_battles_a_system_are_flagged_with_the_counts() -> None:
    # the shape of a three-verdict team: each system in two battles
    human = battles([(0, 1), (0, 2), (1, 2)], [1.0, 1.0, 0.0])
    (warning,) = thin_warnings(SYSTEMS, human)
    assert f"sa 2, sb 2, sc 2; fewer than {MIN_RELIABLE_PAIRED} each" in warning
    # sa won both of its battles and sb lost both: their people's variance is zero
    assert "labelled battles of sa, sb are all the same" in warning


def test_a_zero_variance_is_flagged_even_with_many_battles() -> None:
    n = 40
    pairs = [(0, 1)] * n + [(1, 2)] * n
    wins = [1.0] * n + [float(i % 2) for i in range(n)]  # sa wins every battle it is in
    (warning,) = thin_warnings(SYSTEMS, battles(pairs, wins))
    assert "fewer than" not in warning  # every system has 40 or 80 battles
    assert "labelled battles of sa are all the same" in warning


def test_enough_varied_battles_give_no_warning() -> None:
    n = 40
    pairs = [(0, 1)] * n + [(1, 2)] * n + [(0, 2)] * n
    wins = [float(i % 3 != 0) for i in range(3 * n)]
    assert thin_warnings(SYSTEMS, battles(pairs, wins)) == []
