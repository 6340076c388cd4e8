"""The items-needed answer checked against ground truth: synthetic people and a rater with known
accuracies label a large population of items (its alt-test decision is known); a small sample of
it is what a team has on hand; items_needed gives its answer on the sample; fresh samples of the
recommended size are then drawn from the population, and the recommended decision must come out
in them at the target rate (docs/statistics.md gives the rates measured this way)."""

from __future__ import annotations

import numpy as np
from test_alt_test import PAIR, YES_NO, noisy_data

from core.stats.alt_test import alt_test, indicator_table
from core.stats.alt_test_power import decisions_from_counts, items_needed

TARGET = 0.9
#: (labels, people, their accuracy, the rater's accuracy, share of items each person labels)
POPULATIONS = {
    "clear pass": (PAIR, 4, [0.7], 0.8, 1.0),
    "near the line": (PAIR, 4, [0.75], 0.6, 1.0),
    "yes/no, partial coverage": (YES_NO, 5, [0.8], 0.7, 0.7),
    "fails": (YES_NO, 4, [0.85], 0.6, 1.0),
}


def check_population(config, on_hand: int, samples: int, fresh: int = 100, seed: int = 0):
    """For ``samples`` samples of ``on_hand`` items: ``(answer, share)``, the answer of
    items_needed and the share of ``fresh`` new samples of the recommended size (from the
    population, without replacement) in which the recommended decision comes out."""
    labels, people, acc, rater_acc, coverage = config
    humans, rater = noisy_data(100 + seed, labels, 3000, people, acc, rater_acc, coverage=coverage)
    table = indicator_table(humans, rater)
    size = len(table.items)
    rng = np.random.default_rng(seed)
    out = []
    for s in range(samples):
        keep = {table.items[i] for i in rng.choice(size, size=on_hand, replace=False)}
        answer = items_needed(
            {h: {k: v for k, v in got.items() if k in keep} for h, got in humans.items()},
            {k: v for k, v in rater.items() if k in keep},
            n_sim=60,
            seed=s,
            target=TARGET,
        )
        if answer["recommended"] is None:
            out.append((answer, None))
            continue
        counts = np.zeros((fresh, size))
        for row in counts:
            row[rng.choice(size, size=min(answer["needed"], size), replace=False)] = 1
        got = decisions_from_counts(counts, table.wf, table.wh, table.labelled, epsilon=0.2, q=0.05)
        out.append((answer, float(np.mean(got == (answer["recommended"] == "pass")))))
    return alt_test(humans, rater).passed, out


def test_the_recommended_decision_comes_out_at_the_target_rate():
    """Pooled over the populations (docs/statistics.md and benchmarks/items_needed_synthetic.py
    give the rates over 320 samples): here 6 samples of 60 items per population. Most samples
    of 60 hear "cannot tell yet" (a pass must hold with margins two standard errors worse);
    5 of the 24 get a recommendation, which must hold."""
    shares, answers = [], 0
    for config in POPULATIONS.values():
        truth, found = check_population(config, on_hand=60, samples=6)
        answers += len(found)
        for answer, share in found:
            if share is None:
                assert answer["status"] == "cannot tell" and answer["more"] == 60
                continue
            shares.append(share)
            assert answer["decision"][answer["needed"]] == answer["recommended"]
            if answer["needed"] >= 1000:  # so many items decide as the population does
                assert (answer["recommended"] == "pass") == truth
    assert len(shares) >= answers / 6, "too few recommendations to check"
    assert np.mean(shares) >= TARGET - 0.05, shares
    assert sum(share < 0.5 for share in shares) <= len(shares) / 10, shares
