"""Agreement by scale (issue 32, item 3) against independent implementations: scikit-learn's
weighted kappa, the ``krippendorff`` package (nominal, ordinal, interval) and Gwet's AC1 on a
published example."""

from __future__ import annotations

import krippendorff
import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from core.errors import InputError
from core.stats.agreement import cohen_kappa
from core.stats.agreement_scales import (
    gwet_ac1,
    kappa_paradox,
    krippendorff_alpha,
    prevalence,
    weighted_kappa,
)

FIVE = ["1", "2", "3", "4", "5"]
NAMED = ["low", "mid", "high", "top"]


def _pair(seed, labels, n=80):
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, len(labels), size=n)
    a = [labels[int(np.clip(t + rng.integers(-1, 2), 0, len(labels) - 1))] for t in truth]
    b = [labels[int(np.clip(t + rng.integers(-2, 2), 0, len(labels) - 1))] for t in truth]
    return a, b


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("labels", [FIVE, NAMED])
@pytest.mark.parametrize("weights", ["quadratic", "linear"])
def test_weighted_kappa_equals_sklearn(seed, labels, weights):
    a, b = _pair(seed, labels)
    want = cohen_kappa_score(a, b, labels=labels, weights=weights)
    assert weighted_kappa(a, b, labels, weights) == pytest.approx(want, abs=1e-12)


def _units(seed, labels, n=40, raters=4):
    rng = np.random.default_rng(seed)
    units = []
    for _ in range(n):
        t = int(rng.integers(0, len(labels)))
        given = [
            labels[int(np.clip(t + rng.integers(-1, 2), 0, len(labels) - 1))]
            for _ in range(raters)
            if rng.random() < 0.8
        ]
        units.append(given)
    return units


def _reliability(units, code, raters=4):
    data = np.full((raters, len(units)), np.nan)
    for j, given in enumerate(units):
        for i, x in enumerate(given):
            data[i, j] = code[x]
    return data


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
def test_krippendorff_alpha_equals_the_package(seed, level):
    for labels, values in (
        (FIVE, [1.0, 2.0, 3.0, 4.0, 5.0]),
        (["0", "1", "10", "100"], [0.0, 1.0, 10.0, 100.0]),  # numbers: the interval uses them
        (NAMED, [1.0, 2.0, 3.0, 4.0]),  # names: ranks
    ):
        units = _units(seed, labels)
        code = dict(zip(labels, values, strict=True))
        want = krippendorff.alpha(
            reliability_data=_reliability(units, code),
            level_of_measurement=level,
            value_domain=values,
        )
        assert krippendorff_alpha(units, labels, level) == pytest.approx(want, abs=1e-10)


# Gwet (2014), Handbook of Inter-Rater Reliability, and his irrCAC package's cont3x3abstractors:
# 100 subjects, two abstractors, 89 agreeing; published AC1 = 0.8493305.
ABSTRACTORS = (
    [("Ectopic", "Ectopic")] * 13
    + [("AIU", "AIU")] * 20
    + [("AIU", "NIU")] * 7
    + [("NIU", "AIU")] * 4
    + [("NIU", "NIU")] * 56
)


def test_gwet_ac1_published_example():
    a, b = (list(x) for x in zip(*ABSTRACTORS, strict=True))
    assert gwet_ac1(a, b, ["Ectopic", "AIU", "NIU"]) == pytest.approx(0.8493305, abs=1e-7)
    # by hand: pi = (.13, .255, .615); p_e = sum pi (1 - pi) / 2 = .269925;
    # AC1 = (.89 - .269925) / (1 - .269925)
    assert gwet_ac1(a, b, ["Ectopic", "AIU", "NIU"]) == pytest.approx(0.620075 / 0.730075)


def test_kappa_paradox_explained():
    # one rater answers 'unknown' on 95 of 100 items, the other on all: agreement 95 %,
    # kappa 0, AC1 near 0.95, and the sentence says why
    a = ["unknown"] * 95 + ["yes"] * 5
    b = ["unknown"] * 100
    labels = ["unknown", "yes"]
    kappa = cohen_kappa(a, b, labels)
    ac1 = gwet_ac1(a, b, labels)
    assert kappa == pytest.approx(0.0, abs=1e-12)
    assert ac1 == pytest.approx((0.95 - 2 * 0.975 * 0.025) / (1 - 2 * 0.975 * 0.025))
    shares = prevalence([*a, *b], labels)
    assert shares == {"unknown": 0.975, "yes": 0.025}
    said = kappa_paradox(0.95, kappa, ac1, shares)
    assert said is not None and "'unknown' makes up 98%" in said and "AC1" in said
    assert kappa_paradox(0.6, 0.1, 0.5, shares) is None


def test_bad_input_is_one_error():
    with pytest.raises(InputError, match="outside the scale"):
        weighted_kappa(["1"], ["7"], FIVE)
    with pytest.raises(InputError, match="level must be"):
        krippendorff_alpha([["1", "2"]], FIVE, "ratio")
