"""What every labelling task shares, dispatched through the registry
(:func:`core.annotation.label_task.task_named`): items, everyone's effective labels, queues,
progress and the next items of a person's queue.

Labels are put on one scale per task so people (and auto-raters) can be compared: a review's
decision, a dispute's resolution, a side-by-side verdict on the canonical order of the pair
(:mod:`core.annotation.label_tasks.side_by_side`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NotRequired, TypedDict

from core.annotation.base import Progress, team_names
from core.annotation.label_task import HumanLabel, ItemKey
from core.annotation.task_registry import task_named
from core.store.accounts import excluded_names
from core.store.judgments import JudgmentStatus

if TYPE_CHECKING:
    from core.store.engine import Database


class QueueEntry(TypedDict):
    """One entry of :func:`next_items`."""

    key: str
    labels: int
    question_id: str
    systems: NotRequired[list[str]]


def check_task(task: str, db: Database | None = None) -> str:
    """``task`` if a task of that name is registered (or defined in ``db``); InputError
    otherwise."""
    return task_named(task, db).name


def task_items(db: Database, task: str) -> list[ItemKey]:
    """Every item of ``task``: question ids, dispute ids (one per question and answer text), or
    side-by-side pair keys."""
    return task_named(task, db).items(db)


def human_labels(db: Database, task: str) -> list[HumanLabel]:
    """Everyone's effective label rows of ``task``, oldest first.

    Each: ``item`` (the key as text), ``question_id``, ``annotator``, ``label`` (None for a
    skip), ``status`` (``ok`` or ``skipped``), ``rationale``, ``created_at`` and ``imported``
    (True for a verdict read from a file: an imported rater, not a team member). A withdrawn
    label (undo) is no label: neither the withdrawal nor what it took back is listed.
    """
    return task_named(task, db).human_labels(db)


def team_labels(
    db: Database, labels: list[HumanLabel]
) -> tuple[list[HumanLabel], list[HumanLabel]]:
    """``labels`` (of :func:`human_labels`) split into the team's and the imported raters'.

    A team label was made in the app by an account (by anyone in open mode, no accounts); the
    labels of a revoked account an admin left out are in neither list."""
    names = team_names(db)
    left_out = excluded_names(db)
    team: list[HumanLabel] = []
    imported: list[HumanLabel] = []
    for r in labels:
        if not r["imported"] and r["annotator"] in left_out:
            continue
        mine = not r["imported"] and (names is None or r["annotator"] in names)
        (team if mine else imported).append(r)
    return team, imported


def task_queue(db: Database, name: str, task: str) -> list[ItemKey]:
    """``name``'s whole queue for ``task``, in order (the items the Review, Disputes and Side by
    side pages show next)."""
    found = task_named(task, db)
    return found.queue(db, name, found.items(db))


def task_progress(
    db: Database, name: str, task: str, queue: list[ItemKey] | None = None
) -> Progress:
    """``name``'s progress on their own queue for ``task``: what the pages, ``queue NAME`` and
    the Overview show (:func:`core.annotation.base.queue_progress`)."""
    found = task_named(task, db)
    items = found.items(db)
    queue = found.queue(db, name, items) if queue is None else queue
    return found.progress(db, name, items, queue)


def next_items(
    db: Database,
    name: str,
    task: str,
    limit: int = 10,
    queue: list[ItemKey] | None = None,
) -> list[QueueEntry]:
    """The next ``limit`` items of ``name``'s queue for ``task`` (``queue``: their
    :func:`task_queue`, computed when not given), in order.

    Each: ``key``, ``question_id``, ``labels`` (how many team members have labelled it already:
    imported raters do not count) and, for side-by-side, the two ``systems`` in canonical order.
    """
    found = task_named(task, db)
    counts: dict[str, int] = {}
    for r in team_labels(db, found.human_labels(db))[0]:
        if r["status"] == JudgmentStatus.OK:
            counts[r["item"]] = counts.get(r["item"], 0) + 1
    keys = (task_queue(db, name, task) if queue is None else queue)[:limit]
    out: list[QueueEntry] = []
    for key, fields in zip(keys, found.item_fields(db, keys), strict=True):
        entry: QueueEntry = {
            "key": str(key),
            "labels": counts.get(str(key), 0),
            "question_id": fields["question_id"],
        }
        if "systems" in fields:
            entry["systems"] = fields["systems"]
        out.append(entry)
    return out
