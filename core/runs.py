"""Bookkeeping rows of table ``runs`` for pipeline steps (entities, generation, ...)."""

from __future__ import annotations

import uuid

from core.store import dumps, utcnow


def start_run(db, kind: str, name: str, config: dict) -> str:
    """Insert a ``runs`` row (status running) and return its id."""
    run_id = f"{kind}-{uuid.uuid4().hex[:12]}"
    db["runs"].insert({"id": run_id, "kind": kind, "name": name, "config": dumps(config),
                       "status": "running", "started_at": utcnow()})
    return run_id


def finish_run(db, run_id: str, status: str, note: str = "") -> None:
    """Mark a run done/failed with a note."""
    db.execute("update runs set status = ?, finished_at = ?, note = ? where id = ?",
               [status, utcnow(), note, run_id])

