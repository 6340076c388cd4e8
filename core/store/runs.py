"""Bookkeeping rows of table ``runs`` for pipeline steps (entities, generation, experiments,
EXAM grading, XRAG evaluation, ...)."""

from __future__ import annotations

import os
import socket
import uuid
from typing import Any

from core.store.connection import dumps, transaction, utcnow


def start_run(
    db: Any,
    kind: str,
    name: str,
    config: Any,
    *,
    run_id: str | None = None,
    started_at: str | None = None,
) -> str:
    """Insert a ``runs`` row (status running) and return its id.

    ``run_id`` defaults to ``<kind>-<12 hex>``; ``started_at`` to now. The row records this
    process's ``pid`` and ``host`` (see :func:`mark_dead_runs`).
    """
    run_id = run_id or f"{kind}-{uuid.uuid4().hex[:12]}"
    db["runs"].insert(
        {
            "id": run_id,
            "kind": kind,
            "name": name,
            "config": dumps(config),
            "status": "running",
            "started_at": started_at or utcnow(),
            "pid": os.getpid(),
            "host": socket.gethostname(),
        }
    )
    return run_id


def finish_run(
    db: Any,
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


def pid_alive(pid: int) -> bool:
    """True if a process with ``pid`` exists on this host (zombies count as dead)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return True


def mark_dead_runs(db: Any) -> list[str]:
    """Mark ``interrupted`` every ``running`` run of this host whose process is gone (killed,
    crashed), and the experiments pointing at them; return their ids. Runs of other hosts are
    left alone (their liveness cannot be checked from here)."""
    host = socket.gethostname()
    dead = [
        run_id
        for run_id, pid in db.execute(
            "select id, pid from runs where status = 'running' and host = ? and pid is not null",
            [host],
        ).fetchall()
        if not pid_alive(pid)
    ]
    if not dead:
        return []
    marks = ",".join("?" * len(dead))
    now = utcnow()
    with transaction(db):
        db.execute(
            f"update runs set status = 'interrupted', finished_at = ?, "
            f"note = coalesce(nullif(note, ''), 'process died') where id in ({marks})",
            [now, *dead],
        )
        db.execute(
            f"update experiments set status = 'interrupted', updated_at = ? "
            f"where status = 'running' and run_id in ({marks})",
            [now, *dead],
        )
    return dead
