"""Who labelled a validation task, remembered per task: the epsilon the alternative annotator
test uses there (:mod:`core.stats.alt_test_epsilon`; the Rater validation page sets it, the CLI
and the report read it through :func:`core.views.rater_epsilon.stored_choice`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.annotation.identity import authorise
from core.errors import InputError
from core.stats.alt_test_epsilon import EpsilonChoice, epsilon_choice
from core.store.connection import transaction
from core.store.settings import ALT_TEST_EPSILON, set_task_setting

if TYPE_CHECKING:
    from core.store.engine import Database


def remember_epsilon(db: Database, who: object, task: str, choice: str) -> EpsilonChoice:
    """Store ``choice`` (``experts``, ``skilled``, ``crowd`` or a number in [0, 1)) for ``task``
    as ``who`` (admin once accounts exist); return it. Bad input writes nothing."""
    if not task.strip():
        raise InputError("name the task whose epsilon is chosen")
    parsed = epsilon_choice(choice)
    with transaction(db):
        authorise(db, who, "admin")
        set_task_setting(db, ALT_TEST_EPSILON, task, parsed.text)
    return parsed
