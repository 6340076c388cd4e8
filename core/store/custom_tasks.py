"""Tables ``custom_tasks`` and ``custom_task_items``: the only module with SQL on them (label
tasks an admin defines; see :mod:`core.store.migrations.m0785_custom_tasks`). SQLAlchemy Core
over :mod:`core.store.tables_more` (issue 33)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Self

import sqlalchemy as sa

from core.store.connection import transaction, utcnow
from core.store.statements import all_rows, run, run_many, upsert
from core.store.tables_more import custom_task_items as items_
from core.store.tables_more import custom_tasks as tasks_

if TYPE_CHECKING:
    from core.store.engine import Database


@dataclass(frozen=True, slots=True, kw_only=True)
class CustomTask:
    """A defined task: its ``guideline`` text and who defined it (scale: ``label_scales``)."""

    task: str
    guideline: str
    defined_by: str
    created_at: str = field(default_factory=utcnow)
    updated_at: str = field(default_factory=utcnow)

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> Self:
        """The record of a ``custom_tasks`` row."""
        return cls(
            task=row["task"],
            guideline=row["guideline"],
            defined_by=row["defined_by"],
            created_at=row["created_at"],
            updated_at=row["updated_at"],
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class TaskItem:
    """Item ``item`` of ``task``: about question ``question_id`` and, optionally, the answer of
    ``system`` (``answer``: the text shown); ``position``: the order added."""

    task: str
    item: str
    question_id: str
    system: str | None
    answer: str
    position: int

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> Self:
        """The record of a ``custom_task_items`` row."""
        return cls(
            task=row["task"],
            item=row["item"],
            question_id=row["question_id"],
            system=row["system"],
            answer=row["answer"],
            position=int(row["position"]),
        )


def custom_task(db: Database, task: str) -> CustomTask | None:
    """The definition of ``task``, or None."""
    found = all_rows(db, sa.select(tasks_).where(tasks_.c.task == task))
    return CustomTask.from_row(found[0]) if found else None


def custom_tasks(db: Database) -> list[CustomTask]:
    """Every defined task, by name."""
    return [CustomTask.from_row(r) for r in all_rows(db, sa.select(tasks_).order_by(tasks_.c.task))]


def save_custom_task(db: Database, task: CustomTask) -> None:
    """Store ``task``'s definition (a stored one keeps its creation time)."""
    old = custom_task(db, task.task)
    row = {
        "task": task.task,
        "guideline": task.guideline,
        "defined_by": task.defined_by,
        "created_at": old.created_at if old else task.created_at,
        "updated_at": task.updated_at,
    }
    run(db, upsert(db, tasks_, row))


def task_items(db: Database, task: str) -> list[TaskItem]:
    """The items of ``task``, in the order added."""
    query = sa.select(items_).where(items_.c.task == task)
    found = all_rows(db, query.order_by(items_.c.position, items_.c.item))
    return [TaskItem.from_row(r) for r in found]


def insert_task_items(db: Database, items: Sequence[TaskItem]) -> None:
    """Append items (their keys new to their task), all or none."""
    now = utcnow()
    with transaction(db):
        run_many(
            db,
            sa.insert(items_),
            [
                {
                    "task": i.task,
                    "item": i.item,
                    "question_id": i.question_id,
                    "system": i.system,
                    "answer": i.answer,
                    "position": i.position,
                    "created_at": now,
                }
                for i in items
            ],
        )
