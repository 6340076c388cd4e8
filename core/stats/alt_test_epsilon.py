"""Which epsilon the alternative annotator test (:mod:`core.stats.alt_test`) uses, and how its
decision moves with epsilon.

Epsilon is the allowance the test gives the auto-rater for being cheaper and faster than the
people it would replace: the human ``j`` counts as beaten when ``rho^f_j >= rho^h_j - epsilon``.
The more a person costs, the more replacing them saves, so the larger the allowance. Calderon,
Reichart & Dror (2025, "The Alternative Annotator Test for LLM-as-a-Judge", section 3 and the
authors' FAQ) set it by who the people are:

=====================  =======
annotators             epsilon
=====================  =======
experts                0.2
skilled annotators     0.15
crowd workers          0.1
=====================  =======

:data:`EPSILON_BY_ANNOTATORS` is that table, the one mapping the CLI (``--annotators``), the
report and the Rater validation page use; :func:`epsilon_curve` reruns the test over a grid of
epsilons (0 to 0.3) to show how sensitive the decision is. The winning rate is non-decreasing in
epsilon (a larger epsilon lowers every p-value, and Benjamini-Yekutieli then rejects at least as
many); the advantage probability ``rho = mean_j rho^f_j`` does not depend on epsilon.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

from core.errors import InputError
from core.stats.alt_test import (
    IndicatorTable,
    Labels,
    alt_test_over,
    check_parameters,
    indicator_table,
)
from core.stats.alt_test_metrics import Alignment, accuracy


class Annotators(enum.StrEnum):
    """Who labelled the items the auto-rater would take over."""

    EXPERTS = "experts"
    SKILLED = "skilled"
    CROWD = "crowd"


#: The paper's table: who the people are -> epsilon.
EPSILON_BY_ANNOTATORS: Mapping[Annotators, float] = MappingProxyType(
    {Annotators.EXPERTS: 0.2, Annotators.SKILLED: 0.15, Annotators.CROWD: 0.1}
)
#: The words for each kind of annotator in sentences and choices.
ANNOTATOR_WORDS: Mapping[Annotators, str] = MappingProxyType(
    {
        Annotators.EXPERTS: "experts",
        Annotators.SKILLED: "skilled annotators",
        Annotators.CROWD: "crowd workers",
    }
)
#: Used when nobody said who labelled: the paper's default epsilon, 0.2.
DEFAULT_ANNOTATORS = Annotators.EXPERTS
#: The epsilons of the sensitivity curve: 0, 0.01, ..., 0.3.
EPSILON_GRID: tuple[float, ...] = tuple(round(i / 100, 2) for i in range(31))

#: The guidance in one sentence (CLI help, report, page, docs).
EPSILON_GUIDANCE = (
    "The paper sets epsilon by who labelled: "
    + ", ".join(
        f"{EPSILON_BY_ANNOTATORS[a]:g} for {ANNOTATOR_WORDS[a]}" for a in EPSILON_BY_ANNOTATORS
    )
    + " (replacing an expert saves the most, so it allows the most); a smaller epsilon asks "
    "more of the auto-rater. Choose it before looking at the result."
)


@dataclass(frozen=True)
class EpsilonChoice:
    """An epsilon and where it comes from: ``annotators`` (the paper's table) or None for a
    number given as it is."""

    epsilon: float
    annotators: Annotators | None = None

    @property
    def text(self) -> str:
        """The choice as it is stored and given on the command line: a kind or a number."""
        return str(self.annotators) if self.annotators else f"{self.epsilon:g}"

    @property
    def words(self) -> str:
        """E.g. ``0.1 (crowd workers)`` or ``0.12 (a chosen number)``."""
        why = ANNOTATOR_WORDS[self.annotators] if self.annotators else "a chosen number"
        return f"{self.epsilon:g} ({why})"


def for_annotators(annotators: str) -> EpsilonChoice:
    """The paper's epsilon for ``annotators`` (``experts``, ``skilled`` or ``crowd``)."""
    try:
        kind = Annotators(annotators)
    except ValueError:
        raise InputError(
            f"annotators must be one of {', '.join(Annotators)}, not {annotators!r}"
        ) from None
    return EpsilonChoice(EPSILON_BY_ANNOTATORS[kind], kind)


def epsilon_choice(text: str) -> EpsilonChoice:
    """``experts`` / ``skilled`` / ``crowd`` (the paper's table) or a number in [0, 1)."""
    text = str(text).strip()
    if text in tuple(Annotators):
        return for_annotators(text)
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 <= value < 1:  # also NaN and text that is no number
        raise InputError(
            f"epsilon must be one of {', '.join(Annotators)} or a number in [0, 1), not {text!r}"
        )
    return EpsilonChoice(value)


DEFAULT_CHOICE = for_annotators(DEFAULT_ANNOTATORS)


@dataclass(frozen=True)
class EpsilonPoint:
    """The alt-test's outcome at one epsilon."""

    epsilon: float
    winning_rate: float
    advantage_prob: float
    passed: bool


def epsilon_curve(
    humans: Mapping[str, Mapping[Hashable, Labels]],
    rater: Mapping[Hashable, Labels],
    *,
    q: float = 0.05,
    grid: Sequence[float] = EPSILON_GRID,
    min_items: int = 30,
    min_humans: int = 3,
    alignment: Alignment = accuracy,
    table: IndicatorTable | None = None,
) -> list[EpsilonPoint]:
    """The alt-test (:func:`core.stats.alt_test.alt_test`, the same labels) rerun at each epsilon
    of ``grid`` (sorted, duplicates dropped), on one indicator table: the per-item indicators do
    not depend on epsilon, so they are computed once. Raises what ``alt_test`` raises (e.g.
    :class:`core.stats.alt_test.NotEnoughLabels`). ``table``: that table when already built
    from these labels with ``alignment``."""
    epsilons = sorted(set(grid))
    if not epsilons:
        return []
    check_parameters(epsilons[0], q)  # before the table, as alt_test checks them
    if table is None:
        table = indicator_table(humans, rater, alignment)
    results = alt_test_over(table, epsilons, q=q, min_items=min_items, min_humans=min_humans)
    return [
        EpsilonPoint(eps, r.winning_rate, r.advantage_prob, r.passed)
        for eps, r in zip(epsilons, results, strict=True)
    ]
