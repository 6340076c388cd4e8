"""The items-needed bootstrap (core.stats.alt_test_power): each simulated decision equals the
alt-test rerun on the resampled items (duplicates renamed), and the summary behaves as stated."""

from __future__ import annotations

import time

import numpy as np
import pytest

from core.errors import InputError
from core.stats.alt_test import NotEnoughLabels, alt_test, indicator_table
from core.stats.alt_test_power import items_needed, simulate_decisions
from tests.stats.test_alt_test import PAIR, YES_NO, noisy_data


def rerun_decisions(humans, rater, n, n_sim, seed, epsilon=0.2, q=0.05):
    """Draw the same indices as simulate_decisions, rebuild each sample as labelled data (copy k
    of item x becomes item (x, k)) and run the alt-test itself on it."""
    table = indicator_table(humans, rater)
    idx = np.random.default_rng(seed).integers(0, len(table.items), size=(n_sim, n))
    out = []
    for row in idx:
        sh = {h: {} for h in humans}
        sr = {}
        for k, i in enumerate(row):
            item = table.items[i]
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


def test_summary_clear_pass_is_stable_early():
    humans, rater = noisy_data(14, PAIR, 120, 4, [0.7], 0.95)
    out = items_needed(humans, rater, n_sim=100, candidates=(30, 60, 120))
    assert out["current"] == 120 and out["per_item_counts"] == {4: 120}
    assert out["decision"][120] == "pass" and out["pass_probability"][120] >= 0.9
    assert out["needed"] is not None and out["needed"] <= 120
    assert "bootstrap" in out["method"] and "100 samples" in out["method"]
    again = items_needed(humans, rater, n_sim=100, candidates=(30, 60, 120))
    assert again == out  # seeded


def test_borderline_needs_more_and_too_few_gives_no_decision():
    humans, rater = noisy_data(15, YES_NO, 100, 3, [0.75], 0.75, coverage=0.7)
    out = items_needed(humans, rater, n_sim=100, candidates=(10, 300), target=0.99)
    # with 10 items no human can reach 30: no decision in any sample, stability 0
    assert out["pass_probability"][10] == 0.0 and out["stability"][10] == 0.0
    assert out["decision"][10] == "none"
    assert out["needed"] in (300, None)


def test_bad_input():
    humans, rater = noisy_data(16, PAIR, 40, 3, [0.8], 0.8)
    with pytest.raises(InputError):
        items_needed(humans, rater, target=1.5)
    with pytest.raises(InputError, match="nothing to resample"):
        items_needed(humans, {"nowhere": "first"})


def test_fast_enough():
    """300 items x 200 samples x 7 candidates well under the ~2 s budget on a shared machine."""
    humans, rater = noisy_data(17, PAIR, 300, 6, [0.7, 0.8], 0.8, coverage=0.5, both=0.2)
    start = time.perf_counter()
    items_needed(humans, rater)
    assert time.perf_counter() - start < 4.0
