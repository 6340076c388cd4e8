"""Table ``runs``: the only module with SQL on it. One bookkeeping row per pipeline step (entities,
generation, experiments, EXAM grading, XRAG evaluation, ...) with its status, process and the
running totals of its model calls."""

from __future__ import annotations

import os
import socket
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Self

from core.store.connection import dumps, placeholders, rows, transaction, utcnow
from core.store.experiments import mark_experiments_interrupted
from core.store.llm_cache import forget_cached_run_calls
from core.store.stored_enums import stored_enum

if TYPE_CHECKING:
    from core.store.engine import Database


class RunStatus(StrEnum):
    """Where a run stands: ``interrupted`` when its process died (:func:`mark_dead_runs`)."""

    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"
    INTERRUPTED = "interrupted"


@dataclass(frozen=True, slots=True)
class Run:
    """One ``runs`` row: a pipeline step, its process and the totals of its model calls."""

    id: str
    kind: str
    name: str
    config: Any
    status: RunStatus
    started_at: str
    finished_at: str | None
    n_calls: int
    input_tokens: int
    output_tokens: int
    cost_usd: float
    note: str
    pid: int | None
    host: str | None

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> Self:
        """The record of a decoded row (:func:`core.store.connection.rows`)."""
        return cls(**{**row, "status": stored_enum(RunStatus, row["status"], "status", row["id"])})


def _read(db: Database, sql: str, params: Sequence[Any] = ()) -> list[Run]:
    return [Run.from_row(r) for r in rows(db, sql, params)]


def start_run(
    db: Database,
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
    db.table("runs").insert(
        {
            "id": run_id,
            "kind": kind,
            "name": name,
            "config": dumps(config),
            "status": str(RunStatus.RUNNING),
            "started_at": started_at or utcnow(),
            "pid": os.getpid(),
            "host": socket.gethostname(),
        }
    )
    return run_id


def finish_run(
    db: Database,
    run_id: str,
    status: RunStatus,
    note: str | None = "",
    *,
    config: Any = None,
    finished_at: str | None = None,
) -> None:
    """Mark a run done/failed (or any status) with a note.

    ``note=None`` leaves the stored note alone; ``config`` (when given) replaces the stored
    config; ``finished_at`` defaults to now.
    """
    sets = {"status": str(status), "finished_at": finished_at or utcnow()}
    if note is not None:
        sets["note"] = note
    if config is not None:
        sets["config"] = dumps(config)
    db.execute(
        f"update runs set {', '.join(f'{k} = ?' for k in sets)} where id = ?",
        [*sets.values(), run_id],
    )


#: The columns that point at a run (``run_id text references runs(id)``; a test compares this with
#: the migrated schema's foreign keys).
RUN_REFERENCES = (
    ("entities", "run_id"),
    ("questions", "run_id"),
    ("answers", "run_id"),
    ("judgments", "run_id"),
    ("disputes", "run_id"),
    ("llm_calls", "run_id"),
    ("llm_batches", "run_id"),
    ("generation_failures", "run_id"),
    ("experiments", "run_id"),
    ("xrag_results", "run_id"),
    ("exam_articles", "run_id"),
    ("exam_runs", "id"),
)


def run_ids(db: Database) -> set[str]:
    """The id of every run."""
    return {r[0] for r in db.execute("select id from runs")}


def discard_idle_runs(db: Database, run_ids: Sequence[str]) -> list[str]:
    """Delete the finished (``done``) runs among ``run_ids`` that changed nothing: every model
    call they logged was answered from the cache and no row but those calls points at them (a
    re-run with nothing new leaves no trace: no runs or ``llm_calls`` rows). Return their ids."""
    idle = []
    for run_id in run_ids:
        with transaction(db):
            done = db.execute("select status from runs where id = ?", [run_id]).fetchone()
            if (
                done is None
                or done[0] != RunStatus.DONE
                or any(
                    db.execute(
                        f"select 1 from {table} where {column} = ? limit 1", [run_id]
                    ).fetchone()
                    for table, column in RUN_REFERENCES
                    if table != "llm_calls"
                )
            ):
                continue
            if forget_cached_run_calls(db, run_id):
                db.execute("delete from runs where id = ?", [run_id])
                idle.append(run_id)
    return idle


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


def mark_dead_runs(db: Database) -> list[str]:
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
    marks = placeholders(dead)
    now = utcnow()
    with transaction(db):
        db.execute(
            f"update runs set status = 'interrupted', finished_at = ?, "
            f"note = coalesce(nullif(note, ''), 'process died') where id in ({marks})",
            [now, *dead],
        )
        mark_experiments_interrupted(db, dead, now)
    return dead


def run_exists(db: Database, run_id: str) -> bool:
    """Whether a ``runs`` row with this id is stored."""
    return db.execute("select 1 from runs where id = ?", [run_id]).fetchone() is not None


def add_run_totals(
    db: Database,
    run_id: str,
    *,
    n_calls: int,
    input_tokens: int,
    output_tokens: int,
    cost_usd: float,
) -> None:
    """Add paid calls, their tokens and their cost to a run's running totals (one statement)."""
    db.execute(
        "update runs set n_calls = n_calls + ?, input_tokens = input_tokens + ?, "
        "output_tokens = output_tokens + ?, cost_usd = cost_usd + ? where id = ?",
        [n_calls, input_tokens, output_tokens, cost_usd, run_id],
    )


def experiment_runs(db: Database) -> list[Run]:
    """Every experiment run (``name`` is the experiment's), newest first."""
    return _read(db, "select * from runs where kind = 'experiment' order by started_at desc")


def recent_runs(db: Database, limit: int = 50) -> list[Run]:
    """The ``limit`` latest runs (cost rounded to 4 decimals, in Python: PostgreSQL has no
    ``round(double precision, integer)``), newest first."""
    found = _read(
        db,
        "select id, kind, name, config, status, started_at, finished_at, n_calls, input_tokens, "
        "output_tokens, cost_usd, note, pid, host from runs order by started_at desc limit ?",
        [int(limit)],
    )
    return [replace(r, cost_usd=round(float(r.cost_usd), 4)) for r in found]


def count_runs(db: Database, statuses: Sequence[RunStatus]) -> int:
    """Number of runs whose status is one of ``statuses``."""
    if not statuses:
        return 0
    marks = placeholders(statuses)
    return int(
        db.execute(
            f"select count(*) from runs where status in ({marks})", list(statuses)
        ).fetchone()[0]
    )


def latest_entity_method(db: Database, document_id: str) -> str | None:
    """The method of the entities of ``document_id`` stored by the latest run (by the run's
    start; entities without a run come last, newest id first), or None when it has none."""
    row = db.execute(
        "select e.method from entities e left join runs r on r.id = e.run_id "
        "where e.document_id = ? order by r.started_at desc, e.id desc limit 1",
        [document_id],
    ).fetchone()
    return row[0] if row else None
