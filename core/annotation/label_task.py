"""What a labelling task is (the :class:`LabelTask` protocol) and how one joins (:func:`register`).

A task is one module of :mod:`core.annotation.label_tasks` that builds its task object and calls
:func:`register` when imported; :mod:`core.annotation.task_registry` imports every module of that
package on first use (as ``python -m core`` discovers its ``*_commands`` modules) and finds tasks
by name, so a new task is one new module. The machinery shared by every task (queues, progress
and next items in :mod:`core.annotation.tasks`, disagreements and adjudication in
:mod:`core.annotation.adjudication`, gold in :mod:`core.annotation.gold`, the Adjudication, Team
and Overview pages) reaches a task only through the registry and never compares task names.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, NotRequired, Protocol, TypedDict

from core.annotation.base import Progress
from core.errors import InputError
from core.store.questions import get_question

if TYPE_CHECKING:
    from core.store.engine import Database

#: An item's key: a question id, a dispute id, a side-by-side pair key (:mod:`json` list).
ItemKey = str | int


class HumanLabel(TypedDict):
    """One person's effective label row on an item (a skip has status ``skipped``, label None)."""

    item: str
    question_id: str
    annotator: str
    label: str | None
    status: str
    rationale: str
    created_at: str
    #: True for a label read from a file (an imported rater), not made in the app.
    imported: bool


class ItemFields(TypedDict):
    """What a queue entry says about its item beyond its key: the question and, for a pair,
    the two systems in canonical order."""

    question_id: str
    systems: NotRequired[list[str]]


class LabelTask(Protocol):
    """One kind of label people give. ``name`` is stored (adjudications, validation items) and
    chosen on the pages and the ``--task`` options; ``labels`` is the task's scale (what an
    adjudicator may settle an item as); ``position`` orders the tasks on the pages."""

    @property
    def name(self) -> str:
        """The task's name (stored, and chosen on the pages and the ``--task`` options)."""
        ...

    @property
    def labels(self) -> tuple[str, ...]:
        """The task's scale: the labels people give and an adjudicator settles on."""
        ...

    @property
    def position(self) -> int:
        """Where the task comes on the pages (lower first)."""
        ...

    def items(self, db: Database) -> list[ItemKey]:
        """Every item of the task (labelled or not)."""
        ...

    def queue(self, db: Database, annotator: str, items: list[ItemKey]) -> list[ItemKey]:
        """``annotator``'s whole queue over ``items``, in the order they will see it."""
        ...

    def progress(
        self,
        db: Database,
        annotator: str,
        items: list[ItemKey],
        queue: list[ItemKey],
    ) -> Progress:
        """``annotator``'s progress on their own ``queue`` (:func:`core.annotation.base.queue_progress`)."""
        ...

    def human_labels(self, db: Database) -> list[HumanLabel]:
        """Everyone's effective labels and skips, oldest first; a withdrawn label (undo) is none."""
        ...

    def item_fields(self, db: Database, keys: Sequence[ItemKey]) -> list[ItemFields]:
        """For each of ``keys`` in order, what a queue entry shows of it (:class:`ItemFields`)."""
        ...

    def stored_key(self, key: str) -> str:
        """The current form of an item key read from the store (old forms are read too)."""
        ...

    def label_name(self, label: str) -> str:
        """How a label of the scale reads on a page."""
        ...

    def places(self, db: Database, items: Sequence[str]) -> dict[str, str]:
        """Item -> which item of its question it is, in words ("pair 2 of 3", "dispute 7")."""
        ...

    def texts(self, db: Database, item: str, question_id: str) -> list[tuple[str, str]]:
        """The texts the labels of ``item`` are about, as (title, text)."""
        ...

    def after_settlement(self, db: Database, item: str) -> None:
        """What else changes when an adjudicator settles ``item`` (inside their transaction)."""
        ...

    def auto_labels(self, db: Database) -> dict[str, dict[str, str]]:
        """Auto-rater -> item -> its label on the task's scale (empty: auto-raters give none)."""
        ...


class TaskDefaults:
    """What most tasks share; a task class may inherit these and override what differs."""

    name: str

    def stored_key(self, key: str) -> str:
        """Keys are stored in their current form."""
        return key

    def label_name(self, label: str) -> str:
        """``both_acceptable`` reads "both acceptable"."""
        return label.replace("_", " ")

    def places(self, db: Database, items: Sequence[str]) -> dict[str, str]:
        """Every item is the task's one item of its question."""
        return {item: self.name for item in items}

    def texts(self, db: Database, item: str, question_id: str) -> list[tuple[str, str]]:
        """The question's reference answers."""
        q = get_question(db, question_id)
        refs = q.answers if q else []
        return [("Reference answer", r) for r in (refs or [])]

    def after_settlement(self, db: Database, item: str) -> None:
        """Nothing beyond the adjudication row."""

    def auto_labels(self, db: Database) -> dict[str, dict[str, str]]:
        """Auto-raters give no labels of the task."""
        return {}


_TASKS: dict[str, LabelTask] = {}
_LOCK = threading.Lock()
#: Functions giving the tasks a database defines (e.g. the tasks an admin defined in the app).
_SOURCES: list[Callable[[Database], list[LabelTask]]] = []


def register(task: LabelTask) -> LabelTask:
    """Add ``task`` to the registry (a task module calls this when imported); returns it.
    A second task of the same name is refused (InputError)."""
    with _LOCK:
        if task.name in _TASKS and _TASKS[task.name] is not task:
            raise InputError(f"a label task named {task.name!r} is registered already")
        _TASKS[task.name] = task
    return task


def register_source(source: Callable[[Database], list[LabelTask]]) -> None:
    """Add a function giving the tasks a database defines (a module calls this when imported):
    :func:`core.annotation.task_registry.task_named` asks it when given a database."""
    with _LOCK:
        if source not in _SOURCES:
            _SOURCES.append(source)


def defined_in(db: Database) -> list[LabelTask]:
    """The tasks ``db`` defines, from every source of :func:`register_source`."""
    with _LOCK:
        sources = list(_SOURCES)
    return [task for source in sources for task in source(db)]


def unregister(name: str) -> None:
    """Remove the task ``name`` from the registry (e.g. one a test added); unknown: no-op."""
    with _LOCK:
        _TASKS.pop(name, None)


def registered() -> dict[str, LabelTask]:
    """Name -> task, of the tasks registered so far (:mod:`core.annotation.task_registry`
    imports the shipped ones first)."""
    with _LOCK:
        return dict(_TASKS)


def human_label_rows(
    found: Iterable[tuple[str, str | None, str, str, str, str, str]],
) -> list[HumanLabel]:
    """Rows ``(item, label, status, question_id, annotator, rationale, created_at)`` (a skip:
    label None, status ``skipped``) as :class:`HumanLabel` s made in the app."""
    return [
        {
            "item": item,
            "question_id": qid,
            "annotator": who,
            "label": label,
            "rationale": why,
            "created_at": at,
            "status": status,
            "imported": False,
        }
        for item, label, status, qid, who, why, at in found
    ]
