"""Tasks an admin defines (``tasks define``, the Team page): one object per task a database
holds (:mod:`core.store.custom_tasks`), given to the registry by a source
(:func:`core.annotation.label_task.register_source`), so they are queued, adjudicated and counted
as gold like the built-in tasks.

An item is a key of ``custom_task_items`` (a question and, optionally, one system's answer).
A label is a judgment of kind ``label`` whose ``criterion`` is the task, on the item's question
and system, with the label (multilabel: the sorted JSON list of labels) as its verdict; an undo
appends a ``withdrawn`` row superseding it. Labels imported for the task
(``import-judgments --task``) on an item's question and system are the imported raters' labels.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from itertools import combinations
from typing import TYPE_CHECKING

from core.annotation.attention import mix_attention
from core.annotation.base import (
    Progress,
    calibration_size,
    personal_order,
    queue_progress,
    queue_seed,
    rater_name,
    required_annotations,
    team_names,
    team_only,
    team_queue,
)
from core.annotation.label_task import (
    HumanLabel,
    ItemFields,
    ItemKey,
    LabelTask,
    TaskDefaults,
    register_source,
)
from core.store.custom_tasks import TaskItem, custom_task, custom_tasks, task_items
from core.store.judgments import JudgmentKind, JudgmentStatus, RaterKind, effective_values
from core.store.label_scales import LabelScale, Scale, label_scale

if TYPE_CHECKING:
    from core.store.engine import Database

#: ``context_kind`` of a label given in the app (an imported label has the file's).
APP_CONTEXT = "human"
#: At most this many labels in a multilabel task for an adjudicator to settle on any set.
_ALL_SETS_UP_TO = 6


def label_set(labels: Sequence[str]) -> str:
    """A multilabel label: the sorted JSON list (the form ``import-judgments`` stores)."""
    return json.dumps(sorted(set(labels)), ensure_ascii=False)


class CustomLabelTask(TaskDefaults):
    """A defined task: ``scale`` and its ``labels`` (``label_scales``), the ``guideline``."""

    position = 100

    def __init__(self, scale: LabelScale, guideline: str) -> None:
        self.name = scale.task
        self.scale = scale
        self.guideline = guideline

    @property
    def labels(self) -> tuple[str, ...]:
        """The labels an adjudicator settles on: the scale's; a multilabel task's label sets
        (every set of up to 6 labels)."""
        if self.scale.scale != Scale.MULTILABEL:
            return self.scale.labels
        if len(self.scale.labels) > _ALL_SETS_UP_TO:
            return tuple(label_set([x]) for x in self.scale.labels)
        return tuple(
            label_set(chosen)
            for n in range(len(self.scale.labels) + 1)
            for chosen in combinations(self.scale.labels, n)
        )

    def item_rows(self, db: Database) -> list[TaskItem]:
        """The task's items, in the order added."""
        return task_items(db, self.name)

    def items(self, db: Database) -> list[ItemKey]:
        """Every item key."""
        return [i.item for i in self.item_rows(db)]

    def _marks(self, db: Database, team: bool) -> dict[str, dict[ItemKey, set[str]]]:
        """Status (``ok``, ``skipped``) -> item -> raters (``human:NAME``) of people's labels
        made in the app (``team``: only the team's)."""
        marks: dict[str, dict[ItemKey, set[str]]] = {"ok": {}, "skipped": {}}
        for r in self.human_labels(db):
            if not r["imported"]:
                marks[r["status"]].setdefault(r["item"], set()).add(rater_name(r["annotator"]))
        return team_only(marks, team_names(db), "human:") if team else marks

    def queue(self, db: Database, annotator: str, items: list[ItemKey]) -> list[ItemKey]:
        """:func:`core.annotation.base.team_queue` with the team settings (overlap ``k``,
        calibration items, queue order), attention checks mixed in
        (:func:`core.annotation.attention.mix_attention`)."""
        marks = self._marks(db, team=True)
        rater = rater_name(annotator)
        queue = team_queue(
            items,
            marks["ok"],
            rater,
            k=required_annotations(db),
            seed=queue_seed(db),
            calibration=calibration_size(db),
            personal=personal_order(db),
            skipped=marks["skipped"],
        )
        return mix_attention(db, self.name, rater, queue, items, marks)

    def progress(
        self, db: Database, annotator: str, items: list[ItemKey], queue: list[ItemKey]
    ) -> Progress:
        """:func:`core.annotation.base.queue_progress` over the labels made in the app."""
        return queue_progress(items, self._marks(db, team=False), rater_name(annotator), queue)

    def human_labels(self, db: Database) -> list[HumanLabel]:
        """People's effective labels and skips of the task on its items, by id."""
        where = {(i.question_id, i.system or ""): i.item for i in self.item_rows(db)}
        columns = ["question_id", "system", "rater", "verdict", "status", "context_kind"]
        columns += ["rationale", "created_at"]
        out: list[HumanLabel] = []
        for values in effective_values(
            db, columns, kind=JudgmentKind.LABEL, rater_kind=RaterKind.HUMAN, criterion=self.name
        ):
            r = dict(zip(columns, values, strict=True))
            item = where.get((r["question_id"], r["system"] or ""))
            if item is None or r["status"] not in (JudgmentStatus.OK, JudgmentStatus.SKIPPED):
                continue
            out.append(
                {
                    "item": item,
                    "question_id": r["question_id"],
                    "annotator": r["rater"].removeprefix("human:"),
                    "label": r["verdict"] if r["status"] == JudgmentStatus.OK else None,
                    "status": r["status"],
                    "rationale": r["rationale"],
                    "created_at": r["created_at"],
                    "imported": r["context_kind"] != APP_CONTEXT,
                }
            )
        return out

    def item_fields(self, db: Database, keys: Sequence[ItemKey]) -> list[ItemFields]:
        """The item's question."""
        qids = {i.item: i.question_id for i in self.item_rows(db)}
        return [{"question_id": qids.get(str(k), "")} for k in keys]

    def label_name(self, label: str) -> str:
        """A label as written; a label set as its labels joined by commas ("(none)": empty)."""
        if self.scale.scale == Scale.MULTILABEL and label.startswith("["):
            return ", ".join(json.loads(label)) or "(none)"
        return label

    def texts(self, db: Database, item: str, question_id: str) -> list[tuple[str, str]]:
        """The answer the item is about, if any."""
        found = next((i for i in self.item_rows(db) if i.item == item), None)
        return [("Answer", found.answer)] if found and found.answer else []

    def auto_labels(self, db: Database) -> dict[str, dict[str, str]]:
        """Auto-rater -> item -> its effective label of the task."""
        where = {(i.question_id, i.system or ""): i.item for i in self.item_rows(db)}
        out: dict[str, dict[str, str]] = {}
        for qid, system, rater, verdict in effective_values(
            db,
            ["question_id", "system", "rater", "verdict"],
            kind=JudgmentKind.LABEL,
            rater_kind=RaterKind.AUTO,
            criterion=self.name,
            with_verdict=True,
        ):
            item = where.get((qid, system or ""))
            if item is not None:
                out.setdefault(rater, {})[item] = verdict
        return out


def defined_task(db: Database, name: str) -> CustomLabelTask | None:
    """The task ``name`` defined in ``db``, or None."""
    found = custom_task(db, name)
    scale = label_scale(db, name) if found else None
    return CustomLabelTask(scale, found.guideline) if found and scale else None


def defined_tasks(db: Database) -> list[LabelTask]:
    """Every task defined in ``db``."""
    out: list[LabelTask] = []
    for found in custom_tasks(db):
        scale = label_scale(db, found.task)
        if scale is not None:
            out.append(CustomLabelTask(scale, found.guideline))
    return out


register_source(defined_tasks)
