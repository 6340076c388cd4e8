"""How many more doubly-labelled items an auto-rater needs (the simulation of
:mod:`core.stats.alt_test_power`), one rater at a time.

It is the report's costliest part (seconds per rater on a thousand items: the alt-test is rerun on
thousands of resampled sets of items), so the *Rater validation* page computes it only for the
rater whose tab is open (:func:`rater_needed_for_choice`, cached) and the whole report when it is
downloaded (:func:`with_needed`); ``rater-report`` computes it for every rater, with the same
figures (:func:`core.views.rater_report.assemble.report_data` calls :func:`needed_from_labels`).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import TYPE_CHECKING

from core.annotation.task_names import SIDE_BY_SIDE_TASK
from core.errors import InputError
from core.stats.alt_test_epsilon import epsilon_choice
from core.stats.alt_test_metrics import Alignment
from core.stats.alt_test_power import items_needed
from core.views.rater_report.records import Needed, NeededError, RaterReport
from core.views.rater_validation import choose_annotators, validation_labels
from core.views.shared_reads import shared_table
from core.views.task_scales import alignment_of, task_scale

if TYPE_CHECKING:
    from core.store.engine import Database

#: The report's simulation settings (``report_data``'s defaults; the page uses these).
N_SIM, SEED, Q = 200, 0, 0.05
#: The only task whose items the validation queue holds (``to_queue``).
QUEUED_TASK = SIDE_BY_SIDE_TASK


def needed_from_labels(
    humans: Mapping[str, Mapping[Hashable, list[str]]],
    mine: Mapping[Hashable, list[str]],
    *,
    epsilon: float,
    q: float,
    n_sim: int,
    seed: int,
    alignment: Alignment,
    queue: bool,
) -> Needed | NeededError:
    """The items-needed simulation of ``mine`` against ``humans``, with ``to_queue`` (more
    doubly-labelled items to queue: up to the size from which the decision holds, or to look
    again; None when ``queue`` is False, the task's items not being queued) or why there is
    none (``{"error": ...}``)."""
    if not humans or not mine:
        return {"error": "no human shares an item with this rater yet: nothing to simulate"}
    try:
        table = shared_table(humans, mine, alignment)  # the rater's test's, in a report
        sim = items_needed(
            humans, mine, epsilon=epsilon, q=q, n_sim=n_sim, seed=seed, alignment=alignment,
            table=table,
        )  # fmt: skip
    except InputError as exc:
        return {"error": str(exc)}
    return {
        "method": sim["method"],
        "per_item_counts": sim["per_item_counts"],
        "pass_probability": sim["pass_probability"],
        "stability": sim["stability"],
        "decision": sim["decision"],
        "current": sim["current"],
        "current_decision": sim["current_decision"],
        "status": sim["status"],
        "recommended": sim["recommended"],
        "needed": sim["needed"],
        "more": sim["more"],
        "advice": sim["advice"],
        "to_queue": sim["more"] if queue else None,
    }


def rater_needed(
    db: Database,
    rater: str,
    task: str,
    *,
    epsilon: float,
    q: float = Q,
    include_slots: bool | None = None,
    n_sim: int = N_SIM,
    seed: int = SEED,
    metric: str | None = None,
) -> Needed | NeededError:
    """``rater``'s ``needed`` section of the report on ``task``: the same labels (the people
    :func:`choose_annotators` picks) and figures as :func:`report_data` gives it."""
    _, alignment = alignment_of(task_scale(db, task), metric)
    who = choose_annotators(db, rater, task, include_slots)
    humans, mine = validation_labels(db, rater, task, who.slots)
    return needed_from_labels(
        humans,
        mine,
        epsilon=epsilon,
        q=q,
        n_sim=n_sim,
        seed=seed,
        alignment=alignment,
        queue=task == QUEUED_TASK,
    )


def rater_needed_for_choice(
    db: Database, choice: str, task: str, rater: str
) -> Needed | NeededError:
    """:func:`rater_needed` at ``choice`` (``experts``, ``skilled``, ``crowd`` or a number), the
    report's other settings as ``report_for_choice`` uses them: for the page's cache."""
    return rater_needed(db, rater, task, epsilon=epsilon_choice(choice).epsilon)


def with_needed(data: RaterReport, needed: Mapping[str, Needed | NeededError]) -> RaterReport:
    """A copy of the report ``data`` with each rater's ``needed`` section from ``needed`` (rater
    -> section) where it has none."""
    out = data.copy()
    out["raters"] = [
        {**sec, "needed": needed[sec["rater"]]} if sec.get("needed") is None else sec
        for sec in data["raters"]
    ]
    return out
