"""People label a custom task in the app (:mod:`core.annotation.custom_tasks` defines it).

A label is a judgment of kind ``label`` (``criterion`` = the task) on the item's question and
system, stored for the signed-in person only (:func:`core.annotation.identity.authorise`);
a second label by the same person on the item supersedes the first, and :func:`undo_label`
withdraws their latest one (a ``withdrawn`` row superseding it): rows are only ever appended.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from core.annotation.base import UNCHECKED, marker_text, refuse_stale
from core.annotation.identity import Annotator, authorise
from core.annotation.label_tasks.custom import APP_CONTEXT, CustomLabelTask, label_set
from core.annotation.task_registry import task_named
from core.errors import InputError
from core.store.connection import retry_when_busy, transaction
from core.store.custom_tasks import TaskItem
from core.store.judgments import (
    Judgment,
    JudgmentKind,
    JudgmentStatus,
    NewJudgment,
    RaterKind,
    effective_judgments,
    insert_judgment,
)
from core.store.label_scales import Scale
from core.store.row_locks import hold_item, hold_label, hold_person

if TYPE_CHECKING:
    from core.store.engine import Database


def custom_label_task(db: Database, task: str) -> CustomLabelTask:
    """The custom task ``task`` (InputError: unknown, or a built-in task)."""
    found = task_named(task, db)
    if not isinstance(found, CustomLabelTask):
        raise InputError(f"{task!r} is a built-in task with its own page")
    return found


def task_item(db: Database, task: CustomLabelTask, item: str) -> TaskItem:
    """Item ``item`` of ``task`` (InputError when it has none of that key)."""
    found = next((i for i in task.item_rows(db) if i.item == str(item)), None)
    if found is None:
        raise InputError(f"task {task.name!r} has no item {item!r}; nothing was stored")
    return found


def own_label(db: Database, rater: str, task: str, item: TaskItem) -> Judgment | None:
    """``rater``'s effective row (any status) on ``item`` of ``task``, or None."""
    rows = effective_judgments(
        db, kind=JudgmentKind.LABEL, rater=rater, criterion=task, question_id=item.question_id
    )
    mine = [j for j in rows if (j.system or "") == (item.system or "")]
    return mine[-1] if mine else None


def canonical_label(task: CustomLabelTask, label: str | Sequence[str]) -> str:
    """The stored form of ``label`` (multilabel: a sequence of labels, stored as their sorted
    JSON list); InputError for a label outside the task's."""
    allowed = task.scale.labels
    if task.scale.scale == Scale.MULTILABEL:
        chosen = [label] if isinstance(label, str) else list(label)
        wrong = [x for x in chosen if x not in allowed]
        if wrong:
            raise InputError(
                f"{wrong[0]!r} is not a label of task {task.name!r} ({', '.join(allowed)}); "
                "nothing was stored"
            )
        return label_set(chosen)
    if not isinstance(label, str) or label not in allowed:
        raise InputError(
            f"label must be one of {', '.join(allowed)} (task {task.name!r}); nothing was stored"
        )
    return label


@retry_when_busy
def label_item(
    db: Database,
    who: Annotator,
    task: str,
    item: str,
    label: str | Sequence[str],
    rationale: str = "",
    *,
    expected_id: int | None = UNCHECKED,
) -> int:
    """Store the signed-in ``who``'s ``label`` of ``item`` of custom task ``task`` (a multilabel
    task: the set of labels chosen, maybe empty); returns the new row's id. ``expected_id``: the
    id of their own row on the item when the page loaded it (None: none); refused when it
    changed since (:class:`core.annotation.base.StaleLabelError`)."""
    found = custom_label_task(db, task)
    verdict = canonical_label(found, label)
    place = task_item(db, found, item)
    with transaction(db):
        rater = authorise(db, who).rater
        hold_label(db, found.name, rater, place.item)
        old = own_label(db, rater, found.name, place)
        refuse_stale(expected_id, old.id if old else None, stored_text(old))
        return insert_judgment(
            db,
            NewJudgment(
                kind=JudgmentKind.LABEL,
                question_id=place.question_id,
                rater=rater,
                rater_kind=RaterKind.HUMAN,
                criterion=found.name,
                system=place.system,
                verdict=verdict,
                rationale=rationale,
                context_kind=APP_CONTEXT,
                supersedes=old.id if old else None,
            ),
        )


def last_label(db: Database, rater: str, task: str) -> Judgment | None:
    """``rater``'s latest effective label of ``task`` made in the app (what an undo takes)."""
    rows = effective_judgments(db, kind=JudgmentKind.LABEL, rater=rater, criterion=task)
    mine = [
        j
        for j in rows
        if j.context_kind == APP_CONTEXT and j.status in (JudgmentStatus.OK, JudgmentStatus.SKIPPED)
    ]
    return mine[-1] if mine else None


@retry_when_busy
def undo_label(db: Database, who: Annotator, task: str) -> int | None:
    """Withdraw the signed-in ``who``'s latest label of ``task`` (a ``withdrawn`` row superseding
    it: the item is back in their queue); the new row's id, or None when there is nothing to
    undo. Never touches anyone else's labels."""
    found = custom_label_task(db, task)
    with transaction(db):
        rater = authorise(db, who).rater
        hold_person(db, found.name, rater)
        old = last_label(db, rater, found.name)
        if old is None:
            return None
        places = {(i.question_id, i.system or ""): i.item for i in found.item_rows(db)}
        hold_item(db, found.name, places.get((old.question_id, old.system or ""), ""))
        return insert_judgment(db, old.withdrawal())


def stored_text(row: Judgment | None) -> str:
    """How a person's own stored row reads (``a skip``, ``an undo`` or the label)."""
    if row is None:
        return "no label"
    return f"your label {row.verdict!r}" if row.verdict else marker_text(row.status)
