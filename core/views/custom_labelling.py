"""What the Label page shows (read-only): the custom tasks a person can label, the next item of
their queue for one (:func:`labelling_view`) with the task's guideline and its labels as
buttons with keys, and their progress. Strings from data reach the page through
:mod:`core.views.text`."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypedDict

from core.annotation.base import rater_name
from core.annotation.custom_labels import custom_label_task, own_label, task_item
from core.annotation.custom_tasks import TaskSummary, task_summaries
from core.annotation.tasks import task_progress, task_queue
from core.store.label_scales import Scale
from core.store.questions import question_texts
from core.views.queue_head import queue_headline

if TYPE_CHECKING:
    from core.store.engine import Database

#: Keys of the first ten labels (C and R are Streamlit's own; S and U stay free for the page).
LABEL_KEYS = ("1", "2", "3", "4", "5", "6", "7", "8", "9", "0")
#: Key that stores a multilabel task's chosen set.
SUBMIT_KEY = "Enter"
#: Key of undo.
UNDO_KEY = "U"
#: The scales a custom task may have (the Team page's choice).
SCALES = tuple(str(s) for s in Scale)


def labelling_tasks(db: Database) -> list[TaskSummary]:
    """Every custom task with items: ``task``, ``scale``, ``labels``, ``items``."""
    return [t for t in task_summaries(db) if t["items"]]


def label_buttons(labels: tuple[str, ...]) -> list[tuple[str, str | None]]:
    """``(label, key)`` for each label: the first ten get ``1``-``9``, ``0``; others none."""
    return [(x, LABEL_KEYS[n] if n < len(LABEL_KEYS) else None) for n, x in enumerate(labels)]


def keys_hint(labels: tuple[str, ...], multilabel: bool) -> str:
    """The page's line of keys, e.g. "Keys: 1 good · 2 bad · U undo · G guidelines" (plain
    text; ``G`` opens the guideline, as on every labelling page)."""
    parts = [f"{key} {label}" for label, key in label_buttons(labels) if key]
    if multilabel:
        parts = [f"{p} (toggle)" for p in parts] + [f"{SUBMIT_KEY} submit"]
    return "Keys: " + " · ".join([*parts, f"{UNDO_KEY} undo", "G guidelines"])


class LabelItem(TypedDict):
    """The item a person labels next (:func:`labelling_view`)."""

    key: str
    question_id: str
    question: str
    answer: str
    label_id: int | None  # their own row on it as loaded (the stale-tab check)


class LabellingView(TypedDict):
    """What the Label page shows a person on a custom task (:func:`labelling_view`)."""

    task: str
    scale: str
    multilabel: bool
    labels: tuple[str, ...]
    buttons: list[tuple[str, str | None]]
    keys: str
    guideline: str
    progress: str
    headline: str  # the progress with the item's place in the queue
    done: int
    total: int
    item: LabelItem | None  # None: their queue is empty


def labelling_view(db: Database, name: str, task: str) -> LabellingView:
    """For person ``name`` on custom task ``task``: ``task``, ``scale``, ``multilabel``,
    ``labels``, ``buttons`` (:func:`label_buttons`), ``keys`` (:func:`keys_hint`),
    ``guideline``, ``progress`` (its text), ``headline`` (the progress with the item's place in
    the queue, :func:`~core.views.queue_head.queue_headline`), ``done``, ``total``, and ``item`` (None when their
    queue is empty): ``key``, ``question_id``, ``question``, ``answer``, ``label_id`` (their own
    row on it as loaded, for the stale-tab check)."""
    found = custom_label_task(db, task)
    queue = task_queue(db, name, task)
    progress = task_progress(db, name, task, queue)
    multilabel = found.scale.scale == Scale.MULTILABEL
    view: LabellingView = {
        "task": found.name,
        "scale": str(found.scale.scale),
        "multilabel": multilabel,
        "labels": found.scale.labels,
        "buttons": label_buttons(found.scale.labels),
        "keys": keys_hint(found.scale.labels, multilabel),
        "guideline": found.guideline,
        "progress": str(progress),
        "headline": str(progress),
        "done": progress.done,
        "total": progress.total,
        "item": None,
    }
    if queue:
        after = "a label stores it and opens the next item"
        if multilabel:
            after = f"toggle the labels, {SUBMIT_KEY} stores the set and opens the next item"
        view["headline"] = queue_headline(progress, queue, queue[0], after)
        place = task_item(db, found, str(queue[0]))
        own = own_label(db, rater_name(name), found.name, place)
        view["item"] = {
            "key": place.item,
            "question_id": place.question_id,
            "question": question_texts(db, [place.question_id]).get(place.question_id, ""),
            "answer": place.answer,
            "label_id": own.id if own else None,
        }
    return view
