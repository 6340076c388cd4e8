"""Table ``label_scales``: the only module with SQL on it (the scale each labelling task read from
a file declares; see :mod:`core.store.migrations.m0784_label_scales`). SQLAlchemy Core over
:mod:`core.store.tables_more` (issue 33)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Self

import sqlalchemy as sa

from core.store.connection import dumps, utcnow
from core.store.statements import all_rows, run, upsert
from core.store.tables_more import label_scales as scales_table

if TYPE_CHECKING:
    from core.store.engine import Database


class Scale(StrEnum):
    """A task's label scale: one label of a set, ordered labels (or numbers), a set of labels."""

    CATEGORICAL = "categorical"
    ORDINAL = "ordinal"
    MULTILABEL = "multilabel"


@dataclass(frozen=True, slots=True, kw_only=True)
class LabelScale:
    """Task ``task`` labels on ``scale`` with ``labels`` (in order; ordinal: lowest first);
    ``declared``: the labels were given, so a label outside them is refused."""

    task: str
    scale: Scale
    labels: tuple[str, ...]
    declared: bool
    created_at: str = field(default_factory=utcnow)
    updated_at: str = field(default_factory=utcnow)

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> Self:
        """The record of a ``label_scales`` row (``labels`` decoded)."""
        labels = row["labels"]
        if isinstance(labels, str):
            labels = json.loads(labels)
        return cls(
            task=row["task"],
            scale=Scale(row["scale"]),
            labels=tuple(str(x) for x in labels),
            declared=bool(row["declared"]),
            created_at=row["created_at"],
            updated_at=row["updated_at"],
        )


def label_scale(db: Database, task: str) -> LabelScale | None:
    """The stored scale of ``task``, or None."""
    found = all_rows(db, sa.select(scales_table).where(scales_table.c.task == task))
    return LabelScale.from_row(found[0]) if found else None


def label_scales(db: Database) -> list[LabelScale]:
    """Every stored task scale, by task name."""
    found = all_rows(db, sa.select(scales_table).order_by(scales_table.c.task))
    return [LabelScale.from_row(r) for r in found]


def save_label_scale(db: Database, scale: LabelScale) -> bool:
    """Store ``scale`` (a new task, or a stored one's labels widened); True when a row changed."""
    old = label_scale(db, scale.task)
    if old is not None and (old.scale, old.labels, old.declared) == (
        scale.scale,
        scale.labels,
        scale.declared,
    ):
        return False
    row = {
        "task": scale.task,
        "scale": str(scale.scale),
        "labels": dumps(list(scale.labels)),
        "declared": int(scale.declared),
        "created_at": old.created_at if old else scale.created_at,
        "updated_at": scale.updated_at,
    }
    run(db, upsert(db, scales_table, row))
    return True
