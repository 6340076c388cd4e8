"""How many doubly-labelled items would make the alt-test's decision hold? A two-level
(Bayesian) bootstrap that carries what the items on hand leave unknown.

Method. The alt-test's per-item indicators ``W^f_{ij}``, ``W^h_{ij}`` (:func:`indicator_table`)
depend only on the item's own labels, so an item is resampled whole, as its *label profile* (which
humans labelled it and each left-out human's ``W^f``, ``W^h``). The ``m`` items on hand are
reduced to their distinct profiles, sorted, and how many items have each
(:func:`label_profiles`): a function of the labels alone, so any row order of the same labels
gives the same figures, to the last digit.

1. ``n_sim`` plausible *populations*: Dirichlet(1, ..., 1) weights over the ``m`` items on hand
   (Rubin's Bayesian bootstrap; summed per profile, Dirichlet with the profile's item count).
   How far they spread is what ``m`` items leave unknown; a plain bootstrap of ``n >> m`` items
   from the ``m`` on hand would behave as if those ``m`` items were the population.
2. For each candidate size ``n``, ``n_draw`` samples of ``n`` items from every population
   (multinomial counts), the alt-test rerun on each (humans with fewer than ``min_items`` drawn
   items skipped; fewer than ``min_humans`` tested = no decision).

3. A pass is counted only where it also comes out with every person's margin ``caution`` (2)
   standard errors worse than on the items on hand (``W^h - W^f`` raised by ``caution *
   sd / sqrt(items)``, :func:`margin_errors`): the resampling knows only the sample's spread,
   and a recommendation to pass appears just when the sample happens to flatter a rater near
   the line; a margin that clears the line by less than a standard error is no ground for one.
   A fail (the alt-test's answer whenever the evidence is short) is counted as it comes out.

Sizes: a geometric grid (ratio 1.5) from 30 to ``max(4 m, 300)``, plus ``m`` itself.
``pass_probability[n]`` is the share of all samples passing, ``decision[n]`` their majority
(no decision counts for neither) and ``stability[n]`` the share of populations in which that
decision comes out in at least ``target`` of their samples (it *holds* there).

The answer. The decision to hold, ``D``, is the alt-test's on all the items on hand; when those
cannot decide (too few people with ``min_items`` items), the majority at the largest size. ``needed``
is the smallest size from which ``D`` holds in at least ``target`` of the populations at *every*
larger size tried (a fail at small sizes only because too few items were drawn per person, before
passes at larger sizes, is never an answer); ``more`` = ``max(needed - m, 0)``. Checked
against populations with a known decision in ``tests/stats/test_alt_test_power_truth.py``; the
error rate is in docs/statistics.md.

When no size holds: "cannot tell yet", no decision named; why, and where to look again, from
:mod:`core.stats.alt_test_look_again` (``more`` = that number less ``m``, or 0 when none can be
foreseen). That forecast is never ``recommended``: the checked error rate concerns
recommendations only.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Mapping, Sequence
from typing import Any

import numpy as np
from scipy import stats

from core.errors import InputError
from core.stats.alt_test import (
    IndicatorTable,
    Labels,
    NotEnoughLabels,
    alt_test_on_table,
    indicator_table,
)
from core.stats.alt_test_look_again import (
    PROJECTION_FACTOR,
    PROJECTION_TOP,
    look_again_at,
    why_not,
)
from core.stats.alt_test_margins import held_from, margin_errors, margin_sums, worsened
from core.stats.alt_test_metrics import Alignment, accuracy

METHOD = (
    "two-level bootstrap: {n_sim} plausible populations (Dirichlet weights over the {current} "
    "items on hand), {n_draw} samples of n items from each for every size n, the alt-test "
    "(epsilon {epsilon}, q {q}) rerun on each; a decision holds at n in a population when it "
    "comes out in at least {target:.0%} of its samples (a pass: with every person's margin "
    "{caution:g} standard error(s) worse than on the items on hand); needed = smallest n from "
    "which the decision on the items on hand holds in at least {target:.0%} of populations at "
    "every larger size; when none holds, where to look again: the smallest number on hand from "
    "which a decision would hold at the next look in at least {target:.0%} of simulated next looks "
    "(seed {seed})"
)
#: Grid of candidate sizes: from ``GRID_START`` by a factor ``GRID_RATIO`` up to ``max(4 m, 300)``.
GRID_START, GRID_RATIO = 30, 1.5
#: A pass must hold with every person's margin this many standard errors worse than measured.
CAUTION = 2.0


def size_grid(current: int) -> list[int]:
    """Candidate sizes: geometric from 30 to ``max(4 current, 300)``, with ``current``."""
    top = max(4 * current, 300)
    sizes = {current, top}
    x = float(GRID_START)
    while x < top:
        sizes.add(round(x))
        x *= GRID_RATIO
    return sorted(s for s in sizes if s >= 1)


def _p_values(
    d_sum: np.ndarray,
    d_sq: np.ndarray,
    n: np.ndarray,
    epsilon: float,
    band: tuple[float, float] | None = None,
) -> np.ndarray:
    """One-sided one-sample t-test p-values of ``mean(d) < epsilon`` from sums, elementwise
    (zero variance: 0 if the mean is below epsilon else 1; ``n < 2``: NaN).

    ``band`` ``(lo, hi)``: only p-values within it are computed; one certainly below ``lo`` is
    given as 0 and one certainly above ``hi`` as 1 (its t beyond the t distribution's quantile of
    ``lo`` or ``hi`` with a 1 % margin; the cdf, the costly part, is monotone in t). For the
    Benjamini-Yekutieli step, whose thresholds all lie in the band, that changes no decision."""
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = d_sum / n
        var = np.maximum(d_sq - n * mean**2, 0.0) / (n - 1)
        t = (mean - epsilon) / np.sqrt(var / n)
        df = np.maximum(n - 1, 1)
        if band is None:
            p = stats.t.cdf(t, df=df)
        else:
            degrees, where = np.unique(df, return_inverse=True)
            t_lo = stats.t.ppf(band[0] * 0.99, degrees)[where].reshape(df.shape)
            t_hi = stats.t.ppf(min(band[1] * 1.01, 1.0), degrees)[where].reshape(df.shape)
            below, above = t < t_lo, t > t_hi
            p = np.where(below, 0.0, 1.0)
            exact = ~below & ~above  # NaN t too: its p stays NaN
            p[exact] = stats.t.cdf(t[exact], df=df[exact])
    flat = var <= 1e-12
    p = np.where(flat, np.where(mean < epsilon, 0.0, 1.0), p)
    return np.where(n >= 2, p, np.nan)


def decisions_from_counts(
    counts: np.ndarray,
    wf: np.ndarray,
    wh: np.ndarray,
    labelled: np.ndarray,
    *,
    epsilon: float,
    q: float,
    min_items: int = 30,
    min_humans: int = 3,
) -> np.ndarray:
    """The alt-test's decision on each row of ``counts`` (samples x rows of the indicator arrays:
    how many copies of each row the sample holds): 1 pass, 0 fail, -1 no decision. BY is the
    step-up over each sample's tested humans (vectorised)."""
    d_sum, d_sq, count = margin_sums(counts, wf, wh, labelled)
    return decisions_from_sums(
        d_sum, d_sq, count, epsilon=epsilon, q=q, min_items=min_items, min_humans=min_humans
    )


def decisions_from_sums(
    d_sum: np.ndarray,
    d_sq: np.ndarray,
    count: np.ndarray,
    *,
    epsilon: float,
    q: float,
    min_items: int = 30,
    min_humans: int = 3,
) -> np.ndarray:
    """:func:`decisions_from_counts` from the samples' :func:`margin_sums`."""
    k = np.arange(1, d_sum.shape[1] + 1)
    harmonic = np.concatenate(([1.0], np.cumsum(1.0 / k)))  # c_m for m = 0 .. humans
    # every threshold k q / (m c_m) lies in [q / (H c_H), q] (H humans): p-values outside are
    # only compared, so they are not computed to the last digit (_p_values' band)
    band = (q / (k[-1] * harmonic[-1]), q) if len(k) else None
    p = _p_values(d_sum, d_sq, count, epsilon, band)
    tested = count >= min_items
    m = tested.sum(axis=1)
    ordered = np.sort(np.where(tested & ~np.isnan(p), p, np.inf), axis=1)
    per = np.maximum(m, 1)[:, None]
    below = ordered <= k[None, :] * q / (per * harmonic[per])
    rejected = np.where(below.any(axis=1), p.shape[1] - np.argmax(below[:, ::-1], axis=1), 0)
    return np.where(m >= min_humans, (rejected / np.maximum(m, 1) >= 0.5).astype(int), -1)


def draw_populations(m: int, n_sim: int, rng: np.random.Generator) -> np.ndarray:
    """``n_sim`` plausible populations: Dirichlet(1, ..., 1) weights over ``m`` items."""
    return rng.dirichlet(np.ones(m), size=n_sim)


def simulate_decisions(
    wf: np.ndarray,
    wh: np.ndarray,
    labelled: np.ndarray,
    n: int,
    *,
    epsilon: float,
    q: float,
    n_sim: int,
    rng: np.random.Generator,
    min_items: int = 30,
    min_humans: int = 3,
) -> np.ndarray:
    """Decisions of ``n_sim`` two-level samples of ``n`` items (rows of the indicator arrays): a
    population drawn (:func:`draw_populations`), then ``n`` items from it. 1 pass, 0 fail, -1 no
    decision (too few humans with ``min_items`` sampled items)."""
    weights = draw_populations(wf.shape[0], n_sim, rng)
    counts = rng.multinomial(n, weights)
    return decisions_from_counts(
        counts, wf, wh, labelled, epsilon=epsilon, q=q, min_items=min_items, min_humans=min_humans
    )


def _current_decision(table: IndicatorTable, **kw: Any) -> str:
    """The alt-test's decision on all the items on hand: pass, fail or none (too few labels)."""
    try:
        return "pass" if alt_test_on_table(table, **kw).passed else "fail"
    except NotEnoughLabels:
        return "none"


def _plural(n: int) -> str:
    return f"{n} more item" if n == 1 else f"{n} more items"


def advice(
    out: Mapping[str, Any],
    target: float,
    caution: float = CAUTION,
    *,
    why: str = "",
    look_again: str | None = None,
    forecast: bool = True,
) -> str:
    """One sentence a validator can act on, from :func:`items_needed`'s answer (``why``: the
    reason no size holds, from :func:`why_not`; ``look_again``: the decision that would hold at
    the next look with ``current + more`` items on hand, ``"either"`` when one of the two
    would but not which, None when none would; ``forecast`` False: it was not computed)."""
    current, more, largest = out["current"], out["more"], max(out["stability"])
    if out["status"] == "cannot tell":
        reason = f"{why}: " if why else f"with {current} items on hand "
        head = (
            f"cannot tell yet: {reason}no size up to {largest} makes the decision on them hold "
            f"in {target:.0%} of plausible populations"
        )
        if not forecast:
            return f"{head}; where to look again was not forecast"
        if look_again is None:
            return (
                f"{head}, and how many more items it takes cannot be foreseen from these "
                f"{current}: in no number on hand up to "
                f"{max(PROJECTION_FACTOR * current, PROJECTION_TOP)} does a decision hold at the "
                f"next look in {target:.0%} of simulated next looks (the rater sits too close to "
                "the line); label more items and look again"
            )
        which = (
            "a decision holding (pass or fail: these items cannot foresee which)"
            if look_again == "either"
            else f"the {look_again} holding"
        )
        return (
            f"{head}. With {current + more} on hand, the next look should find {which} in at "
            f"least {target:.0%} of simulated next looks: label {_plural(more)} and look again"
        )
    decision = "passes" if out["recommended"] == "pass" else "fails"
    holds = (
        f"from {out['needed']} items on, the rater {decision} in at least {target:.0%} of "
        f"samples in at least {target:.0%} of plausible populations"
        + (
            f", even with its margins {caution:g} standard error(s) worse"
            if decision == "passes" and caution
            else ""
        )
    )
    if out["status"] == "holds":
        return f"the decision holds: {holds}, and {current} are on hand: no more needed"
    now = f" (as it {decision} on them)" if out["current_decision"] != "none" else ""
    return f"label {_plural(more)} ({out['needed']} in all, {current} on hand{now}): {holds}"


def label_profiles(table: IndicatorTable) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(wf, wh, labelled, items)``: the distinct label profiles of ``table`` (rows in sorted
    order) and how many items have each; a function of the labels alone, never of their order."""
    humans = len(table.names)
    rows = np.hstack([table.labelled.astype(float), table.wf, table.wh])
    unique, items = np.unique(rows, axis=0, return_counts=True)
    labelled = unique[:, :humans] > 0.5
    return unique[:, humans : 2 * humans], unique[:, 2 * humans :], labelled, items


def items_needed(
    humans: Mapping[str, Mapping[Hashable, Labels]],
    rater: Mapping[Hashable, Labels],
    *,
    epsilon: float = 0.2,
    q: float = 0.05,
    target: float = 0.9,
    candidates: Sequence[int] | None = None,
    n_sim: int = 200,
    seed: int = 0,
    min_items: int = 30,
    min_humans: int = 3,
    n_draw: int = 20,
    alignment: Alignment = accuracy,
    caution: float = CAUTION,
    table: IndicatorTable | None = None,
    forecast: bool = True,
) -> dict[str, Any]:
    """Pass probability and decision stability of the alt-test at each candidate number of
    doubly-labelled items, and the answer (module docstring): ``n_sim`` populations, ``n_draw``
    samples of each size from each (``alignment``: the alt-test's ``S``, by scale). ``candidates`` default to :func:`size_grid`; the current
    number of items is always added. Returns ``{"method", "per_item_counts" (number of human
    labels -> items), "pass_probability": {n: p}, "stability": {n: s}, "decision": {n: "pass" |
    "fail" | "none"}, "current": int, "current_decision": "pass" | "fail" | "none", "status":
    "holds" | "label more" | "cannot tell", "recommended": "pass" | "fail" | None, "needed": int |
    None, "more": int, "advice": str}``. ``forecast`` False skips the look-again forecast of a
    "cannot tell" (``more`` 0; for callers that use only a recommendation that holds, as the
    real-data benchmark does: the forecast costs ten times the rest)."""
    if not 0 < target < 1:
        raise InputError(f"target must be between 0 and 1, got {target}")
    if n_sim < 1 or n_draw < 1 or (candidates is not None and any(n < 1 for n in candidates)):
        raise InputError("n_sim and every candidate must be at least 1")
    if table is None:  # else: built from these labels with ``alignment`` already
        table = indicator_table(humans, rater, alignment)
    current = len(table.items)
    if current == 0:
        raise InputError("no item has both a rater label and two human labels: nothing to resample")
    people = int(table.labelled.any(axis=0).sum())
    if people < min_humans:
        raise InputError(
            f"only {people} people share items with the rater and another person; the alt-test "
            f"needs {min_humans}: more items cannot decide, more people can"
        )
    now = _current_decision(table, epsilon=epsilon, q=q, min_items=min_items, min_humans=min_humans)
    sizes = sorted({*(size_grid(current) if candidates is None else candidates), current})
    wf, wh, labelled, items = label_profiles(table)
    rng = np.random.default_rng(seed)
    # Dirichlet(1) weights over the items, summed per profile: Dirichlet(items) over profiles
    weights = np.repeat(rng.dirichlet(items.astype(float), size=n_sim), n_draw, axis=0)
    passing, stability, decision = {}, {}, {}
    holds: dict[str, dict[int, float]] = {"pass": {}, "fail": {}}
    se = margin_errors(table) * caution

    def decide_flat(d_sum: np.ndarray, d_sq: np.ndarray, count: np.ndarray) -> np.ndarray:
        return decisions_from_sums(
            d_sum, d_sq, count, epsilon=epsilon, q=q, min_items=min_items, min_humans=min_humans
        )

    def decide(d_sum: np.ndarray, d_sq: np.ndarray, count: np.ndarray) -> np.ndarray:
        return decide_flat(d_sum, d_sq, count).reshape(n_sim, n_draw)

    for n in sizes:
        d_sum, d_sq, count = margin_sums(rng.multinomial(n, weights), wf, wh, labelled)
        got = decide(d_sum, d_sq, count)
        # a pass counts only on the same samples with every margin (d) `caution` errors worse
        worse = decide(*worsened(d_sum, d_sq, count, se))
        passing[n] = float(np.mean(got == 1))
        failing = float(np.mean(got == 0))
        holds["pass"][n] = float(np.mean(np.mean(worse == 1, axis=1) >= target))
        holds["fail"][n] = float(np.mean(np.mean(got == 0, axis=1) >= target))
        decision[n] = "pass" if passing[n] > failing else "fail" if failing > passing[n] else "none"
        stability[n] = holds[decision[n]][n] if decision[n] != "none" else 0.0
    held = now if now != "none" else decision[sizes[-1]]
    # claimed only from the items on hand up: a smaller size is no action, and samples smaller
    # than the items on hand miss who labelled what (people who labelled some of the items get
    # fewer than 30 of a small sample in the population, though all of a small sample on hand)
    above = {n: share for n, share in holds[held].items() if n >= current} if held != "none" else {}
    needed = held_from(above, target) if above else None
    why = ""
    look_again: str | None = None
    if needed is None:
        # no size holds on this evidence: where a decision would hold at the next look
        at, look_again = look_again_at(
            (wf, wh, labelled, items), decide_flat, target=target, caution=caution,
            looks=n_sim, rng=rng,
        ) if forecast else (None, None)  # fmt: skip
        status, recommended = "cannot tell", None
        more = at - current if at is not None else 0
        why = why_not(table, now, epsilon=epsilon, caution=caution, min_items=min_items)
    else:
        status = "holds" if needed <= current else "label more"
        recommended, more = held, max(needed - current, 0)
    per_item = Counter(int(c) for c in table.labelled.sum(axis=1))
    out: dict[str, Any] = {
        "method": METHOD.format(
            n_sim=n_sim,
            n_draw=n_draw,
            current=current,
            epsilon=epsilon,
            q=q,
            target=target,
            caution=caution,
            seed=seed,
        ),
        "per_item_counts": dict(sorted(per_item.items())),
        "pass_probability": passing,
        "stability": stability,
        "decision": decision,
        "current": current,
        "current_decision": now,
        "status": status,
        "recommended": recommended,
        "needed": needed,
        "more": more,
    }
    out["advice"] = advice(out, target, caution, why=why, look_again=look_again, forecast=forecast)
    return out
