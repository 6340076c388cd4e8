"""The epsilon of a validation task, as the CLI, the report and the Rater validation page use
it: given on the command line (``--annotators`` or ``--epsilon``), else the task's remembered
choice (set on the page, :func:`core.annotation.rater_epsilon.remember_epsilon`), else the
paper's default (experts, 0.2); and the decision's sensitivity to it (read-only)."""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import TYPE_CHECKING, TypedDict

from core.errors import InputError
from core.stats.alt_test import Labels, check_parameters
from core.stats.alt_test_epsilon import (
    ANNOTATOR_WORDS,
    DEFAULT_CHOICE,
    EPSILON_BY_ANNOTATORS,
    EPSILON_GRID,
    EpsilonChoice,
    epsilon_choice,
    epsilon_curve,
    for_annotators,
)
from core.stats.alt_test_metrics import Alignment, accuracy
from core.store.settings import ALT_TEST_EPSILON, task_setting
from core.views.shared_reads import shared_table

if TYPE_CHECKING:
    from core.store.engine import Database

#: The page's choices: who labelled (the paper's table), or a number.
NUMBER = "number"
CHOICE_LABELS: dict[str, str] = {
    **{str(a): f"{ANNOTATOR_WORDS[a]} ({e:g})" for a, e in EPSILON_BY_ANNOTATORS.items()},
    NUMBER: "another number",
}


def stored_choice(db: Database, task: str) -> EpsilonChoice:
    """The choice remembered for ``task``, or the default (experts, 0.2) when none is stored or
    the stored one no longer reads."""
    text = task_setting(db, ALT_TEST_EPSILON, task)
    if not text:
        return DEFAULT_CHOICE
    try:
        return epsilon_choice(text)
    except InputError:
        return DEFAULT_CHOICE


def given_choice(
    annotators: str | None = None, epsilon: float | str | None = None
) -> EpsilonChoice | None:
    """``annotators`` (the paper's table) or ``epsilon`` (a number in [0, 1), also as text), not
    both; None when neither is given. InputError (one line) for a bad value."""
    if annotators is not None and epsilon is not None:
        raise InputError("give --annotators or --epsilon, not both")
    if annotators is not None:
        return for_annotators(annotators)
    if epsilon is not None:
        choice = epsilon_choice(str(epsilon))
        if choice.annotators:
            raise InputError(f"--epsilon takes a number in [0, 1); for {epsilon} use --annotators")
        return choice
    return None


def resolve_choice(
    db: Database,
    task: str,
    annotators: str | None = None,
    epsilon: float | str | None = None,
) -> EpsilonChoice:
    """:func:`given_choice`, else the task's stored choice (:func:`stored_choice`)."""
    return given_choice(annotators, epsilon) or stored_choice(db, task)


class SensitivityPoint(TypedDict):
    """The alt-test's outcome at one epsilon (:class:`core.stats.alt_test_epsilon.EpsilonPoint`)."""

    epsilon: float
    winning_rate: float
    advantage_prob: float
    passed: bool


def sensitivity(
    humans: Mapping[str, Mapping[Hashable, Labels]],
    rater: Mapping[Hashable, Labels],
    chosen: float,
    q: float,
    alignment: Alignment = accuracy,
) -> list[SensitivityPoint]:
    """The alt-test's winning rate, advantage probability and decision at epsilon 0, 0.01, ...,
    0.3 and at ``chosen`` (:func:`core.stats.alt_test_epsilon.epsilon_curve`), as plain dicts."""
    grid = (*EPSILON_GRID, chosen)
    check_parameters(min(grid), q)  # before the table, as epsilon_curve checks them
    table = shared_table(humans, rater, alignment)  # the rater's test's, in a report
    curve = epsilon_curve(humans, rater, q=q, grid=grid, alignment=alignment, table=table)
    return [
        {
            "epsilon": p.epsilon,
            "winning_rate": p.winning_rate,
            "advantage_prob": p.advantage_prob,
            "passed": p.passed,
        }
        for p in curve
    ]


def sensitivity_sentence(curve: list[SensitivityPoint], chosen: EpsilonChoice) -> str:
    """What the curve says in words: from which epsilon the rater passes, and the choice."""
    passing = [p["epsilon"] for p in curve if p["passed"]]
    top = max(p["epsilon"] for p in curve)
    where = (
        f"it passes from epsilon = {passing[0]:g}"
        if passing
        else f"it fails at every epsilon up to {top:g}"
    )
    return (
        f"The test rerun on the same labels at epsilon 0, 0.01, ..., 0.3: {where} (it passes at a "
        "winning rate of 50%; the advantage probability does not depend on epsilon). Chosen: "
        f"{chosen.words}."
    )
