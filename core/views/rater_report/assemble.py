"""One rater-validation report: for each auto-rater the alternative annotator test (Calderon,
Reichart and Dror, 2025) and the evidence around it, ranked by advantage probability.

:func:`report_data` returns plain data (dicts, lists, numbers, text) and never writes:
:mod:`core.views.report_html` renders it, the CLI ``rater-report`` and the *Rater validation*
page call it. Side-by-side verdicts get every section; any other task (yes/no verdicts, categories,
ordered ratings, label sets) the alt-test on its scale and agreement on it
(:mod:`core.views.rater_report.scaled`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from core.annotation.task_names import SIDE_BY_SIDE_TASK
from core.errors import InputError
from core.stats.alt_test_epsilon import EPSILON_GUIDANCE, EpsilonChoice, epsilon_choice
from core.stats.alt_test_metrics import accuracy
from core.store.settings import SETTINGS, url_setting
from core.views.ppi_ranking import judge_worth
from core.views.rater_epsilon import resolve_choice, sensitivity, sensitivity_sentence
from core.views.rater_report.agreement import agreement_section, auto_people_kappas
from core.views.rater_report.biases import bias_section
from core.views.rater_report.costs import people_time, rater_cost
from core.views.rater_report.evidence import disagreement_sample
from core.views.rater_report.labels import compared_humans, majority, report_labels
from core.views.rater_report.needed import N_SIM, SEED, Q, needed_from_labels
from core.views.rater_report.records import (
    CompareRow,
    RaterReport,
    RaterSection,
    ReportLabels,
    Verdict,
)
from core.views.rater_report.scaled import scaled_rater
from core.views.rater_validation import (
    auto_raters,
    choose_annotators,
    validate_or_why,
    validation_labels,
)
from core.views.shared_reads import shared_reads
from core.views.task_scales import alignment_of, task_scale, validation_tasks

if TYPE_CHECKING:
    from core.store.engine import Database
    from core.views.validation_records import AltResult

TASK = SIDE_BY_SIDE_TASK

EPSILON_TEXT = (
    "epsilon is the allowance the test gives the auto-rater for being cheaper. For each person, "
    "the advantage is the share of items on which one agrees with the other people at least as "
    "well as the other does; the person counts as beaten when a one-sided t-test shows their "
    "advantage over the auto-rater's to be below epsilon (Benjamini-Yekutieli over the people "
    "at level q). " + EPSILON_GUIDANCE
)


def verdict_sentence(
    rater: str, alt: AltResult | None, reason: str = "", epsilon_words: str = ""
) -> Verdict:
    """``{"status": "passes" | "fails" | "not enough data", "sentence"}`` in plain words
    (``epsilon_words``: the epsilon and why, e.g. ``0.1 (crowd workers)``)."""
    if alt is None:
        return {
            "status": "not enough data",
            "sentence": f"{rater}: not enough data to decide: {reason}".strip(),
        }
    tested = len(alt["humans"])
    beaten = sum(h["rejected"] for h in alt["humans"])
    who = "anonymous crowd slots" if alt["annotators"] == "anonymous slots" else "people"
    status = "passes" if alt["passed"] else "fails"
    relation = ">=" if alt["passed"] else "<"
    sentence = (
        f"{rater} {status} the alternative annotator test at epsilon = "
        f"{epsilon_words or format(alt['epsilon'], 'g')}: it "
        f"wins against {beaten} of {tested} {who} (winning rate {alt['winning_rate']:.0%} "
        f"{relation} 50%) on {alt['items']} items; advantage probability "
        f"{alt['advantage_prob']:.2f}."
    )
    return {"status": status, "sentence": sentence}


def one_rater(
    db: Database,
    rater: str,
    labels: ReportLabels,
    *,
    choice: EpsilonChoice,
    q: float,
    include_slots: bool | None,
    base_url: str,
    n_sim: int,
    n_boot: int,
    seed: int,
    sample: int,
    gold: Mapping[str, float | None] | None = None,
    needed: bool = True,
) -> RaterSection:
    """Every section of the report for one auto-rater (``gold``: the people's kappa against
    leave-one-out gold on each auto-rater's pairs, :func:`auto_people_kappas`; ``needed``
    False: the items-needed simulation left out, None)."""
    epsilon = choice.epsilon
    mine = labels["auto"].get(rater, {})
    who = choose_annotators(db, rater, TASK, include_slots)  # the one rule, as in the CLI
    slots_used = who.slots
    humans = compared_humans(labels, slots_used)
    alt, reason, short = validate_or_why(db, rater, TASK, epsilon, q, slots_used)
    alt_humans, alt_mine = validation_labels(db, rater, TASK, slots_used)
    reference = majority(humans)
    curve = sensitivity(alt_humans, alt_mine, epsilon, q) if alt else []
    return {
        "rater": rater,
        "verdicts": len(mine),
        "annotators": who.kind,
        "annotators_text": who.sentence,
        "compared": sorted(humans),
        "alt": alt,
        "short": short,
        "verdict": verdict_sentence(rater, alt, reason, choice.words),
        "sensitivity": curve,
        "sensitivity_text": sensitivity_sentence(curve, choice) if curve else "",
        "agreement": agreement_section(
            db, rater, mine, humans, labels, slots_used, n_boot, seed, people_kappas=gold
        ),
        "biases": bias_section(db, rater, mine, humans),
        "cost": rater_cost(db, rater, len(mine)),
        "time": people_time(labels["rows"], sorted(humans)),
        "disagreements": disagreement_sample(
            db, rater, mine, reference, labels["rows"], k=sample, seed=seed, base_url=base_url
        ),
        "needed": needed_from_labels(
            alt_humans,
            alt_mine,
            epsilon=epsilon,
            q=q,
            n_sim=n_sim,
            seed=seed,
            alignment=accuracy,
            queue=True,
        )
        if needed
        else None,  # fmt: skip
        "ranking": judge_worth(db, rater, [f"human:{name}" for name in sorted(humans)]),
    }


def _rank_key(section: RaterSection) -> tuple[float, str]:
    alt = section["alt"]
    value = alt["advantage_prob"] if alt else -math.inf
    return (-value, section["rater"])


@shared_reads()  # the rows and the people's figures read once for every rater
def report_data(
    db: Database,
    raters: Sequence[str] | None = None,
    *,
    epsilon: float | None = None,
    annotators: str | None = None,
    q: float = Q,
    include_slots: bool | None = None,
    base_url: str | None = None,
    n_sim: int = N_SIM,
    n_boot: int = 500,
    seed: int = SEED,
    sample: int = 6,
    task: str | None = None,
    metric: str | None = None,
    needed: bool = True,
) -> RaterReport:
    """The report of ``raters`` (default: every auto-rater with verdicts in ``task``), ranked
    by advantage probability (raters without a test result last), and the compare rows.

    ``annotators`` (``experts``, ``skilled``, ``crowd``) or ``epsilon``: the alt-test's epsilon;
    neither: the task's remembered choice (:func:`core.views.rater_epsilon.resolve_choice`).
    ``include_slots``: :func:`core.views.rater_validation.choose_annotators` (None: anonymous
    slots stand in for people only for a rater no named person shares an item with, and each
    section's ``annotators_text`` says so). ``base_url``: the app's address, for absolute item
    links (None: the ``base_url`` setting; "": relative links); like the setting, only an
    ``http(s)://`` address (InputError otherwise: a ``javascript:`` base would run in the
    reader's browser). ``task``: the task compared (:func:`report_task`); ``metric``: the
    alt-test's alignment (default the task's scale's). ``needed`` False: each section's
    items-needed simulation (the costliest part) is left out, None
    (:mod:`core.views.rater_report.needed` computes it one rater at a time).
    """
    task = report_task(db, task)
    ts = task_scale(db, task)
    alignment_of(ts, metric)  # a metric the labels do not allow: refused before any work
    if base_url is None:
        base_url = url_setting(db, "base_url")
    base_url = str(SETTINGS["base_url"].parse("base_url", base_url))
    known = auto_raters(db, task)
    chosen = list(raters) if raters else known
    if not chosen:
        raise InputError(f"no auto-rater has verdicts in task {task}: nothing to validate")
    unknown = [r for r in chosen if r not in known]
    if unknown:
        hint = f" (auto-raters with them: {', '.join(known)})" if known else ""
        raise InputError(f"no {task} verdicts of {', '.join(unknown)}{hint}")
    if not 0 < q < 1:
        raise InputError(f"q must be between 0 and 1, got {q}")
    choice = resolve_choice(db, task, annotators, epsilon)
    if task != TASK:
        sections = [
            scaled_rater(
                db,
                r,
                ts,
                metric=metric,
                choice=choice,
                q=q,
                include_slots=include_slots,
                n_sim=n_sim,
                seed=seed,
                verdict_sentence=verdict_sentence,
                needed=needed,
            )
            for r in dict.fromkeys(chosen)
        ]
        return _report(sections, task, ts.scale, choice, q, base_url)
    labels = report_labels(db)
    gold = auto_people_kappas(db)
    sections = [
        one_rater(
            db,
            r,
            labels,
            choice=choice,
            q=q,
            include_slots=include_slots,
            base_url=base_url,
            n_sim=n_sim,
            n_boot=n_boot,
            seed=seed,
            sample=sample,
            gold=gold,
            needed=needed,
        )
        for r in dict.fromkeys(chosen)
    ]
    return _report(sections, TASK, ts.scale, choice, q, base_url)


def report_task(db: Database, task: str | None) -> str:
    """The task a report compares: ``task`` when given, else side-by-side when an auto-rater
    has side-by-side verdicts, else the first task with an auto-rater's labels (InputError when
    there is none)."""
    if task is not None:
        task_scale(db, task)  # an unknown task: one error naming the tasks there are
        return task
    tasks = validation_tasks(db)
    with_raters = [t for t in tasks if auto_raters(db, t)]
    if not with_raters:
        raise InputError(
            "no auto-rater has verdicts in any task (" + ", ".join(tasks) + "): nothing to validate"
        )
    return with_raters[0]


def report_tasks(db: Database) -> list[str]:
    """The tasks the Rater validation page offers: those with an auto-rater's labels
    (side-by-side first), else side-by-side alone (whose report then says there is none)."""
    return [t for t in validation_tasks(db) if auto_raters(db, t)] or [TASK]


def first_task(tasks: Sequence[str]) -> str:
    """The task the Rater validation page opens on (and the warm-up computes): side-by-side
    when offered, else the first of :func:`report_tasks`."""
    return TASK if TASK in tasks else tasks[0]


def _report(
    sections: list[RaterSection],
    task: str,
    scale: str,
    choice: EpsilonChoice,
    q: float,
    base_url: str,
) -> RaterReport:
    """The report's data around its ``sections`` (ranked by advantage probability)."""
    sections.sort(key=_rank_key)
    return {
        "title": "Rater validation",
        "generated_at": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "task": task,
        "scale": scale,
        "epsilon": choice.epsilon,
        "epsilon_choice": choice.words,
        "q": q,
        "epsilon_text": EPSILON_TEXT,
        "base_url": base_url,
        "raters": sections,
        "compare": [compare_row(s) for s in sections],
    }


def compare_row(section: RaterSection) -> CompareRow:
    """One line of the compare table: the verdict, rates, gold kappa, cost per verdict."""
    alt, scaled, agreement = section["alt"], section.get("scale_agreement"), section["agreement"]
    kappa: float | None = None
    people_kappa: float | None = None
    if scaled is not None:
        kappa, people_kappa = scaled["gold"]["rater"]["kappa"], scaled["gold"]["people"]["kappa"]
    elif agreement is not None:
        kappa, people_kappa = agreement["gold"]["kappa"], agreement["gold"].get("people_kappa")
    return {
        "rater": section["rater"],
        "status": section["verdict"]["status"],
        "winning_rate": alt["winning_rate"] if alt else None,
        "advantage_prob": alt["advantage_prob"] if alt else None,
        "items": alt["items"] if alt else None,
        "annotators": section["annotators"],
        "gold_kappa": kappa,
        "people_gold_kappa": people_kappa,
        "usd_per_verdict": section["cost"]["usd_per_verdict"],
    }


def report_for_choice(
    db: Database, choice: str, task: str = TASK, needed: bool = True
) -> RaterReport:
    """:func:`report_data` of every auto-rater of ``task`` at ``choice`` (``experts``,
    ``skilled``, ``crowd`` or a number), for the page's cache (positional arguments only;
    ``needed`` False: without the items-needed simulation, which the page computes for the open
    tab only, :func:`core.views.rater_report.needed.rater_needed_for_choice`)."""
    picked = epsilon_choice(choice)
    if picked.annotators:
        return report_data(db, annotators=picked.annotators, task=task, needed=needed)
    return report_data(db, epsilon=picked.epsilon, task=task, needed=needed)
