"""The alt-test (core.stats.alt_test) against an independent implementation written here from the
paper's definitions (Calderon, Reichart & Dror, ACL 2025, sections 3-4), in plain loops.

Reference rules, restated: items with >= 2 human labels and a rater label; per human j left out,
S(x) = share of the other humans' labels equal to x; W^f = 1[S(f) >= S(h_j)], W^h = 1[S(h_j) >=
S(f)] (averaged over the rater's labels when it has several); d = W^h - W^f; one-sided one-sample
t-test of mean(d) < epsilon (all d equal: p = 0 if d < epsilon else 1); Benjamini-Yekutieli
step-up by hand; winning rate = share rejected, passes at >= 0.5; advantage probability = mean of
the rho^f_j. Humans with < 30 items are skipped; fewer than 3 tested -> refusal.
"""

from __future__ import annotations

import random

import pytest
from scipy import stats

from core.errors import InputError
from core.stats.alt_test import NotEnoughLabels, alt_test

PAIR = ("first", "second", "Equal", "None")
YES_NO = ("yes", "no")


# ---------------------------------------------------------------- the independent implementation
def reference_alt_test(humans, rater, epsilon=0.2, q=0.05, min_items=30, min_humans=3):
    """Return (winning_rate, advantage_prob, {name: (items, rho_f, p, rejected)}, skipped) or
    raise ValueError('refused')."""
    rater = {i: ([v] if isinstance(v, str) else list(v)) for i, v in rater.items()}
    used = []
    for item in rater:
        count = 0
        for name in humans:
            if item in humans[name]:
                count += 1
        if count >= 2 and len(rater[item]) > 0:
            used.append(item)
    tested, skipped = [], []
    for name in sorted(humans):
        n = 0
        for item in used:
            if item in humans[name]:
                n += 1
        if n >= min_items:
            tested.append(name)
        else:
            skipped.append(name)
    if len(tested) < min_humans:
        raise ValueError("refused")
    per = {}
    for j in tested:
        wf_all, d_all = [], []
        for item in used:
            if item not in humans[j]:
                continue
            hj = humans[j][item]
            others = [humans[k][item] for k in humans if k != j and item in humans[k]]
            s_h = 0.0
            for o in others:
                if o == hj:
                    s_h += 1
            s_h /= len(others)
            wf, wh = 0.0, 0.0
            for label in rater[item]:
                s_f = 0.0
                for o in others:
                    if o == label:
                        s_f += 1
                s_f /= len(others)
                wf += 1.0 if s_f >= s_h else 0.0
                wh += 1.0 if s_h >= s_f else 0.0
            wf /= len(rater[item])
            wh /= len(rater[item])
            wf_all.append(wf)
            d_all.append(wh - wf)
        if all(d == d_all[0] for d in d_all):
            p = 0.0 if d_all[0] < epsilon else 1.0
        else:
            p = float(stats.ttest_1samp(d_all, epsilon, alternative="less").pvalue)
        per[j] = [len(wf_all), sum(wf_all) / len(wf_all), p, False]
    # Benjamini-Yekutieli step-up: largest k with p_(k) <= k q / (m c(m)); reject the k smallest
    m = len(tested)
    c_m = 0.0
    for i in range(1, m + 1):
        c_m += 1.0 / i
    order = sorted(tested, key=lambda name: per[name][2])
    k_max = 0
    for k in range(1, m + 1):
        if per[order[k - 1]][2] <= k * q / (m * c_m):
            k_max = k
    for name in order[:k_max]:
        per[name][3] = True
    winning = sum(1 for name in tested if per[name][3]) / m
    advantage = sum(per[name][1] for name in tested) / m
    return winning, advantage, per, skipped


# ---------------------------------------------------------------- data with known structure
def noisy_data(
    seed, labels, n_items, n_humans, human_acc, rater_acc, coverage=1.0, both=0.0, nearby=False
):
    """Humans and a rater that copy a hidden true label with the given accuracies (else a random
    other label, or with ``nearby`` (ordered labels) a random neighbour of it); each human labels
    an item with probability ``coverage``; the rater gives a second label on a share ``both`` of
    items."""
    rng = random.Random(seed)
    truth = {f"q{i}": rng.choice(labels) for i in range(n_items)}

    def draw(item, acc):
        if rng.random() < acc:
            return truth[item]
        at = labels.index(truth[item])
        near = [i for i in (at - 1, at + 1) if 0 <= i < len(labels)]
        return rng.choice([labels[i] for i in near] if nearby else labels[:at] + labels[at + 1 :])

    humans = {f"h{j}": {} for j in range(n_humans)}
    for item in truth:
        for j in range(n_humans):
            if rng.random() < coverage:
                humans[f"h{j}"][item] = draw(item, human_acc[j % len(human_acc)])
    rater = {}
    for item in truth:
        rater[item] = [draw(item, rater_acc)]
        if rng.random() < both:
            rater[item].append(draw(item, rater_acc))
    return humans, rater


def check_equal(humans, rater, **kw):
    """The module equals the reference to 1e-9 (rates, every p-value) and on every decision."""
    got = alt_test(humans, rater, **kw)
    winning, advantage, per, skipped = reference_alt_test(humans, rater, **kw)
    assert got.winning_rate == pytest.approx(winning, abs=1e-9)
    assert got.advantage_prob == pytest.approx(advantage, abs=1e-9)
    assert [h.name for h in got.humans] == sorted(per)
    for h in got.humans:
        items, rho_f, p, rejected = per[h.name]
        assert (h.items, h.rejected) == (items, rejected)
        assert h.advantage == pytest.approx(rho_f, abs=1e-9)
        assert h.p_value == pytest.approx(p, abs=1e-9)
    assert [s[0] for s in got.skipped] == skipped
    assert got.passed == (winning >= 0.5)
    return got


# ---------------------------------------------------------------- cases
def test_known_answers_perfect_and_always_wrong():
    """Humans who always agree: a rater that matches them wins every comparison (d = 0 < eps:
    p = 0, all rejected); one that always differs loses every one (d = 1: p = 1)."""
    items = [f"q{i}" for i in range(40)]
    humans = {h: {i: "first" for i in items} for h in ("a", "b", "c")}
    good = alt_test(humans, {i: "first" for i in items})
    assert (good.winning_rate, good.advantage_prob, good.passed) == (1.0, 1.0, True)
    assert all(h.p_value == 0.0 and h.human_advantage == 1.0 for h in good.humans)
    bad = alt_test(humans, {i: "second" for i in items})
    assert (bad.winning_rate, bad.advantage_prob, bad.passed) == (0.0, 0.0, False)
    assert all(h.p_value == 1.0 for h in bad.humans)
    check_equal(humans, {i: "first" for i in items})
    check_equal(humans, {i: "second" for i in items})


def test_pairwise_passes():
    """A rater closer to the truth than noisy humans passes (pairwise labels)."""
    humans, rater = noisy_data(1, PAIR, 120, 4, [0.7, 0.65, 0.75, 0.7], 0.9, both=0.3)
    got = check_equal(humans, rater)
    assert got.passed and got.winning_rate >= 0.5 and got.items == 120


def test_pairwise_fails():
    """A rater that guesses fails against humans who mostly agree."""
    humans, rater = noisy_data(2, PAIR, 120, 4, [0.85], 0.3)
    got = check_equal(humans, rater)
    assert not got.passed and got.winning_rate < 0.5


def test_yes_no_both_ways():
    """Absolute yes / no labels: a good rater passes, a poor one fails; equal to the reference."""
    humans, rater = noisy_data(3, YES_NO, 150, 3, [0.75], 0.92)
    assert check_equal(humans, rater).passed
    humans, rater = noisy_data(4, YES_NO, 150, 3, [0.9], 0.55)
    assert not check_equal(humans, rater).passed


def test_by_with_several_humans_and_partial_coverage():
    """Eight humans, each on a random 60 % of items, p-values spread around the BY threshold;
    several epsilons and q's so that some but not all are rejected somewhere."""
    humans, rater = noisy_data(5, PAIR, 200, 8, [0.6, 0.8, 0.7, 0.9], 0.78, coverage=0.6)
    mixed = False
    for eps in (0.05, 0.1, 0.2):
        for q in (0.01, 0.05, 0.2):
            got = check_equal(humans, rater, epsilon=eps, q=q)
            mixed |= 0 < got.winning_rate < 1
    assert mixed


def test_human_skipped_for_too_few_items():
    """A human on 20 used items is listed in skipped; their labels still count for the others."""
    humans, rater = noisy_data(6, PAIR, 80, 4, [0.8], 0.85)
    humans["h3"] = dict(list(humans["h3"].items())[:20])
    got = check_equal(humans, rater)
    assert [h.name for h in got.humans] == ["h0", "h1", "h2"]
    assert got.skipped[0][0] == "h3" and "20 items" in got.skipped[0][1]


def test_refusal_says_how_many_more():
    """Two humans with enough items, a third with 25: refused, with the numbers needed."""
    humans, rater = noisy_data(7, YES_NO, 60, 3, [0.8], 0.8)
    humans["h2"] = dict(list(humans["h2"].items())[:25])
    with pytest.raises(ValueError):
        reference_alt_test(humans, rater)
    with pytest.raises(NotEnoughLabels) as caught:
        alt_test(humans, rater)
    assert caught.value.humans_needed == 1
    assert caught.value.items_needed == {"h2": 5}
    assert "1 more" in str(caught.value) and "h2 needs 5 more items" in str(caught.value)
    with pytest.raises(NotEnoughLabels) as caught:
        alt_test({"a": humans["h0"], "b": humans["h1"]}, rater)
    said = str(caught.value)  # singular and plural right for every count
    assert caught.value.humans_needed == 1 and "2 have that, so 1 more is needed" in said
    assert "1 more person labelling 30 such items" in said and "more people" not in said
    full, other = list(humans["h0"].items()), list(humans["h1"].items())
    with pytest.raises(NotEnoughLabels) as caught:  # a: 58 used items, b and c: 29 each
        alt_test({"a": dict(full), "b": dict(other[:29]), "c": dict(other[31:])}, rater)
    said = str(caught.value)
    assert "1 has that, so 2 more are needed" in said
    assert "b needs 1 more item, c needs 1 more item" in said


def test_items_need_two_humans_and_the_rater():
    """Items without the rater, or with one human only, are not used."""
    humans, rater = noisy_data(8, PAIR, 60, 3, [0.8], 0.8)
    humans["h0"]["extra"] = "first"  # one human only
    del rater["q0"]  # no rater label
    got = check_equal(humans, rater)
    assert got.items == 59


def test_bad_parameters():
    humans, rater = noisy_data(9, PAIR, 40, 3, [0.8], 0.8)
    with pytest.raises(InputError, match="q must be"):
        alt_test(humans, rater, q=1.5)
    with pytest.raises(InputError, match="epsilon"):
        alt_test(humans, rater, epsilon=-0.1)
