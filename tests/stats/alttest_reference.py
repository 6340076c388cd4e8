"""An independent reference for the alternative annotator test (Calderon, Reichart & Dror, 2025),
written for the tests from the paper's description and the authors' example notebook
(github.com/nitaytech/AltTest, ``alt_test_example.ipynb``); it imports nothing from ``core``.

The procedure, as the authors describe it:

- items count when at least ``min_humans_per_item`` (2) people labelled them and the LLM did;
- each person ``j`` in turn is left out; on every item ``i`` that ``j`` labelled, the LLM's label
  and ``j``'s label are each scored against the labels of the *other* people on that item with
  an alignment function ``score(label, others)`` (exact-match accuracy for categories, negative
  RMSE for numbers and ratings, mean Jaccard similarity for label sets);
- ``llm_wins_i = [score(llm) >= score(j)]``, ``human_wins_i = [score(j) >= score(llm)]``;
  a person with fewer than ``min_items`` (30) such items is not tested (their labels still serve
  as "other people" for the rest);
- ``H0_j: mean(human_wins - llm_wins) >= epsilon`` against ``< epsilon``: a one-sample, one-sided
  t-test; the p-values of all tested people go through the Benjamini-Yekutieli procedure at
  ``q`` (0.05);
- winning rate = share of tested people whose ``H0_j`` is rejected; the LLM passes when it is at
  least 0.5; advantage probability = mean over tested people of ``mean(llm_wins)``.

A t-test on differences that are all equal has no defined statistic: scipy answers NaN, which
never rejects (that is what the authors' code does; no case arises on the four real sets).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterable, Mapping
from dataclasses import dataclass

import numpy as np
from scipy import stats

Score = Callable[[object, list], float]


def accuracy(label: object, others: list) -> float:
    """Share of the other people who gave exactly this label."""
    return sum(label == o for o in others) / len(others)


def neg_rmse(label: object, others: list) -> float:
    """Minus the root mean squared distance from the other people's numbers."""
    return -math.sqrt(sum((float(label) - float(o)) ** 2 for o in others) / len(others))


def jaccard(label: Iterable, others: list) -> float:
    """Mean Jaccard similarity of a label set with each other person's set (two empty sets: 1)."""
    mine = set(label)
    total = 0.0
    for o in others:
        theirs = set(o)
        union = mine | theirs
        total += len(mine & theirs) / len(union) if union else 1.0
    return total / len(others)


SCORES: dict[str, Score] = {"accuracy": accuracy, "neg_rmse": neg_rmse, "jaccard": jaccard}


@dataclass(frozen=True)
class PersonOutcome:
    """One left-out person: items compared, the LLM's and the person's winning shares, the
    p-value of the t-test and whether BY rejected the null."""

    items: int
    llm_share: float
    human_share: float
    p_value: float
    rejected: bool


@dataclass(frozen=True)
class Outcome:
    winning_rate: float
    advantage_prob: float
    passed: bool
    people: dict[str, PersonOutcome]


def win_indicators(
    humans: Mapping[str, Mapping[Hashable, object]],
    llm: Mapping[Hashable, object],
    score: Score,
    *,
    min_humans_per_item: int = 2,
) -> dict[str, tuple[list[Hashable], np.ndarray, np.ndarray]]:
    """Per person: ``(items, llm_wins, human_wins)`` over the items they labelled that count."""
    who: dict[Hashable, list[str]] = {}
    for person, given in humans.items():
        for item in given:
            who.setdefault(item, []).append(person)
    counted = {i for i, ps in who.items() if len(ps) >= min_humans_per_item and i in llm}
    out = {}
    for person, given in humans.items():
        items = [i for i in given if i in counted]
        llm_wins, human_wins = [], []
        for item in items:
            others = [humans[p][item] for p in who[item] if p != person]
            s_llm, s_human = score(llm[item], others), score(given[item], others)
            llm_wins.append(1.0 if s_llm >= s_human else 0.0)
            human_wins.append(1.0 if s_human >= s_llm else 0.0)
        out[person] = (items, np.array(llm_wins), np.array(human_wins))
    return out


def t_test_p(differences: np.ndarray, epsilon: float) -> float:
    """One-sided one-sample t-test of ``mean < epsilon`` (scipy; NaN when undefined)."""
    return float(stats.ttest_1samp(differences, epsilon, alternative="less").pvalue)


def benjamini_yekutieli(p_values: list[float], q: float) -> list[bool]:
    """Step-up: reject the ``k`` smallest p-values, ``k`` the largest rank with
    ``p_(k) <= k q / (m H_m)``, ``H_m = 1 + 1/2 + ... + 1/m``; NaN is never rejected."""
    m = len(p_values)
    if m == 0:
        return []
    harmonic = sum(1.0 / r for r in range(1, m + 1))
    order = sorted(range(m), key=lambda i: (math.isnan(p_values[i]), p_values[i]))
    cut = 0
    for rank, i in enumerate(order, start=1):
        if not math.isnan(p_values[i]) and p_values[i] <= rank * q / (m * harmonic):
            cut = rank
    rejected = [False] * m
    for i in order[:cut]:
        rejected[i] = True
    return rejected


def alt_test(
    humans: Mapping[str, Mapping[Hashable, object]],
    llm: Mapping[Hashable, object],
    score: Score | str = "accuracy",
    *,
    epsilon: float = 0.2,
    q: float = 0.05,
    min_items: int = 30,
) -> Outcome:
    """The alt-test of ``llm`` (item -> label) against ``humans`` (person -> item -> label)."""
    fn = SCORES[score] if isinstance(score, str) else score
    wins = win_indicators(humans, llm, fn)
    tested = {p: w for p, w in wins.items() if len(w[0]) >= min_items}
    names = list(tested)
    p_values = [t_test_p(tested[p][2] - tested[p][1], epsilon) for p in names]
    rejected = benjamini_yekutieli(p_values, q)
    people = {
        p: PersonOutcome(
            len(tested[p][0]),
            float(tested[p][1].mean()),
            float(tested[p][2].mean()),
            p_values[k],
            rejected[k],
        )
        for k, p in enumerate(names)
    }
    rate = sum(rejected) / len(names)
    advantage = float(np.mean([o.llm_share for o in people.values()]))
    return Outcome(rate, advantage, rate >= 0.5, people)
