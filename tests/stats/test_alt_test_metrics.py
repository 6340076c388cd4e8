"""The alt-test on ordinal labels and label sets (issue 32, item 3): per-item alignment and the
outcome equal the authors' definition (Calderon, Reichart & Dror 2025; their public notebook
``alt_test_example.ipynb``: ``accuracy`` and ``neg_rmse`` scoring functions, a one-sided
one-sample t-test, Benjamini-Yekutieli), restated here independently as a plain loop."""

from __future__ import annotations

import json

import numpy as np
import pytest
from scipy.stats import ttest_1samp

from core.errors import InputError
from core.stats.alt_test import alt_test, indicator_table
from core.stats.alt_test_metrics import (
    accuracy,
    alignment_for,
    jaccard,
    neg_rmse_of,
    ordinal_values,
)


def _ref_accuracy(pred, anns):
    return float(np.mean([pred == a for a in anns]))


def _ref_neg_rmse(pred, anns):
    return -float(np.sqrt(np.mean([(pred - a) ** 2 for a in anns])))


def _ref_jaccard(pred, anns):
    def j(a, b):
        return len(a & b) / len(a | b) if a | b else 1.0

    return float(np.mean([j(pred, a) for a in anns]))


def _ref_by(p, q):
    p = np.asarray(p)
    m = len(p)
    order = np.argsort(p)
    c = np.sum(1.0 / np.arange(1, m + 1))
    k_max = -1
    for i in range(m):
        if p[order[i]] <= (i + 1) / m * q / c:
            k_max = i
    return set(order[: k_max + 1].tolist())


def _reference(humans, llm, score, epsilon, q=0.05):
    """The authors' procedure as published, one human left out at a time."""
    who = {}
    for h, anns in humans.items():
        for i in anns:
            who.setdefault(i, []).append(h)
    keep = {i for i, hs in who.items() if len(hs) >= 2 and i in llm}
    names, pv, adv, indicators = [], [], [], {}
    for h in humans:
        items = [i for i in humans[h] if i in keep]
        wf, wh = [], []
        for i in items:
            rest = [humans[k][i] for k in who[i] if k != h]
            s_h, s_f = score(humans[h][i], rest), score(llm[i], rest)
            wf.append(1 if s_f >= s_h else 0)
            wh.append(1 if s_h >= s_f else 0)
            indicators[h, i] = (wf[-1], wh[-1])
        d = np.array(wh) - np.array(wf)
        pv.append(ttest_1samp(d, epsilon, alternative="less").pvalue)
        adv.append(float(np.mean(wf)))
        names.append(h)
    rejected = _ref_by(pv, q)
    return len(rejected) / len(names), float(np.mean(adv)), dict(zip(names, adv)), indicators


def _data(kind, seed, n=60, people=4):
    rng = np.random.default_rng(seed)
    truth = rng.integers(1, 6, size=n)
    humans, llm = {}, {}

    def noisy(t, p):
        if kind == "ordinal":
            return int(np.clip(t + rng.integers(-1, 2) * (rng.random() < p), 1, 5))
        if kind == "multilabel":
            s = {int(t)} | ({int(rng.integers(1, 6))} if rng.random() < p else set())
            return frozenset(s)
        return int(t) if rng.random() > p else int(rng.integers(1, 6))

    for k in range(people):
        humans[f"h{k}"] = {i: noisy(truth[i], 0.4) for i in range(n) if rng.random() < 0.9}
    llm = {i: noisy(truth[i], 0.35) for i in range(n)}
    return humans, llm


def _as_text(x):
    if isinstance(x, frozenset):
        return json.dumps(sorted(str(v) for v in x))
    return str(x)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize(
    "kind, metric, ref_score",
    [
        ("categorical", "accuracy", _ref_accuracy),
        ("ordinal", "neg_rmse", _ref_neg_rmse),
        ("multilabel", "jaccard", _ref_jaccard),
    ],
)
@pytest.mark.parametrize("epsilon", [0.1, 0.2])
def test_alt_test_equals_the_authors_definition(kind, metric, ref_score, seed, epsilon):
    humans, llm = _data(kind, seed)
    wr, ap, adv, indicators = _reference(humans, llm, ref_score, epsilon)
    text_h = {h: {i: [_as_text(v)] for i, v in a.items()} for h, a in humans.items()}
    text_f = {i: [_as_text(v)] for i, v in llm.items()}
    align = alignment_for(metric, [str(v) for v in range(1, 6)])
    table = indicator_table(text_h, text_f, align)
    for (h, i), (wf, wh) in indicators.items():
        r, c = table.items.index(i), table.names.index(h)
        assert (table.wf[r, c], table.wh[r, c]) == (wf, wh)
    got = alt_test(text_h, text_f, epsilon=epsilon, alignment=align)
    assert got.winning_rate == pytest.approx(wr, abs=1e-12)
    assert got.advantage_prob == pytest.approx(ap, abs=1e-12)
    assert {h.name: h.advantage for h in got.humans} == pytest.approx(adv)


def test_alignment_values_by_hand():
    assert accuracy("a", ["a", "b", "a", "c"]) == 0.5
    # ordinal 1..5: |3-1|, |3-5| -> sqrt((4 + 4) / 2) = 2
    assert neg_rmse_of(ordinal_values(["1", "2", "3", "4", "5"]))("3", ["1", "5"]) == -2.0
    # named labels get ranks: low=1, mid=2, high=3
    assert ordinal_values(["low", "mid", "high"]) == {"low": 1.0, "mid": 2.0, "high": 3.0}
    # {a,b} vs {a}: 1/2; vs {b,c}: 1/3; mean 5/12; two empty sets agree fully
    assert jaccard('["a", "b"]', ['["a"]', '["b", "c"]']) == pytest.approx(5 / 12)
    assert jaccard("[]", ["[]"]) == 1.0


def test_unknown_metric_and_rmse_without_order_refused():
    with pytest.raises(InputError, match="metric must be one of"):
        alignment_for("f1")
    with pytest.raises(InputError, match="ordered labels"):
        alignment_for("neg_rmse")
