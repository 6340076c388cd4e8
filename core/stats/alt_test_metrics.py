"""The alt-test's alignment functions by label scale (Calderon, Reichart & Dror, ACL 2025,
section 3 and their published code): how well a label ``l`` agrees with the remaining humans'
labels ``h_1 .. h_K`` of an item.

- ``accuracy`` (categorical labels, yes/no, side-by-side): ``S(l) = mean_k 1[l == h_k]``;
- ``neg_rmse`` (ordinal labels): ``S(l) = -sqrt(mean_k (v(l) - v(h_k))^2)``, one root over
  all remaining humans (not a mean of per-human distances), ``v`` the label's value: the
  number it spells when every label of the scale is a number, else its rank (1 = lowest);
- ``jaccard`` (label sets): ``S(l) = mean_k |l & h_k| / |l | h_k|`` (two empty sets: 1); a
  label that is not a JSON list is the set of itself.

The scale's default metric is :data:`DEFAULT_METRIC`; any metric can be asked for instead
(``--metric``) when the labels allow it (``neg_rmse`` needs values for every label).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache

from core.errors import InputError

#: ``alignment(label, others) -> S``: the higher, the better ``label`` agrees with ``others``.
Alignment = Callable[[str, Sequence[str]], float]
METRICS = ("accuracy", "neg_rmse", "jaccard")
#: The paper's metric for each scale (``yes/no`` and ``pairwise``: the built-in tasks).
DEFAULT_METRIC = {
    "categorical": "accuracy",
    "ordinal": "neg_rmse",
    "multilabel": "jaccard",
    "yes/no": "accuracy",
    "pairwise": "accuracy",
}


def accuracy(label: str, others: Sequence[str]) -> float:
    """``mean_k 1[label == h_k]``."""
    return sum(o == label for o in others) / len(others)


@lru_cache(maxsize=4096)
def label_set(label: str) -> frozenset[str]:
    """The set a multilabel label stands for (a JSON list), else ``{label}``."""
    if label.startswith("["):
        try:
            found = json.loads(label)
        except ValueError:
            found = None
        if isinstance(found, list):
            return frozenset(str(x) for x in found)
    return frozenset([label])


def jaccard_similarity(a: frozenset[str], b: frozenset[str]) -> float:
    """``|a & b| / |a | b|``; 1 for two empty sets."""
    union = a | b
    return len(a & b) / len(union) if union else 1.0


def jaccard(label: str, others: Sequence[str]) -> float:
    """``mean_k J(label, h_k)`` over the label sets."""
    mine = label_set(label)
    return sum(jaccard_similarity(mine, label_set(o)) for o in others) / len(others)


def ordinal_values(labels: Sequence[str]) -> dict[str, float]:
    """Each label's value: the number it spells when all do, else its rank (1 = first)."""
    numbers: dict[str, float] = {}
    for label in labels:
        try:
            value = float(label)
        except ValueError:
            return {label: float(i) for i, label in enumerate(labels, start=1)}
        if not math.isfinite(value):
            return {label: float(i) for i, label in enumerate(labels, start=1)}
        numbers[label] = value
    return numbers


def neg_rmse_of(values: Mapping[str, float]) -> Alignment:
    """``S(l) = -sqrt(mean_k (v(l) - v(h_k))^2)`` with the label values ``values``."""

    def neg_rmse(label: str, others: Sequence[str]) -> float:
        v = values[label]
        return -math.sqrt(sum((v - values[o]) ** 2 for o in others) / len(others))

    return neg_rmse


def alignment_for(metric: str, labels: Sequence[str] = ()) -> Alignment:
    """The alignment function ``metric`` (:data:`METRICS`) on a scale with ``labels`` in order
    (``neg_rmse`` needs them; InputError otherwise)."""
    if metric == "accuracy":
        return accuracy
    if metric == "jaccard":
        return jaccard
    if metric == "neg_rmse":
        if not labels:
            raise InputError("neg_rmse needs ordered labels (an ordinal task)")
        return _neg_rmse_for(tuple(labels))
    raise InputError(f"metric must be one of {', '.join(METRICS)}, got {metric!r}")


@lru_cache(maxsize=64)
def _neg_rmse_for(labels: tuple[str, ...]) -> Alignment:
    """One ``neg_rmse`` function per scale (the same object each time: shared work can be
    keyed on it)."""
    return neg_rmse_of(ordinal_values(labels))
