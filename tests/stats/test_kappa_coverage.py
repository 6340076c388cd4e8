"""Cohen's kappa interval: the Fleiss-Cohen-Everitt standard error against statsmodels, and a
seeded coverage simulation that chose ``KAPPA_CI_MIN_ITEMS``.

Two raters with known kappa: cell probabilities ``P = (1 - kappa) p p^T + kappa diag(p)`` (both
raters have margins ``p``; the population kappa is exactly ``kappa``). Settings: 2 labels even
and skewed (0.8/0.2), 3 labels (0.45/0.4/0.15), 4 labels as side by side (0.4/0.4/0.1/0.1); true
kappa 0 to 0.9. Measured with 1,000 samples per setting (same construction): worst coverage of
the stated 95 % interval 0.84 / 0.79 / 0.83 at 6 / 10 / 15 items and 0.86 / 0.87 / 0.86 at
20 / 25 / 30 (two skewed labels, kappa 0.2-0.4), mean 0.93-0.94; the former percentile bootstrap
(undefined replicates dropped) fell to 0.14-0.35 at 6-15 items and 0.56-0.62 at 25-30. Below 20
items no interval is stated.
"""

from __future__ import annotations

import numpy as np
import pytest
from statsmodels.stats.inter_rater import cohens_kappa

from core.stats.agreement import KAPPA_CI_MIN_ITEMS, cohen_kappa_ci, cohen_kappa_ci_counts
from core.views.agreement_text import kappa_metric, kappa_text
from core.views.gold import kappa_row

SETTINGS = {
    "2 even": [0.5, 0.5],
    "2 skewed": [0.8, 0.2],
    "3 labels": [0.45, 0.4, 0.15],
    "side by side": [0.4, 0.4, 0.1, 0.1],
}
KAPPAS = (0.0, 0.2, 0.4, 0.6, 0.8, 0.9)


def _coverage(p: list[float], kappa: float, n: int, sims: int, rng) -> tuple[float, int]:
    """Share of samples whose stated interval holds ``kappa``, and how many stated one."""
    p = np.asarray(p)
    cells = ((1 - kappa) * np.outer(p, p) + kappa * np.diag(p)).ravel()
    k = len(p)
    hits = stated = 0
    for counts in rng.multinomial(n, cells, size=sims):
        ci = cohen_kappa_ci_counts(counts.reshape(k, k))
        if np.isnan(ci.low):
            continue
        stated += 1
        hits += ci.low - 1e-12 <= kappa <= ci.high + 1e-12
    return hits / max(stated, 1), stated


def test_standard_error_matches_statsmodels():
    """At large n the guard is inactive: the interval is kappa +- 1.96 statsmodels' std_kappa."""
    table = np.array([[40, 10, 2], [6, 30, 4], [2, 4, 16]])
    ref = cohens_kappa(table)
    ci = cohen_kappa_ci_counts(table)
    assert ci.estimate == pytest.approx(ref.kappa, abs=1e-12)
    assert (ci.high - ci.low) / 2 == pytest.approx(1.959964 * ref.std_kappa, rel=1e-5)
    assert ci.level == 0.95


@pytest.mark.parametrize("n", [KAPPA_CI_MIN_ITEMS, 30, 50])
def test_coverage_from_the_minimum_on(n):
    rng = np.random.default_rng(n)
    found = {
        (name, kappa): _coverage(p, kappa, n, 300, rng)
        for name, p in SETTINGS.items()
        for kappa in KAPPAS
    }
    worst = min(c for c, _ in found.values())
    mean = np.mean([c for c, _ in found.values()])
    # 300 samples: Monte Carlo SE about 0.015 at 0.9 coverage
    assert worst >= 0.84, found
    assert mean >= 0.93, found


def test_the_old_bootstrap_was_truncated_and_the_new_interval_is_not():
    """All 6 items agree but one: the bootstrap's replicates cannot go above 1 and drop the
    all-agree ones; now 6 items are too few for an interval, and at 20 the interval is wide."""
    ci = cohen_kappa_ci(list("AABBAB"), list("AABBAA"))
    assert np.isnan(ci.low) and np.isnan(ci.high) and ci.estimate == pytest.approx(2 / 3)
    assert kappa_text(ci.estimate, ci.low, ci.high, 6) == "0.67 (no interval under 20 items)"
    row = kappa_row(dict(enumerate("AABBAB")), dict(enumerate("AABBAA")))
    assert row["interval"] == "" and "too few items for an interval" in row["note"]
    # every one of 20 items agrees: the plug-in SE is 0; the guarded one is not
    perfect = cohen_kappa_ci_counts(np.array([[12, 0], [0, 8]]))
    assert perfect.estimate == 1.0 and perfect.high == 1.0 and perfect.low < 0.85


def test_below_the_minimum_the_pages_say_too_few_items():
    rng = np.random.default_rng(0)
    a = list(rng.choice(["A", "B"], KAPPA_CI_MIN_ITEMS - 1))
    ci = cohen_kappa_ci(a, a[::-1])
    assert np.isnan(ci.low)
    assert kappa_text(ci.estimate, ci.low, ci.high, 3) == "too few items (n = 3)"
    assert "no interval" in kappa_text(ci.estimate, ci.low, ci.high, len(a))


def test_clustered_interval_counts_an_item_once():
    """Every item rated by the same pair three times (one cluster each): the same kappa and the
    same interval as the items once; distinct clusters: exactly cohen_kappa_ci."""
    from core.stats.agreement import cohen_kappa_ci_clustered

    rng = np.random.default_rng(3)
    a = rng.choice(["A", "B", "Equal"], 200, p=[0.45, 0.4, 0.15])
    b = np.where(rng.random(200) < 0.6, a, rng.choice(["A", "B", "Equal"], 200))
    once = cohen_kappa_ci(list(a), list(b))
    assert cohen_kappa_ci_clustered(list(a), list(b), list(range(200))) == once
    thrice = cohen_kappa_ci_clustered(list(a) * 3, list(b) * 3, list(range(200)) * 3)
    assert thrice.estimate == pytest.approx(once.estimate, abs=1e-12)
    assert thrice.low == pytest.approx(once.low, abs=1e-9)
    assert thrice.high == pytest.approx(once.high, abs=1e-9)
    naive = cohen_kappa_ci(list(a) * 3, list(b) * 3)
    assert naive.high - naive.low < 0.6 * (thrice.high - thrice.low)
    few = cohen_kappa_ci_clustered(list(a[:30]) * 2, list(b[:30]) * 2, list(range(10)) * 6)
    assert np.isnan(few.low)  # 10 distinct items: too few for an interval


def test_kappa_metric_says_the_same_as_kappa_text_in_two_short_parts():
    """The metric's value stays short (Streamlit cuts a long one), the rest goes under it."""
    assert kappa_metric(0.41, 0.2, 0.62, 40) == ("0.41", "95% interval [0.20, 0.62]")
    assert kappa_metric(0.67, None, None, 6) == ("0.67", "no interval under 20 items")
    assert kappa_metric(0.9, None, None, 3) == ("too few", "n = 3 items; kappa from 5")
    assert kappa_metric(None, None, None, 30)[0] == "-"
