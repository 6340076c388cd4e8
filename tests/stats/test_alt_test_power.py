"""The items-needed simulation (core.stats.alt_test_power): each simulated decision equals the
alt-test rerun on the drawn items, the answer never names a decision the evidence does not
support, and the figures do not depend on the order of the items."""

from __future__ import annotations

import math
import statistics

import numpy as np
import pytest
from test_alt_test import PAIR, YES_NO, noisy_data
from test_alt_test_epsilon import counting_tables

from core.errors import InputError
from core.stats.alt_test import NotEnoughLabels, alt_test, indicator_table
from core.stats.alt_test_look_again import look_again_sizes
from core.stats.alt_test_power import items_needed, simulate_decisions, size_grid


def rerun_decisions(humans, rater, n, n_sim, seed, epsilon=0.2, q=0.05):
    """Draw the same populations and counts as simulate_decisions, rebuild each sample as
    labelled data (copy k of item x becomes item (x, k)) and run the alt-test itself on it."""
    table = indicator_table(humans, rater)
    rng = np.random.default_rng(seed)
    weights = rng.dirichlet(np.ones(len(table.items)), size=n_sim)
    out = []
    for row in rng.multinomial(n, weights):
        sh = {h: {} for h in humans}
        sr = {}
        for i, copies in enumerate(row):
            item = table.items[i]
            for k in range(copies):
                sr[(item, k)] = rater[item]
                for h in humans:
                    if item in humans[h]:
                        sh[h][(item, k)] = humans[h][item]
        try:
            out.append(int(alt_test(sh, sr, epsilon=epsilon, q=q).passed))
        except NotEnoughLabels:
            out.append(-1)
    return np.array(out)


@pytest.mark.parametrize(
    "data, n",
    [
        (noisy_data(11, PAIR, 90, 4, [0.7, 0.8], 0.8, coverage=0.7, both=0.3), 60),
        (noisy_data(12, YES_NO, 80, 5, [0.75], 0.75, coverage=0.6), 50),
        (noisy_data(13, PAIR, 40, 3, [0.8], 0.85), 35),
    ],
)
def test_each_simulated_decision_equals_the_alt_test(data, n):
    humans, rater = data
    table = indicator_table(humans, rater)
    got = simulate_decisions(
        table.wf,
        table.wh,
        table.labelled,
        n,
        epsilon=0.1,
        q=0.05,
        n_sim=40,
        rng=np.random.default_rng(3),
    )
    want = rerun_decisions(humans, rater, n, 40, 3, epsilon=0.1)
    assert got.tolist() == want.tolist()
    assert len(set(want.tolist())) > 1 or n == 35  # the cases are not all one outcome


def test_sizes_go_beyond_the_items_on_hand():
    assert size_grid(40) == [30, 40, 45, 68, 101, 152, 228, 300]
    grid = size_grid(1008)
    assert grid[0] == 30 and 1008 in grid and grid[-1] == 4032 and 3000 < grid[-2] < 4032
    humans, rater = noisy_data(14, PAIR, 120, 4, [0.7], 0.95)
    out = items_needed(humans, rater, n_sim=30, n_draw=10)
    assert list(out["pass_probability"]) == size_grid(120) and max(out["stability"]) == 480


def test_clear_pass_holds_with_no_more_needed():
    humans, rater = noisy_data(14, PAIR, 120, 4, [0.7], 0.95)
    out = items_needed(humans, rater, n_sim=60)
    assert out["current"] == 120 and out["per_item_counts"] == {4: 120}
    assert (out["current_decision"], out["status"], out["recommended"]) == ("pass", "holds", "pass")
    assert out["needed"] <= 120 and out["more"] == 0
    assert all(out["decision"][n] == "pass" for n in out["decision"] if n >= out["needed"])
    assert (
        out["advice"].startswith("the decision holds: from") and "no more needed" in out["advice"]
    )
    assert "60 plausible populations" in out["method"]
    assert items_needed(humans, rater, n_sim=60) == out  # seeded


def test_a_fail_for_lack_of_power_is_not_the_answer():
    """The rater passes on all 1,000 items, a little below the people (epsilon 0.2): with few
    items the t-tests lack power and drawn samples fail. The old simulation called that stable
    fail the answer ("needed: 30 ... 0 more"); at 1,000 items the pass does not hold yet, so
    the answer is a larger size where the pass holds, with how many more to label. (Rater
    accuracy 0.74: at 0.73 the pass, checked two standard errors worse, holds at no size up to
    4,000, and the answer is "cannot tell yet", which names no fail either.)"""
    humans, rater = noisy_data(41, PAIR, 1000, 4, [0.85], 0.74)
    out = items_needed(humans, rater, n_sim=60)
    assert out["current_decision"] == "pass" and out["decision"][30] == "fail"
    assert out["recommended"] == "pass" and out["decision"][out["needed"]] == "pass"
    assert out["needed"] > 1000 and out["more"] == out["needed"] - 1000
    assert all(out["decision"][n] == "pass" for n in out["decision"] if n >= out["needed"])
    assert out["advice"].startswith(f"label {out['more']} more items")


def test_borderline_small_sample_cannot_tell_and_says_why_and_where_to_look_again():
    """45 items on which the rater fails for lack of power: no size holds. The advice names the
    person the decision hangs on (the 2nd of 3 by how many standard errors their margin lies
    below epsilon, computed here from the labels) and how many more items make a decision hold
    at the next look, not "label as many again"."""
    humans, rater = noisy_data(15, YES_NO, 45, 3, [0.75], 0.7)
    out = items_needed(humans, rater, n_sim=60)
    assert out["status"] == "cannot tell" and out["needed"] is None
    assert out["recommended"] is None and out["current_decision"] == "fail"
    assert out["more"] > 0 and 45 + out["more"] in look_again_sizes(45)
    assert out["advice"].startswith("cannot tell yet: the rater fails on the 45 items on hand")
    assert out["advice"].endswith(f"label {out['more']} more items and look again")
    z = {}
    for name, own in humans.items():
        d = []
        for item, label in own.items():
            others = [humans[h][item] for h in humans if h != name and item in humans[h]]
            if others:
                s_h = sum(label == o for o in others) / len(others)
                s_f = sum(rater[item][0] == o for o in others) / len(others)
                d.append((s_h >= s_f) - (s_f >= s_h))
        z[name] = (0.2 - statistics.mean(d)) / (statistics.stdev(d) / math.sqrt(len(d)))
    hinge = sorted(z, key=z.get, reverse=True)[1]
    assert f"hangs on {hinge}, whose margin" in out["advice"]
    assert f"lies {z[hinge]:.1f} standard errors below epsilon 0.2" in out["advice"]


def test_without_the_forecast_every_other_figure_is_the_same():
    """``forecast=False`` (the real-data benchmark) skips only the look-again: the decisions,
    shares and status are those of the full answer; ``more`` is 0 and the advice says so."""
    humans, rater = noisy_data(15, YES_NO, 45, 3, [0.75], 0.7)
    full = items_needed(humans, rater, n_sim=60)
    short = items_needed(humans, rater, n_sim=60, forecast=False)
    assert full["status"] == short["status"] == "cannot tell" and full["more"] > 0
    same = ("pass_probability", "stability", "decision", "current_decision", "needed")
    assert all(full[k] == short[k] for k in same) and short["more"] == 0
    assert short["advice"].endswith("where to look again was not forecast")
    humans, rater = noisy_data(7, YES_NO, 200, 3, [0.95], 0.95)
    a, b = (
        items_needed(humans, rater, n_sim=40),
        items_needed(humans, rater, n_sim=40, forecast=False),
    )
    assert a == b


def line_data():
    """100 yes/no items, 3 people: on 25 the rater alone says no (each person's ``W^h - W^f`` is
    1), on 75 all agree (0): every margin is exactly 0.25."""
    humans = {f"h{j}": {f"q{i}": "yes" for i in range(100)} for j in range(3)}
    rater = {f"q{i}": "no" if i < 25 else "yes" for i in range(100)}
    return humans, rater


def test_a_rater_on_the_line_hears_why_not_a_number():
    """Every person's margin exactly at epsilon on the items on hand: no number of items can
    be foreseen to decide, so the advice says why and asks for no number (more 0)."""
    humans, rater = line_data()
    out = items_needed(humans, rater, epsilon=0.25, n_sim=40)
    assert out["status"] == "cannot tell" and out["more"] == 0
    assert "cannot be foreseen" in out["advice"] and "sits too close to the line" in out["advice"]


@pytest.mark.parametrize("seed", range(6))
def test_never_zero_more_unless_the_current_decision_holds(seed):
    humans, rater = noisy_data(30 + seed, YES_NO, 60 + 20 * seed, 4, [0.8], 0.65 + 0.05 * seed)
    out = items_needed(humans, rater, n_sim=40, target=0.8)
    if out["status"] == "cannot tell":
        assert (out["more"] == 0) == ("cannot be foreseen" in out["advice"])
    elif out["more"] == 0:
        now = out["current"]
        assert out["status"] == "holds" and out["decision"][now] == out["current_decision"]
        assert out["stability"][now] >= 0.8
    else:
        assert out["status"] == "label more"


def test_same_labels_in_any_order_give_identical_figures():
    humans, rater = noisy_data(16, PAIR, 90, 4, [0.7, 0.8], 0.75, coverage=0.8, both=0.2)
    items = list(rater)
    order = np.random.default_rng(0).permutation(len(items))
    shuffled_rater = {items[i]: rater[items[i]] for i in order}
    shuffled_humans = {
        h: {k: labels[k] for k in sorted(labels, reverse=True)}
        for h, labels in reversed(humans.items())
    }
    first = items_needed(humans, rater, n_sim=40)
    assert items_needed(shuffled_humans, shuffled_rater, n_sim=40) == first


def test_bad_input():
    humans, rater = noisy_data(16, PAIR, 40, 3, [0.8], 0.8)
    with pytest.raises(InputError):
        items_needed(humans, rater, target=1.5)
    with pytest.raises(InputError, match="nothing to resample"):
        items_needed(humans, {"nowhere": "first"})
    with pytest.raises(InputError):
        items_needed(humans, rater, n_draw=0)
    with pytest.raises(InputError, match="more items cannot decide, more people can"):
        items_needed({h: humans[h] for h in list(humans)[:2]}, rater)


def test_the_simulation_builds_the_indicator_table_once(monkeypatch):
    """The decision on the items on hand is read from the simulation's own table (was a second
    alt-test from the labels); the figures are those of the labels either way."""
    import core.stats.alt_test_power as power_module

    humans, rater = noisy_data(9, PAIR, 120, 4, [0.8], 0.8)
    expected = items_needed(humans, rater, n_sim=10)
    built = counting_tables(monkeypatch, power_module)
    assert items_needed(humans, rater, n_sim=10) == expected
    assert len(built) == 1


def test_shortcuts_give_the_plain_computations_figures():
    """The simulation's two shortcuts change no figure: margins in halves summed as integers
    (bit for bit the floating-point products), and p-values outside the Benjamini-Yekutieli
    thresholds' band not computed (the same decisions as every p-value computed)."""
    from scipy import stats

    from core.stats.alt_test_power import decisions_from_sums, margin_sums

    rng = np.random.default_rng(4)
    for step in (1, 2, 3):  # one, two or three rater labels per item
        labelled = rng.random((40, 6)) < 0.7
        wf, wh = (rng.integers(0, step + 1, (40, 6)) / step for _ in range(2))
        counts = rng.multinomial(900, np.ones(40) / 40, size=200)
        d = np.where(labelled, wh - wf, 0.0)
        plain = (counts @ d, counts @ d**2, counts @ labelled.astype(float))
        for got, want in zip(margin_sums(counts, wf, wh, labelled), plain, strict=True):
            assert got.dtype == want.dtype and (got.view(np.int64) == want.view(np.int64)).all()
    n = rng.integers(0, 300, (3000, 8)).astype(float)
    d_sum = np.round(np.clip(rng.normal(0.1, 0.2, (3000, 8)), -1, 1) * n * 2) / 2
    d_sq = np.maximum(np.abs(d_sum), np.round(n * rng.uniform(0, 1, (3000, 8))))
    for epsilon, q in ((0.1, 0.05), (0.2, 0.01), (0.0, 0.1)):
        with np.errstate(divide="ignore", invalid="ignore"):  # every p-value, as before
            mean = d_sum / n
            var = np.maximum(d_sq - n * mean**2, 0.0) / (n - 1)
            p = stats.t.cdf((mean - epsilon) / np.sqrt(var / n), df=np.maximum(n - 1, 1))
        p = np.where(n >= 2, np.where(var <= 1e-12, np.where(mean < epsilon, 0.0, 1.0), p), np.nan)
        tested = n >= 30
        m = tested.sum(axis=1)
        ordered = np.sort(np.where(tested & ~np.isnan(p), p, np.inf), axis=1)
        k = np.arange(1, 9)
        harmonic = np.concatenate(([1.0], np.cumsum(1.0 / k)))
        per = np.maximum(m, 1)[:, None]
        below = ordered <= k[None, :] * q / (per * harmonic[per])
        rejected = np.where(below.any(axis=1), 8 - np.argmax(below[:, ::-1], axis=1), 0)
        want = np.where(m >= 3, (rejected / np.maximum(m, 1) >= 0.5).astype(int), -1)
        got = decisions_from_sums(d_sum, d_sq, n, epsilon=epsilon, q=q)
        assert (got == want).all() and {0, 1} <= set(want.tolist())
