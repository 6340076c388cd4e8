"""Where to look again when no size makes the alt-test's decision hold
(:func:`core.stats.alt_test_power.items_needed`'s "cannot tell yet"), and why.

As the size grows, the share of plausible populations in which a decision holds tends to a limit
set by the ``m`` items on hand alone (the populations' spread and the caution shrink with ``m``,
never with the size): a rater whose margins lie only a few standard errors inside the line holds
at no size at all, and labelling as many again may not change that. :func:`why_not` says why in
words (the person the decision hangs on, and how many standard errors their margin lies from
epsilon); :func:`look_again_at` says where to look again: the smallest ``N``
(:func:`look_again_sizes`: ratio 1.5 from ``1.5 m`` to ``max(100 m, 10000)``) from which, were
``N - m`` more items labelled, a decision (pass or fail) would hold at the next look in at least
``target`` of simulated next looks (:func:`next_look_shares`) at every larger ``N`` tried (in
order, until it holds at two in a row). None when there is none: the items on hand put the
rater so close to the line that neither decision can be foreseen. The decision named there is a
forecast, never a recommendation.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

from core.stats.alt_test import IndicatorTable
from core.stats.alt_test_margins import (
    errors_from_sums,
    held_from,
    margin_errors,
    margin_sums,
    worsened,
)

#: The look-again sizes reach ``max(PROJECTION_FACTOR m, PROJECTION_TOP)`` (:func:`look_again_sizes`).
PROJECTION_FACTOR, PROJECTION_TOP = 100, 10_000
#: A simulated next look's own populations and samples from each (:func:`next_look_shares`).
LOOK_POPULATIONS, LOOK_DRAWS = 10, 10
#: The look-again sizes are tried in order until a decision holds at this many in a row.
LOOK_CONFIRM = 2
#: Ratio of the look-again sizes (that of :func:`core.stats.alt_test_power.size_grid`).
RATIO = 1.5


def look_again_sizes(current: int) -> list[int]:
    """Numbers on hand the look-again projection tries: geometric (``RATIO``) from 1.5
    ``current`` to ``max(100 current, 10000)``."""
    top = max(PROJECTION_FACTOR * current, PROJECTION_TOP)
    sizes = {top}
    x = current * RATIO
    while x < top:
        sizes.add(round(x))
        x *= RATIO
    return sorted(sizes)


def why_not(
    table: IndicatorTable, now: str, *, epsilon: float, caution: float, min_items: int
) -> str:
    """Why no size holds, in words: the decision on the items on hand (``now``) and the person
    it hangs on. Of the people with ``min_items`` items, ordered by how many standard errors
    their margin (mean ``W^h - W^f``) lies below epsilon, the ``ceil(P / 2)``-th: a pass needs
    that many beaten, a fail that person not beaten."""
    k = table.labelled.sum(axis=0)
    tested = np.flatnonzero(k >= min_items)
    if now == "none" or not len(tested):
        return (
            f"the {len(table.items)} items on hand give no decision (too few people with "
            f"{min_items} items each)"
        )
    d = np.where(table.labelled, table.wh - table.wf, 0.0)
    margin = d.sum(axis=0)[tested] / k[tested]
    se = margin_errors(table)[tested]
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(se > 0, (epsilon - margin) / se, np.sign(epsilon - margin) * np.inf)
    j = int(np.argsort(-z, kind="stable")[math.ceil(len(tested) / 2) - 1])
    far = f"{abs(z[j]):.1f} standard errors" if np.isfinite(z[j]) else "with no spread"
    side = "below" if z[j] > 0 else "above"
    worse = f", and a pass must hold with margins {caution:g} standard errors worse"
    return (
        f"the rater {'passes' if now == 'pass' else 'fails'} on the {len(table.items)} items on "
        f"hand, but the decision hangs on {table.names[tested[j]]}, whose margin (mean W^h - "
        f"W^f, {margin[j]:+.2f}) lies {far} {side} epsilon {epsilon:g}"
        + (worse if now == "pass" and caution else "")
    )


def next_look_shares(
    profiles: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    sizes: Sequence[int],
    decide: Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray],
    *,
    target: float,
    caution: float,
    looks: int,
    rng: np.random.Generator,
) -> dict[str, dict[int, float]]:
    """Per decision (``"pass"``, ``"fail"``) and number on hand ``N`` in ``sizes``: the share of
    ``looks`` simulated next looks at which it holds, were ``N - m`` more items labelled. One
    next look: a population drawn from the ``m`` items on hand (Dirichlet), ``N - m`` new items
    from it; then the rule of :func:`core.stats.alt_test_power.items_needed` on the ``N`` items
    on hand, in small: the caution from their spread, ``LOOK_POPULATIONS`` populations drawn
    from them (Dirichlet), ``LOOK_DRAWS`` samples from each, decided by ``decide`` (sums ->
    decisions). The decision holds at the look when it holds in ``target`` of its populations at every size of its grid from ``N``
    up, taken where that is hardest: a pass (margins made worse) at ``N``, a fail at ``N`` and
    at ``max(4 N, 300)``. ``profiles``: :func:`core.stats.alt_test_power.label_profiles` of
    the items on hand."""
    wf, wh, labelled, items = profiles
    m = int(items.sum())
    shape = (looks, LOOK_POPULATIONS, LOOK_DRAWS)

    def held(decisions: np.ndarray, want: int) -> np.ndarray:
        in_population = np.mean(decisions.reshape(shape) == want, axis=2) >= target
        return np.asarray(np.mean(in_population, axis=1) >= target)

    shares: dict[str, dict[int, float]] = {"pass": {}, "fail": {}}
    for n in sizes:
        then = items + rng.multinomial(n - m, rng.dirichlet(items.astype(float), size=looks))
        gamma = rng.standard_gamma(np.repeat(then, LOOK_POPULATIONS, axis=0).astype(float))
        weights = np.repeat(gamma / gamma.sum(axis=1, keepdims=True), LOOK_DRAWS, axis=0)
        se = caution * errors_from_sums(*margin_sums(then, wf, wh, labelled))
        se = np.repeat(se, LOOK_POPULATIONS * LOOK_DRAWS, axis=0)
        d_sum, d_sq, count = margin_sums(rng.multinomial(n, weights), wf, wh, labelled)
        worse = decide(*worsened(d_sum, d_sq, count, se))
        fails = held(decide(d_sum, d_sq, count), 0)
        top = margin_sums(rng.multinomial(max(4 * n, 300), weights), wf, wh, labelled)
        shares["pass"][n] = float(np.mean(held(worse, 1)))
        shares["fail"][n] = float(np.mean(fails & held(decide(*top), 0)))
    return shares


def look_again_at(
    profiles: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    decide: Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray],
    *,
    target: float,
    caution: float,
    looks: int,
    rng: np.random.Generator,
) -> tuple[int | None, str | None]:
    """``(N, decision)``: the smallest number on hand (:func:`look_again_sizes`) from which a
    decision holds in at least ``target`` of simulated next looks (:func:`next_look_shares`) at
    every larger number tried, tried in order until it holds at ``LOOK_CONFIRM`` in a row; the
    decision ``"pass"`` or ``"fail"`` when one alone reaches ``target`` there, else ``"either"``.
    ``(None, None)`` when none does up to the top."""
    current = int(profiles[3].sum())
    ahead: dict[str, dict[int, float]] = {"pass": {}, "fail": {}}
    decided: dict[int, float] = {}
    for n in look_again_sizes(current):
        step = next_look_shares(
            profiles, [n], decide, target=target, caution=caution, looks=looks, rng=rng
        )
        for d in ahead:
            ahead[d][n] = step[d][n]
        # a look names at most one decision (each needs a target share above one half)
        decided[n] = step["pass"][n] + step["fail"][n]
        if min(list(decided.values())[-LOOK_CONFIRM:]) >= target and len(decided) >= LOOK_CONFIRM:
            break
    at = held_from(decided, target)
    if at is None:
        return None, None
    alone = [d for d in ("pass", "fail") if ahead[d][at] >= target]
    return at, alone[0] if alone else "either"
