"""Table ``experiments``: the only module with SQL on it.

One row per experiment name: what its file asked for (``config``), the sampled ``question_ids``,
its status, the latest run and that run's ``summary``. Readers return :class:`Experiment`
records (``config``, ``question_ids`` and ``summary`` decoded). SQLAlchemy Core over
:mod:`core.store.tables_more` (issue 33).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Self

import sqlalchemy as sa

from core.store.connection import dumps
from core.store.statements import all_rows, run, upsert
from core.store.stored_enums import stored_enum
from core.store.tables_more import experiments

if TYPE_CHECKING:
    from core.store.engine import Database

#: Experiment columns holding JSON besides the shared ``config``.
_JSON = ("question_ids", "summary")


class ExperimentStatus(StrEnum):
    """Where an experiment stands (the status of its latest run)."""

    PLANNED = "planned"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"
    INTERRUPTED = "interrupted"


@dataclass(frozen=True, slots=True)
class Experiment:
    """One ``experiments`` row: ``config`` is what the file asked for, ``summary`` what the
    latest run reported."""

    name: str
    created_at: str
    updated_at: str
    path: str = ""
    config: Any = None
    question_ids: list[str] = field(default_factory=list)
    status: ExperimentStatus = ExperimentStatus.PLANNED
    summary: dict[str, Any] = field(default_factory=dict)
    run_id: str | None = None

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> Self:
        """The record of a decoded row (:func:`core.store.connection.rows`)."""
        summary = row["summary"]
        return cls(
            **{
                **row,
                "question_ids": list(row["question_ids"] or []),
                "status": stored_enum(ExperimentStatus, row["status"], "status", row["name"]),
                "summary": dict(summary) if isinstance(summary, dict) else {},
            }
        )


def _decoded(db: Database, query: sa.Select[Any]) -> list[Experiment]:
    return [Experiment.from_row(r) for r in all_rows(db, query, also=_JSON)]


def get_experiment(db: Database, name: str) -> Experiment | None:
    """The stored experiment ``name``, or None."""
    found = _decoded(db, sa.select(experiments).where(experiments.c.name == name))
    return found[0] if found else None


def experiment_names(db: Database) -> list[str]:
    """Names of the stored experiments, sorted."""
    query = sa.select(experiments.c.name).order_by(experiments.c.name)
    return [r[0] for r in run(db, query)]


def stored_experiments(db: Database) -> list[Experiment]:
    """Every stored experiment, most recently updated first."""
    return _decoded(db, sa.select(experiments).order_by(experiments.c.updated_at.desc()))


def save_experiment_start(
    db: Database,
    *,
    name: str,
    path: str,
    config: Any,
    question_ids: Sequence[str],
    run_id: str,
    now: str,
) -> None:
    """Store (insert or replace the fields of) experiment ``name`` as running under ``run_id``
    with its config and sampled question ids."""
    row = {
        "name": name,
        "path": path,
        "config": dumps(config),
        "question_ids": dumps(list(question_ids)),
        "status": str(ExperimentStatus.RUNNING),
        "run_id": run_id,
        "created_at": now,
        "updated_at": now,
    }
    run(db, upsert(db, experiments, row))


def finish_experiment(
    db: Database,
    name: str,
    status: ExperimentStatus,
    summary: dict[str, Any],
    updated_at: str,
) -> None:
    """Set the status and summary of experiment ``name``."""
    change = sa.update(experiments).where(experiments.c.name == name)
    run(db, change.values(status=str(status), summary=dumps(summary), updated_at=updated_at))


def mark_experiments_interrupted(db: Database, run_ids: Sequence[str], updated_at: str) -> None:
    """Mark ``interrupted`` the running experiments whose current run is one of ``run_ids``."""
    if not run_ids:
        return
    e = experiments.c
    change = sa.update(experiments).where(
        e.status == ExperimentStatus.RUNNING, e.run_id.in_(list(run_ids))
    )
    run(db, change.values(status=ExperimentStatus.INTERRUPTED, updated_at=updated_at))


def restore_experiment(db: Database, exp: Experiment) -> None:
    """Write ``exp`` back as it was read, every column (a re-run that changed nothing undone)."""
    row = {f.name: getattr(exp, f.name) for f in fields(Experiment)}
    row["status"] = str(exp.status)
    row.update({k: dumps(row[k]) for k in ("config", *_JSON)})
    run(db, upsert(db, experiments, row))
