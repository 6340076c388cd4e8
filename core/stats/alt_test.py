"""The alternative annotator test (alt-test) of Calderon, Reichart & Dror (ACL 2025): can an
auto-rater replace the people who labelled these items?

Definitions (the paper's; shown for categorical labels, ``S`` = share of equal labels; ordinal
labels and label sets use the alignment functions of :mod:`core.stats.alt_test_metrics`, passed
as ``alignment``). An item is used
when it has at least two human labels and at least one label by the rater. For each human ``j``
left out, over the items ``I_j`` that ``j`` labelled:

- alignment of a label ``l`` with the remaining humans: ``S(l) = mean_{k != j} 1[l == h_k]``
  (``accuracy``; ``neg_rmse`` and ``jaccard`` for ordinal labels and label sets);
- ``W^f_i = 1[S(f_i) >= S(h_j,i)]`` and ``W^h_i = 1[S(h_j,i) >= S(f_i)]``. When the rater gave
  several labels on the item (e.g. both presentation orders of a pair), each of ``W^f_i``,
  ``W^h_i`` is the mean of the indicator over its labels (0, 0.5 or 1 for two labels);
- ``rho^f_j = mean_i W^f_i`` (the *advantage*), ``rho^h_j = mean_i W^h_i``;
- ``H0_j: rho^f_j <= rho^h_j - epsilon``, tested by a one-sided one-sample t-test of
  ``d_i = W^h_i - W^f_i`` against ``epsilon`` (alternative: ``mean(d) < epsilon``),
  ``t = (mean(d) - epsilon) / (sd(d) / sqrt(n))`` with ``n - 1`` degrees of freedom.
  Zero variance (every ``d_i`` equal): ``p = 0`` when ``mean(d) < epsilon``, else ``p = 1``
  (the limit of the t statistic's tail as ``sd -> 0``);
- Benjamini-Yekutieli at level ``q`` over the humans tested; the *winning rate* ``omega`` is the
  share of humans whose ``H0_j`` is rejected, and the rater passes when ``omega >= 0.5``; the
  *advantage probability* ``rho = mean_j rho^f_j``.

A human with fewer than ``min_items`` used items is skipped (listed with the reason) but their
labels still count among the "remaining humans" of the others. ``min_humans`` is 3 by default:
the paper requires at least 2 annotators (one left out, one to compare with) and recommends 3 or
more, and the project asks for the recommended 3. Fewer than ``min_humans`` humans
tested raises :class:`NotEnoughLabels`, which says how many more humans and items are needed.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats

from core.errors import InputError
from core.stats.alt_test_metrics import Alignment, accuracy

Labels = Sequence[str] | str


@dataclass(frozen=True)
class HumanAltResult:
    """One left-out human ``j``: items ``|I_j|``, ``advantage`` ``rho^f_j``, ``human_advantage``
    ``rho^h_j``, the t-test's one-sided ``p_value`` and whether BY rejected ``H0_j``."""

    name: str
    items: int
    advantage: float
    human_advantage: float
    p_value: float
    rejected: bool


@dataclass(frozen=True)
class AltTestResult:
    """The alt-test's outcome (see the module docstring for the definitions)."""

    epsilon: float
    q: float
    items: int
    humans: tuple[HumanAltResult, ...]
    winning_rate: float
    advantage_prob: float
    passed: bool
    skipped: tuple[tuple[str, str], ...]


class NotEnoughLabels(InputError):
    """Too few humans with enough items shared with the rater and another human.

    ``humans_needed``: how many more humans with ``min_items`` items are needed (0 if enough);
    ``items_needed``: per human below ``min_items``, how many more used items they need."""

    def __init__(self, message: str, humans_needed: int, items_needed: dict[str, int]) -> None:
        super().__init__(message)
        self.humans_needed = humans_needed
        self.items_needed = items_needed


def _as_list(labels: Labels) -> list[str]:
    """A label or a sequence of labels as a list of labels."""
    return [labels] if isinstance(labels, str) else list(labels)


def _human_label(name: str, item: Hashable, labels: Labels) -> str:
    """The one label of a human on an item (InputError for none or several)."""
    found = _as_list(labels)
    if len(found) != 1:
        raise InputError(
            f"human {name!r} has {len(found)} labels on item {item!r}; give exactly one"
        )
    return found[0]


def one_sided_p(d: np.ndarray, epsilon: float) -> float:
    """p-value of the one-sample t-test of ``mean(d) < epsilon`` (zero variance: 0 or 1).

    ``d`` is sorted first, so the floating-point sums (and the p-value, to the last bit) do not
    depend on the order of the items."""
    return one_sided_ps(d, [epsilon])[0]


def one_sided_ps(d: np.ndarray, epsilons: Sequence[float]) -> list[float]:
    """:func:`one_sided_p` at each of ``epsilons``: the mean and deviation of ``d`` once, the t
    distribution's cdf in one call (element by element: the same values as one call each)."""
    d = np.sort(np.asarray(d, dtype=float))
    n = len(d)
    mean = float(d.mean())
    sd = float(d.std(ddof=1)) if n > 1 else 0.0
    if sd == 0.0 or not math.isfinite(sd):
        return [0.0 if mean < epsilon else 1.0 for epsilon in epsilons]
    t = [(mean - epsilon) / (sd / math.sqrt(n)) for epsilon in epsilons]
    return [float(p) for p in np.atleast_1d(stats.t.cdf(np.asarray(t), df=n - 1))]


def by_reject(p_values: Sequence[float], q: float) -> list[bool]:
    """Benjamini-Yekutieli step-up at level ``q`` (scipy's adjusted p-values <= ``q``)."""
    if not p_values:
        return []
    adjusted = stats.false_discovery_control(np.asarray(p_values, dtype=float), method="by")
    return [bool(a <= q) for a in adjusted]


@dataclass(frozen=True)
class IndicatorTable:
    """The per-item indicators of every human: ``wf[i, j] = W^f``, ``wh[i, j] = W^h`` of item
    ``items[i]`` with human ``names[j]`` left out (0 where ``labelled[i, j]`` is False)."""

    items: tuple[Hashable, ...]
    names: tuple[str, ...]
    wf: np.ndarray
    wh: np.ndarray
    labelled: np.ndarray


def indicator_table(
    humans: Mapping[str, Mapping[Hashable, Labels]],
    rater: Mapping[Hashable, Labels],
    alignment: Alignment = accuracy,
) -> IndicatorTable:
    """``W^f`` and ``W^h`` of every used item (:func:`used_items`) and human (names sorted),
    ``S`` being ``alignment`` (:mod:`core.stats.alt_test_metrics`)."""
    names = tuple(sorted(humans))
    used = used_items(humans, rater)
    wf = np.zeros((len(used), len(names)))
    wh = np.zeros((len(used), len(names)))
    labelled = np.zeros((len(used), len(names)), dtype=bool)
    # items with the same labels (by the same people) have the same indicators: computed once
    seen: dict[Hashable, list[tuple[int, float, float]]] = {}
    for i, item in enumerate(used):
        given = {
            j: _human_label(name, item, humans[name][item])
            for j, name in enumerate(names)
            if item in humans[name]
        }
        mine = _as_list(rater[item])
        key: Hashable = (tuple(given.items()), tuple(mine))
        try:
            found = seen.get(key)
        except TypeError:  # labels that cannot be hashed: computed for the item alone
            key, found = None, None
        if found is None:
            found = _item_indicators(given, mine, alignment)
            if key is not None:
                seen[key] = found
        for j, f, h in found:
            wf[i, j], wh[i, j], labelled[i, j] = f, h, True
    return IndicatorTable(tuple(used), names, wf, wh, labelled)


def _item_indicators(
    given: Mapping[int, str], mine: Sequence[str], alignment: Alignment
) -> list[tuple[int, float, float]]:
    """``(j, W^f, W^h)`` of one item for each human ``j`` who labelled it (``given``: ``j`` ->
    label; ``mine``: the rater's labels there)."""
    out = []
    for j, own in given.items():
        others = [label for k, label in given.items() if k != j]
        s_h = alignment(own, others)
        rater_s = [alignment(label, others) for label in mine]
        out.append(
            (
                j,
                sum(s >= s_h for s in rater_s) / len(rater_s),
                sum(s_h >= s for s in rater_s) / len(rater_s),
            )
        )
    return out


def used_items(
    humans: Mapping[str, Mapping[Hashable, Labels]], rater: Mapping[Hashable, Labels]
) -> list[Hashable]:
    """Items with a rater label and at least two human labels, in the rater's item order."""
    return [
        item
        for item, labels in rater.items()
        if _as_list(labels) and sum(item in h for h in humans.values()) >= 2
    ]


def alt_test(
    humans: Mapping[str, Mapping[Hashable, Labels]],
    rater: Mapping[Hashable, Labels],
    *,
    epsilon: float = 0.2,
    q: float = 0.05,
    min_items: int = 30,
    min_humans: int = 3,
    alignment: Alignment = accuracy,
) -> AltTestResult:
    """Run the alt-test of ``rater`` (item -> label(s)) against ``humans`` (name -> item ->
    label), ``S`` being ``alignment``. Returns :class:`AltTestResult`; raises :class:`NotEnoughLabels` when fewer than
    ``min_humans`` humans have ``min_items`` used items, InputError for bad parameters."""
    check_parameters(epsilon, q)
    return alt_test_on_table(
        indicator_table(humans, rater, alignment),
        epsilon=epsilon,
        q=q,
        min_items=min_items,
        min_humans=min_humans,
    )


def check_parameters(epsilon: float, q: float) -> None:
    """InputError unless ``0 < q < 1`` and ``0 <= epsilon < 1``."""
    if not 0 < q < 1:
        raise InputError(f"q must be between 0 and 1, got {q}")
    if not 0 <= epsilon < 1:
        raise InputError(f"epsilon must be in [0, 1), got {epsilon}")


def alt_test_on_table(
    table: IndicatorTable,
    *,
    epsilon: float = 0.2,
    q: float = 0.05,
    min_items: int = 30,
    min_humans: int = 3,
) -> AltTestResult:
    """:func:`alt_test` on the labels' :func:`indicator_table`, computed once and shared: the same
    result as :func:`alt_test` on them."""
    (result,) = alt_test_over(table, [epsilon], q=q, min_items=min_items, min_humans=min_humans)
    return result


def alt_test_over(
    table: IndicatorTable,
    epsilons: Sequence[float],
    *,
    q: float = 0.05,
    min_items: int = 30,
    min_humans: int = 3,
) -> list[AltTestResult]:
    """:func:`alt_test_on_table` at each of ``epsilons`` (e.g. a sensitivity curve): each
    person's margins summed once and every epsilon's p-value in one call of the t distribution,
    the same figures as one test per epsilon."""
    for epsilon in epsilons:
        check_parameters(epsilon, q)
    counts = dict(zip(table.names, table.labelled.sum(axis=0).tolist(), strict=True))
    tested = [n for n in table.names if counts[n] >= min_items]
    short = {n: min_items - c for n, c in counts.items() if c < min_items}
    if len(tested) < min_humans:
        raise NotEnoughLabels(
            _not_enough_message(len(tested), short, min_items, min_humans),
            humans_needed=min_humans - len(tested),
            items_needed=short,
        )
    results = []
    for name in tested:
        j = table.names.index(name)
        rows = table.labelled[:, j]
        wf, wh = table.wf[rows, j], table.wh[rows, j]
        ps = one_sided_ps(wh - wf, epsilons)
        results.append((name, len(wf), float(wf.mean()), float(wh.mean()), ps))
    skipped = tuple(
        (
            n,
            f"{_plural(min_items - short[n], 'item', 'items')} shared with the rater and "
            "another human, "
            f"fewer than {min_items}",
        )
        for n in short
    )
    out = []
    for k, epsilon in enumerate(epsilons):
        rejected = by_reject([r[4][k] for r in results], q)
        humans = tuple(
            HumanAltResult(name, n, adv, hadv, ps[k], rej)
            for (name, n, adv, hadv, ps), rej in zip(results, rejected, strict=True)
        )
        winning = sum(rejected) / len(humans)
        out.append(
            AltTestResult(
                epsilon=epsilon,
                q=q,
                items=len(table.items),
                humans=humans,
                winning_rate=winning,
                advantage_prob=float(np.mean([h.advantage for h in humans])),
                passed=winning >= 0.5,
                skipped=skipped,
            )
        )
    return out


def _plural(n: int, one: str, many: str) -> str:
    """``1 item``, ``2 items``: the count with the noun in the right number."""
    return f"{n} {one if n == 1 else many}"


def _not_enough_message(have: int, short: dict[str, int], min_items: int, min_humans: int) -> str:
    """Plain words: how many more humans and items the alt-test needs (singular and plural
    right for every count)."""
    more = min_humans - have
    parts = [
        f"the alt-test needs at least {min_humans} humans with {min_items} or more items labelled "
        f"also by the rater and another human; {have} {'has' if have == 1 else 'have'} that, "
        f"so {more} more {'is' if more == 1 else 'are'} needed"
    ]
    nearest = sorted(short.items(), key=lambda kv: (kv[1], kv[0]))[:more]
    if nearest:
        parts.append(
            "closest: "
            + ", ".join(
                f"{name} needs {_plural(n, 'more item', 'more items')}" for name, n in nearest
            )
        )
    missing = more - len(nearest)
    if missing > 0:
        who = "1 more person" if missing == 1 else f"{missing} more people each"
        parts.append(f"{who} labelling {min_items} such items")
    return "; ".join(parts)
