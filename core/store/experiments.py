"""Table ``experiments``: the only module with SQL on it.

One row per experiment name: what its file asked for (``config``), the sampled ``question_ids``,
its status, the latest run and that run's ``summary``. Rows come back decoded (``config``,
``question_ids`` and ``summary`` as JSON values) by :func:`core.store.connection.rows`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from core.store.connection import dumps, placeholders, rows

if TYPE_CHECKING:
    from core.store.engine import Database

#: Experiment columns holding JSON besides the shared ``config``.
_JSON = ("question_ids", "summary")


def _decoded(db: Database, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
    return rows(db, sql, params, also=_JSON)


def get_experiment(db: Database, name: str) -> dict[str, Any] | None:
    """The stored experiment ``name`` (decoded), or None."""
    found = _decoded(db, "select * from experiments where name = ?", [name])
    return found[0] if found else None


def experiment_names(db: Database) -> list[str]:
    """Names of the stored experiments, sorted."""
    return [r[0] for r in db.execute("select name from experiments order by name")]


def stored_experiments(db: Database) -> list[dict[str, Any]]:
    """Every stored experiment (decoded), most recently updated first."""
    return _decoded(db, "select * from experiments order by updated_at desc")


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
    db.table("experiments").upsert(
        {
            "name": name,
            "path": path,
            "config": dumps(config),
            "question_ids": dumps(list(question_ids)),
            "status": "running",
            "run_id": run_id,
            "created_at": now,
            "updated_at": now,
        },
        pk="name",
    )


def finish_experiment(db: Database, name: str, status: str, summary: Any, updated_at: str) -> None:
    """Set the status and summary of experiment ``name``."""
    db.execute(
        "update experiments set status = ?, summary = ?, updated_at = ? where name = ?",
        [status, dumps(summary), updated_at, name],
    )


def mark_experiments_interrupted(db: Database, run_ids: Sequence[str], updated_at: str) -> None:
    """Mark ``interrupted`` the running experiments whose current run is one of ``run_ids``."""
    if not run_ids:
        return
    marks = placeholders(run_ids)
    db.execute(
        f"update experiments set status = 'interrupted', updated_at = ? "
        f"where status = 'running' and run_id in ({marks})",
        [updated_at, *run_ids],
    )
