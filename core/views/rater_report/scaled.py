"""The report's section for an auto-rater on a task other than side-by-side (yes/no verdicts,
categories, ordered ratings, label sets): the alt-test with the scale's metric, its sensitivity
to epsilon, agreement on the task's scale (:mod:`core.views.scale_agreement`) and how many more
items are needed. The side-by-side sections (position and length biases, people's time, the
disagreement sample with both answers) do not apply and are None."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from core.stats.alt_test_epsilon import EpsilonChoice
from core.views.rater_epsilon import sensitivity, sensitivity_sentence
from core.views.rater_report.costs import rater_cost
from core.views.rater_report.needed import needed_from_labels
from core.views.rater_report.records import RaterSection, Verdict
from core.views.rater_validation import choose_annotators, validate_or_why, validation_labels
from core.views.scale_agreement import scale_agreement
from core.views.task_scales import TaskScale, alignment_of

if TYPE_CHECKING:
    from core.store.engine import Database
    from core.views.validation_records import AltResult

#: The report's verdict in words: (rater, alt-test result or None, reason, epsilon words).
VerdictSentence = Callable[[str, "AltResult | None", str, str], Verdict]


def scaled_rater(
    db: Database,
    rater: str,
    ts: TaskScale,
    *,
    metric: str | None,
    choice: EpsilonChoice,
    q: float,
    include_slots: bool | None,
    n_sim: int,
    seed: int,
    verdict_sentence: VerdictSentence,
    needed: bool = True,
) -> RaterSection:
    """One auto-rater's section on task ``ts`` (``verdict_sentence``: the report's
    :func:`core.views.rater_report.assemble.verdict_sentence`; ``needed`` False: without the
    items-needed simulation, None)."""
    chosen, alignment = alignment_of(ts, metric)
    who = choose_annotators(db, rater, ts.task, include_slots)
    humans, mine = validation_labels(db, rater, ts.task, who.slots)
    alt, reason, short = validate_or_why(db, rater, ts.task, choice.epsilon, q, who.slots, chosen)
    curve = sensitivity(humans, mine, choice.epsilon, q, alignment) if alt else []
    wanted = (
        needed_from_labels(
            humans, mine, epsilon=choice.epsilon, q=q, n_sim=n_sim, seed=seed,
            alignment=alignment, queue=False,  # the validation queue holds side-by-side items
        )
        if needed
        else None
    )  # fmt: skip
    return {
        "rater": rater,
        "task": ts.task,
        "scale": ts.scale,
        "metric": chosen,
        "verdicts": len(mine),
        "annotators": who.kind,
        "annotators_text": who.sentence,
        "compared": sorted(humans),
        "alt": alt,
        "short": short,
        "verdict": verdict_sentence(rater, alt, reason, choice.words),
        "sensitivity": curve,
        "sensitivity_text": sensitivity_sentence(curve, choice) if curve else "",
        "scale_agreement": scale_agreement(db, rater, ts.task, who.slots),
        "agreement": None,
        "biases": None,
        "cost": rater_cost(db, rater, len(mine)),
        "time": None,
        "disagreements": None,
        "needed": wanted,
    }
