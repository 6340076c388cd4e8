"""Bookkeeping rows of table ``runs`` for pipeline steps (entities, generation, experiments,
EXAM grading, XRAG evaluation, ...)."""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING, Any

from core.store.connection import dumps, utcnow

if TYPE_CHECKING:  # sqlite_utils imports pandas: load it only when a database is opened
    import sqlite_utils


def start_run(
    db: sqlite_utils.Database,
    kind: str,
    name: str,
    config: Any,
    *,
    run_id: str | None = None,
    started_at: str | None = None,
) -> str:
    """Insert a ``runs`` row (status running) and return its id.

    ``run_id`` defaults to ``<kind>-<12 hex>``; ``started_at`` to now.
    """
    run_id = run_id or f"{kind}-{uuid.uuid4().hex[:12]}"
    db.table("runs").insert(
        {
            "id": run_id,
            "kind": kind,
            "name": name,
            "config": dumps(config),
            "status": "running",
            "started_at": started_at or utcnow(),
        }
    )
    return run_id


def finish_run(
    db: sqlite_utils.Database,
    run_id: str,
    status: str,
    note: str | None = "",
    *,
    config: Any = None,
    finished_at: str | None = None,
) -> None:
    """Mark a run done/failed (or any status) with a note.

    ``note=None`` leaves the stored note alone; ``config`` (when given) replaces the stored
    config; ``finished_at`` defaults to now.
    """
    sets = {"status": status, "finished_at": finished_at or utcnow()}
    if note is not None:
        sets["note"] = note
    if config is not None:
        sets["config"] = dumps(config)
    db.execute(
        f"update runs set {', '.join(f'{k} = ?' for k in sets)} where id = ?",
        [*sets.values(), run_id],
    )
