"""The rater-validation report's records (:mod:`core.views.rater_report.assemble` builds them,
:mod:`core.views.report_html` and the *Rater validation* page read them)."""

from __future__ import annotations

from typing import Any, TypedDict


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
    raters: list[dict[str, Any]]
    compare: list[CompareRow]
