"""Table ``runs``: the only module with SQL on it. One bookkeeping row per pipeline step (entities,
generation, experiments, EXAM grading, XRAG evaluation, ...) with its status, process and the
running totals of its model calls. SQLAlchemy Core over :mod:`core.store.tables_more` (issue 33)."""

from __future__ import annotations

import os
import socket
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Self

import sqlalchemy as sa

from core.store.connection import dumps, transaction, utcnow
from core.store.experiments import mark_experiments_interrupted
from core.store.llm_cache import forget_cached_run_calls
from core.store.prepared import run_bound
from core.store.statements import all_rows, run
from core.store.stored_enums import stored_enum
from core.store.tables import entities
from core.store.tables_more import runs

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


def _read(db: Database, query: sa.Select[Any]) -> list[Run]:
    return [Run.from_row(r) for r in all_rows(db, query)]


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
    row = {
        "id": run_id,
        "kind": kind,
        "name": name,
        "config": dumps(config),
        "status": str(RunStatus.RUNNING),
        "started_at": started_at or utcnow(),
        "pid": os.getpid(),
        "host": socket.gethostname(),
    }
    run(db, sa.insert(runs).values(**row))
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
    run(db, sa.update(runs).where(runs.c.id == run_id).values(**sets))


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
    return {r[0] for r in run(db, sa.select(runs.c.id))}


def discard_idle_runs(db: Database, run_ids: Sequence[str]) -> list[str]:
    """Delete the finished (``done``) runs among ``run_ids`` that changed nothing: every model
    call they logged was answered from the cache and no row but those calls points at them (a
    re-run with nothing new leaves no trace: no runs or ``llm_calls`` rows). Return their ids."""
    idle = []
    for run_id in run_ids:
        with transaction(db):
            done = run(db, sa.select(runs.c.status).where(runs.c.id == run_id)).fetchone()
            if (
                done is None
                or done[0] != RunStatus.DONE
                or any(
                    _points_at(db, table, column, run_id)
                    for table, column in RUN_REFERENCES
                    if table != "llm_calls"
                )
            ):
                continue
            if forget_cached_run_calls(db, run_id):
                run(db, sa.delete(runs).where(runs.c.id == run_id))
                idle.append(run_id)
    return idle


def _points_at(db: Database, table: str, column: str, run_id: str) -> bool:
    """Whether a row of ``table`` names ``run_id`` in ``column`` (one of :data:`RUN_REFERENCES`)."""
    found = sa.select(sa.literal(1)).select_from(sa.table(table)).where(sa.column(column) == run_id)
    return run(db, found.limit(1)).fetchone() is not None


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


#: The running runs of a host (built once: every open of the database asks, issue 37).
_RUNNING_HERE = sa.select(runs.c.id, runs.c.pid).where(
    runs.c.status == RunStatus.RUNNING, runs.c.host == sa.bindparam("host"), runs.c.pid.is_not(None)
)
#: Whether any run of host ``:host`` is marked running with a pid (what :func:`mark_dead_runs`
#: looks at): checked by every open in one statement with the schema check
#: (:func:`core.store.database.open_db`), which calls :func:`mark_dead_runs` only then.
ANY_RUNNING_HERE = sa.exists(_RUNNING_HERE)


def mark_dead_runs(db: Database) -> list[str]:
    """Mark ``interrupted`` every ``running`` run of this host whose process is gone (killed,
    crashed), and the experiments pointing at them; return their ids. Runs of other hosts are
    left alone (their liveness cannot be checked from here)."""
    host = socket.gethostname()
    found = run_bound(db, _RUNNING_HERE, {"host": host}).fetchall()
    dead = [run_id for run_id, pid in found if not pid_alive(pid)]
    if not dead:
        return []
    now = utcnow()
    note = sa.func.coalesce(sa.func.nullif(runs.c.note, ""), "process died")
    with transaction(db):
        interrupted = sa.update(runs).where(runs.c.id.in_(dead))
        run(db, interrupted.values(status="interrupted", finished_at=now, note=note))
        mark_experiments_interrupted(db, dead, now)
    return dead


def run_exists(db: Database, run_id: str) -> bool:
    """Whether a ``runs`` row with this id is stored."""
    return run(db, sa.select(sa.literal(1)).where(runs.c.id == run_id)).fetchone() is not None


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
    r = runs.c
    add = sa.update(runs).where(r.id == run_id)
    run(
        db,
        add.values(
            n_calls=r.n_calls + n_calls,
            input_tokens=r.input_tokens + input_tokens,
            output_tokens=r.output_tokens + output_tokens,
            cost_usd=r.cost_usd + cost_usd,
        ),
    )


def experiment_runs(db: Database) -> list[Run]:
    """Every experiment run (``name`` is the experiment's), newest first."""
    query = sa.select(runs).where(runs.c.kind == "experiment")
    return _read(db, query.order_by(runs.c.started_at.desc()))


def recent_runs(db: Database, limit: int = 50) -> list[Run]:
    """The ``limit`` latest runs (cost rounded to 4 decimals, in Python: PostgreSQL has no
    ``round(double precision, integer)``), newest first."""
    found = _read(db, sa.select(runs).order_by(runs.c.started_at.desc()).limit(int(limit)))
    return [replace(r, cost_usd=round(float(r.cost_usd), 4)) for r in found]


def count_runs(db: Database, statuses: Sequence[RunStatus]) -> int:
    """Number of runs whose status is one of ``statuses``."""
    if not statuses:
        return 0
    query = sa.select(sa.func.count()).where(runs.c.status.in_([str(s) for s in statuses]))
    return int(run(db, query).fetchone()[0])


def latest_entity_method(db: Database, document_id: str) -> str | None:
    """The method of the entities of ``document_id`` stored by the latest run (by the run's
    start; entities without a run come last, newest id first), or None when it has none."""
    e, r = entities.alias("e"), runs.alias("r")
    query = (
        sa.select(e.c.method)
        .join_from(e, r, r.c.id == e.c.run_id, isouter=True)
        .where(e.c.document_id == document_id)
        .order_by(r.c.started_at.desc().nulls_last(), e.c.id.desc())
    )  # entities without a run last on both (PostgreSQL sorts nulls first when descending)
    row = run(db, query.limit(1)).fetchone()
    return row[0] if row else None
