"""The rater-validation report's records (:mod:`core.views.rater_report.assemble` builds them,
:mod:`core.views.report_html` and the *Rater validation* page read them)."""

from __future__ import annotations

from typing import TYPE_CHECKING, NotRequired, TypedDict, final

from core.views.gold import KappaRow  # a base class: imported at run time

if TYPE_CHECKING:
    from core.annotation.label_task import HumanLabel
    from core.views.agreement_pairs import PairAgreement
    from core.views.agreement_view import SlotAgreement
    from core.views.ppi_records import JudgeWorth
    from core.views.rater_epsilon import SensitivityPoint
    from core.views.scale_records import ScaleAgreement
    from core.views.validation_records import AltResult, Short


class Verdict(TypedDict):
    """A rater's verdict in plain words (:func:`verdict_sentence`)."""

    status: str  # "passes", "fails" or "not enough data"
    sentence: str


class CompareRow(TypedDict):
    """One line of the compare table (:func:`compare_row`)."""

    rater: str
    status: str
    winning_rate: float | None
    advantage_prob: float | None
    items: int | None
    annotators: str
    gold_kappa: float | None
    people_gold_kappa: float | None
    usd_per_verdict: float | None


class ReportLabels(TypedDict):
    """The side-by-side labels a report reads once (:func:`core.views.rater_report.labels.report_labels`)."""

    auto: dict[str, dict[str, str]]  # auto-rater -> item -> label
    humans: dict[
        str, dict[str, dict[str, str]]
    ]  # "person" / "slot" / "aggregate" -> name -> item -> label
    rows: list[HumanLabel]  # the effective human label rows (timestamps, rationales)


class Share(TypedDict):
    """``k`` of ``n`` with its 95% Wilson interval (:func:`core.views.rater_report.biases.share`)."""

    k: int
    n: int
    share: float | None
    low: float | None
    high: float | None


class Comparison(KappaRow):
    """A :class:`KappaRow` with the percent agreement and its 95% Wilson interval."""

    agreement: float | None
    agreement_low: float | None
    agreement_high: float | None


class GoldComparison(Comparison):
    """The rater against leave-one-out gold, beside the people's kappa on the same pairs."""

    gold_items: int


class PersonComparison(Comparison):
    """The rater against one person."""

    name: str


class PeopleComparison(Comparison):
    """Two people against each other (the ceiling)."""

    a: str
    b: str


class GroupComparison(Comparison):
    """The rater against the people's majority in one question type, category or document."""

    group: str


class ByGroup(TypedDict):
    """Agreement with the people's majority by ``grouping`` ("question type", ...)."""

    grouping: str
    rows: list[GroupComparison]


class CrowdComparison(TypedDict):
    """The rater against one crowd aggregate."""

    name: str
    with_ties: PairAgreement
    without_ties: PairAgreement


class AgreementSection(TypedDict):
    """The report's side-by-side agreement (:func:`core.views.rater_report.agreement.agreement_section`)."""

    gold: GoldComparison
    people: list[PersonComparison]
    ceiling: list[PeopleComparison]
    crowd: list[CrowdComparison]
    slot_ceiling: list[SlotAgreement]
    by_group: ByGroup


class PositionBias(TypedDict):
    """Both orders disagreeing, and the first-shown answer winning (rater and people)."""

    both_orders: Share
    first_shown: Share
    people_first_shown: Share


class LengthBias(TypedDict):
    """The longer answer winning, for the rater and for the people."""

    rater: Share
    people: Share


class SelfPreference(TypedDict):
    """The rater's own model family's systems winning; the shares only when it ``applies``."""

    family: str
    own_systems: list[str]
    applies: bool
    rater: NotRequired[Share]
    people: NotRequired[Share]


class BiasSection(TypedDict):
    """Position, length, self-preference and ties (:func:`core.views.rater_report.biases.bias_section`)."""

    position: PositionBias
    length: LengthBias
    self_preference: SelfPreference
    ties: dict[str, dict[str, Share]]  # "rater" / "people" -> "Equal" / "None" -> share


class PersonTime(TypedDict):
    """One person's labels, gaps and median seconds per label (None without a gap)."""

    labels: int
    gaps: int
    median_s: float | None


class PeopleTime(TypedDict):
    """The people's time per label (:func:`core.views.rater_report.costs.people_time`)."""

    per_person: dict[str, PersonTime]
    gaps: int
    median_s: float | None
    max_gap_s: float
    rule: str


class PersonLabel(TypedDict):
    """A person's label and rationale on a disagreement."""

    name: str
    label: str
    rationale: str


class Disagreement(TypedDict):
    """One item the rater and the people's majority disagree on, with both answers."""

    item: str
    question_id: str
    question: str
    first: str
    second: str
    answer_first: str
    answer_second: str
    rater_label: str
    majority_label: str
    rationale: str
    quotes: list[str]
    people: list[PersonLabel]
    link: str


class DisagreementSample(TypedDict):
    """How many shared items disagree, and a stable sample of them."""

    total: int
    shown: list[Disagreement]


@final
class Needed(TypedDict):
    """The items-needed simulation (:func:`core.stats.alt_test_power.items_needed`; its
    per-size maps keyed by the number of items) and ``to_queue``."""

    method: str
    per_item_counts: dict[int, int]
    pass_probability: dict[int, float]
    stability: dict[int, float]
    decision: dict[int, str]
    current: int
    current_decision: str
    status: str  # "holds", "label more" or "cannot tell"
    recommended: str | None
    needed: int | None
    more: int
    advice: str
    to_queue: int | None  # None when the task's items are not queued


@final
class NeededError(TypedDict):
    """Why there is no simulation."""

    error: str


class RaterCost(TypedDict):
    """An auto-rater's cost (:func:`rater_cost`)."""

    calls: int
    cost_usd: float
    verdicts: int
    usd_per_verdict: float | None  # None without recorded calls
    note: str


class RaterSection(TypedDict):
    """One auto-rater's section: :func:`core.views.rater_report.assemble.one_rater` (side by
    side: ``ranking``, and every section) or :func:`core.views.rater_report.scaled.scaled_rater`
    (another task: ``task``, ``scale``, ``metric`` and ``scale_agreement``; the side-by-side
    sections None)."""

    rater: str
    task: NotRequired[str]
    scale: NotRequired[str]
    metric: NotRequired[str]
    verdicts: int
    annotators: str
    annotators_text: str
    compared: list[str]
    alt: AltResult | None
    short: Short
    verdict: Verdict
    sensitivity: list[SensitivityPoint]
    sensitivity_text: str
    scale_agreement: NotRequired[ScaleAgreement]
    agreement: AgreementSection | None
    biases: BiasSection | None
    cost: RaterCost
    time: PeopleTime | None
    disagreements: DisagreementSample | None
    needed: Needed | NeededError | None  # None: left out (computed one rater at a time)
    ranking: NotRequired[JudgeWorth]


class RaterReport(TypedDict):
    """A rater-validation report (:func:`report_data`): ``raters`` holds one section per
    auto-rater (:func:`one_rater`, or :func:`core.views.rater_report.scaled.scaled_rater` off
    side-by-side), ranked by advantage probability."""

    title: str
    generated_at: str
    task: str
    scale: str
    epsilon: float
    epsilon_choice: str
    q: float
    epsilon_text: str
    base_url: str
    raters: list[RaterSection]
    compare: list[CompareRow]
