"""Who labelled -> epsilon (the paper's table: experts 0.2, skilled 0.15, crowd 0.1) and the
decision's sensitivity to epsilon: the curve is the alt-test itself at every grid point, reached
through the reference implementation of tests/stats/test_alt_test.py."""

from __future__ import annotations

import pytest
from test_alt_test import PAIR, YES_NO, noisy_data, reference_alt_test

from core.errors import InputError
from core.stats.alt_test import NotEnoughLabels, alt_test, alt_test_over, indicator_table
from core.stats.alt_test_epsilon import (
    DEFAULT_CHOICE,
    EPSILON_BY_ANNOTATORS,
    EPSILON_GRID,
    EPSILON_GUIDANCE,
    Annotators,
    epsilon_choice,
    epsilon_curve,
    for_annotators,
)


def test_the_papers_table_experts_allow_the_most():
    assert dict(EPSILON_BY_ANNOTATORS) == {"experts": 0.2, "skilled": 0.15, "crowd": 0.1}
    assert [for_annotators(a).epsilon for a in ("experts", "skilled", "crowd")] == [0.2, 0.15, 0.1]
    assert DEFAULT_CHOICE.annotators == Annotators.EXPERTS and DEFAULT_CHOICE.epsilon == 0.2
    assert "0.2 for experts, 0.15 for skilled annotators, 0.1 for crowd workers" in EPSILON_GUIDANCE


def test_a_choice_is_a_kind_of_annotator_or_a_number():
    crowd = epsilon_choice("crowd")
    assert (crowd.epsilon, crowd.annotators, crowd.text) == (0.1, Annotators.CROWD, "crowd")
    assert crowd.words == "0.1 (crowd workers)"
    number = epsilon_choice(" 0.12 ")
    assert (number.epsilon, number.annotators, number.text) == (0.12, None, "0.12")
    assert number.words == "0.12 (a chosen number)"
    for bad in ("Experts", "amateurs", "1", "-0.1", "nan", "", "inf"):
        with pytest.raises(InputError, match="experts, skilled, crowd"):
            epsilon_choice(bad)
    with pytest.raises(InputError, match="annotators must be one of"):
        for_annotators("students")


@pytest.mark.parametrize(
    ("seed", "labels", "n_humans", "acc", "rater_acc", "coverage"),
    [
        (5, PAIR, 8, [0.6, 0.8, 0.7, 0.9], 0.78, 0.6),  # BY over eight people, partial coverage
        (3, YES_NO, 3, [0.75], 0.8, 1.0),
        (1, PAIR, 4, [0.7, 0.65, 0.75, 0.7], 0.72, 1.0),
    ],
)
def test_the_curve_is_the_alt_test_at_every_epsilon(
    seed, labels, n_humans, acc, rater_acc, coverage
):
    humans, rater = noisy_data(seed, labels, 150, n_humans, acc, rater_acc, coverage=coverage)
    curve = epsilon_curve(humans, rater, q=0.05)
    assert [p.epsilon for p in curve] == list(EPSILON_GRID)
    assert EPSILON_GRID[0] == 0.0 and EPSILON_GRID[-1] == 0.3 and len(EPSILON_GRID) == 31
    for point in curve:
        got = alt_test(humans, rater, epsilon=point.epsilon, q=0.05)
        winning, advantage, _, _ = reference_alt_test(humans, rater, epsilon=point.epsilon)
        assert (point.winning_rate, point.advantage_prob, point.passed) == (
            got.winning_rate,
            got.advantage_prob,
            got.passed,
        )
        assert point.winning_rate == pytest.approx(winning, abs=1e-12)
        assert point.advantage_prob == pytest.approx(advantage, abs=1e-12)
    rates = [p.winning_rate for p in curve]
    assert rates == sorted(rates)  # non-decreasing in epsilon
    assert len({p.advantage_prob for p in curve}) == 1  # rho does not depend on epsilon
    assert [p.passed for p in curve] == [r >= 0.5 for r in rates]


def test_the_curve_crosses_the_pass_line_on_noisy_data():
    """Somewhere in 0-0.3 the decision flips: the curve shows where."""
    humans, rater = noisy_data(1, PAIR, 150, 4, [0.7, 0.65, 0.75, 0.7], 0.72)
    passed = [p.passed for p in epsilon_curve(humans, rater)]
    assert not passed[0] and passed[-1]


def test_a_chosen_epsilon_off_the_grid_is_one_more_point():
    humans, rater = noisy_data(3, YES_NO, 100, 3, [0.75], 0.8)
    curve = epsilon_curve(humans, rater, grid=[0.2, 0.125, 0.0, 0.2])
    assert [p.epsilon for p in curve] == [0.0, 0.125, 0.2]


def test_too_few_people_is_refused_as_by_the_test():
    humans, rater = noisy_data(3, YES_NO, 20, 3, [0.75], 0.8)
    with pytest.raises(NotEnoughLabels):
        epsilon_curve(humans, rater)


def counting_tables(monkeypatch, *modules):
    """Count the indicator tables built (the per-item work of an alt-test) through ``modules``."""
    import core.stats.alt_test as alt_module

    built = []
    real = alt_module.indicator_table

    def counting(*args, **kwargs):
        built.append(1)
        return real(*args, **kwargs)

    for module in (alt_module, *modules):
        monkeypatch.setattr(module, "indicator_table", counting, raising=False)
    return built


def test_the_curve_builds_the_indicator_table_once(monkeypatch):
    """The per-item indicators do not depend on epsilon: one table for the 31 grid points (was
    one per point, 40 s of the Rater validation page on 1,008 items), the same figures as one
    alt-test per epsilon, p-values and all."""
    import core.stats.alt_test_epsilon as epsilon_module

    humans, rater = noisy_data(5, PAIR, 150, 8, [0.6, 0.8, 0.7, 0.9], 0.78, coverage=0.6)
    expected = [alt_test(humans, rater, epsilon=e, q=0.05) for e in EPSILON_GRID]
    built = counting_tables(monkeypatch, epsilon_module)
    curve = epsilon_curve(humans, rater, q=0.05)
    assert len(built) == 1
    got = [(p.epsilon, p.winning_rate, p.advantage_prob, p.passed) for p in curve]
    assert got == [(r.epsilon, r.winning_rate, r.advantage_prob, r.passed) for r in expected]
    table = indicator_table(humans, rater)
    assert alt_test_over(table, EPSILON_GRID, q=0.05) == expected  # every person's p-value too
