"""The records of the alternative annotator test as the views give it
(:mod:`core.views.rater_validation` builds them; ``validate-rater --json`` prints them, the rater
report and the Rater validation page read them)."""

from __future__ import annotations

from typing import NotRequired, TypedDict, final


class HumanAlt(TypedDict):
    """One left-out person (:class:`core.stats.alt_test.HumanAltResult`)."""

    name: str
    items: int
    advantage: float  # the rater's, rho^f_j
    human_advantage: float  # the person's own, rho^h_j
    p_value: float
    rejected: bool


class Skipped(TypedDict):
    """A human left out of the test, and why."""

    name: str
    reason: str


class AltResult(TypedDict):
    """The alt-test of one auto-rater (:func:`core.views.rater_validation.result_json`)."""

    rater: str
    task: str
    scale: str
    metric: str
    epsilon: float
    q: float
    items: int
    humans: list[HumanAlt]
    winning_rate: float
    advantage_prob: float
    passed: bool
    skipped: list[Skipped]
    annotators: str  # "people" or "anonymous slots"
    annotators_text: str  # whom the rater is compared with, in a sentence
    epsilon_choice: NotRequired[str]  # how epsilon was chosen (``validate-rater`` adds it)


class Short(TypedDict, total=False):
    """What is still missing when too few were labelled (empty otherwise)."""

    humans_needed: int
    items_needed: dict[str, int]  # person -> more items they need


class CardRater(TypedDict):
    """One auto-rater's figures in the benchmark's card (:func:`core.views.benchmark_card.rater_validation`)."""

    rater: str
    decision: str  # "passes", "fails" or "not enough data"
    sentence: str
    advantage_prob: float | None
    winning_rate: float | None
    items: int | None
    gold_kappa: float | None
    gold_kappa_interval: str | None
    gold_agreement: float | None
    gold_agreement_interval: list[float | None]  # [low, high]


@final
class CardValidation(TypedDict):
    """The Rater validation page's figures, as the benchmark's card states them."""

    epsilon: float
    choice: str  # how epsilon was chosen
    q: float
    raters: list[CardRater]


@final
class CardValidationError(TypedDict):
    """Why the card has no rater validation."""

    error: str
