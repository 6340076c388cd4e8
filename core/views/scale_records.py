"""The records of agreement on a task's own scale (:mod:`core.views.scale_agreement` builds them;
the rater report, its HTML and the Agreement page read them)."""

from __future__ import annotations

from typing import NotRequired, TypedDict


class PairFigures(TypedDict):
    """Two label lists compared (:func:`core.views.scale_agreement.pair_figures`); None where a
    figure is undefined (no items, or a kappa with one label only)."""

    n: int
    agreement: float | None
    kappa: float | None
    weighted_kappa: float | None  # ordinal scales only
    ac1: float | None
    why: NotRequired[str]  # the kappa-paradox sentence, when kappa is low at high agreement


class PersonFigures(PairFigures):
    """The rater against one person."""

    name: str


class PeoplePair(PairFigures):
    """Two people against each other (the ceiling)."""

    a: str
    b: str


class Prevalence(TypedDict):
    """Each label's share of the people's and of the rater's labels."""

    people: dict[str, float]
    rater: dict[str, float]


class ScaleGold(TypedDict):
    """The rater and the people against leave-one-out gold (the other people's majority)."""

    pairs: int  # (person, item) pairs with gold that the rater labelled too
    items: int  # items with gold
    rater: PairFigures
    people: PairFigures


class AmongPeople(TypedDict):
    """The people's labels alone: each pair's figures and Krippendorff's alpha by level."""

    pairs: list[PeoplePair]
    alpha: dict[str, float | None]  # "nominal" (and "ordinal", "interval" on an ordered scale)


class ScaleAgreement(TypedDict):
    """Agreement of one rater on a task's scale
    (:func:`core.views.scale_agreement.scale_agreement`)."""

    task: str
    scale: str
    labels: list[str]
    annotators_text: str
    prevalence: Prevalence
    people: list[PersonFigures]
    gold: ScaleGold
    among_people: AmongPeople


#: One line of the agreement table (:func:`core.views.scale_agreement.scale_rows`); its keys
#: are the table's column headings.
ScaleRow = TypedDict(
    "ScaleRow",
    {
        "compared with": str,
        "items": int,
        "agreement": float | None,
        "Cohen's kappa": float | None,
        "Gwet's AC1": float | None,
        "weighted kappa (quadratic)": NotRequired[float | None],  # ordinal scales only
    },
)


class TaskRater(TypedDict):
    """One auto-rater's agreement on a task, as the Agreement page shows it."""

    rater: str
    annotators_text: str
    rows: list[ScaleRow]
    notes: list[str]


class TaskAgreement(TypedDict):
    """The Agreement page's view of a task on its scale
    (:func:`core.views.scale_agreement.task_agreement`)."""

    task: str
    scale: str
    labels: list[str]
    raters: list[TaskRater]
