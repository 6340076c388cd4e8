"""Staged passages: a long document import written in short transactions, switched in at once.

A 25 MB book has about 20,000 passages. Written in one transaction they held SQLite's write lock
for tens of seconds, and every label clicked meanwhile waited or failed. Instead the importer
writes them with :func:`stage_passages` into ``passage_stage`` (which no reader looks at) in
chunks of at most :data:`CHUNK_ROWS` rows / :data:`CHUNK_CHARS` characters, each chunk its own
transaction, pausing briefly after each so a waiting writer gets the lock; then, inside the one
short transaction that also writes the document row, :func:`switch_passages` replaces the
document's passages with the staged ones (the stage is then dropped in short chunks). Readers see the old document or the new one, never a
mix. A stage left by a process that died is removed by :func:`drop_dead_stages`. SQLAlchemy Core
over :mod:`core.store.tables_reads` (issue 33): nothing here is translated for PostgreSQL.
"""

from __future__ import annotations

import os
import socket
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa

from core.errors import StoreError
from core.store.connection import transaction
from core.store.prepared import run_bound, scalar
from core.store.runs import pid_alive
from core.store.statements import run_many
from core.store.tables import passages
from core.store.tables_reads import passage_stage

if TYPE_CHECKING:
    from core.store.engine import Database

CHUNK_ROWS = 2000
CHUNK_CHARS = 2_000_000
#: After each chunk the importer pauses this share of the chunk's lock hold (at least 5 ms).
PAUSE_SHARE = 0.25
COLUMNS = ("idx", "start", "end", "text", "n_tokens")


_S = passage_stage.c
_INSERT = sa.insert(passage_stage)
_OF_STAGE = _S.stage == sa.bindparam("stage")
_COUNT = sa.select(sa.func.count()).where(_OF_STAGE)
_DELETE_PASSAGES = sa.delete(passages).where(passages.c.document_id == sa.bindparam("document_id"))
_SWITCH = sa.insert(passages).from_select(
    ["document_id", *COLUMNS],
    sa.select(_S.document_id, *(_S[c] for c in COLUMNS)).where(_OF_STAGE).order_by(_S.idx),
)
_DROP = sa.delete(passage_stage).where(_OF_STAGE)
#: At most ``n`` rows of a stage, by its primary key (no row address: SQLite's ``rowid`` is
#: not PostgreSQL's).
_FIRST = passage_stage.alias("f")
_DROP_CHUNK = sa.delete(passage_stage).where(
    _OF_STAGE,
    _S.idx.in_(
        sa.select(_FIRST.c.idx)
        .where(_FIRST.c.stage == sa.bindparam("stage"))
        .order_by(_FIRST.c.idx)
        .limit(sa.bindparam("n"))
    ),
)
_STAGES = sa.select(_S.stage).distinct()
#: Whether any stage is left (what :func:`drop_dead_stages` looks at): checked by every open in
#: one statement with the schema check (:func:`core.store.database.open_db`).
ANY_STAGE = sa.exists(sa.select(_S.stage))
_DOCUMENT_STAGES = _STAGES.where(_S.document_id == sa.bindparam("document_id"))


@dataclass
class Stage:
    """One import's staged passages: ``stage`` id, document, rows, longest chunk hold (s)."""

    stage: str
    document_id: str
    n_rows: int
    longest_hold_s: float = 0.0


def _chunks(rows: Sequence[dict[str, Any]]) -> list[Sequence[dict[str, Any]]]:
    """Consecutive runs of ``rows`` of at most CHUNK_ROWS rows and about CHUNK_CHARS characters."""
    out, start, chars = [], 0, 0
    for i, row in enumerate(rows):
        if i > start and (i - start >= CHUNK_ROWS or chars + len(row["text"]) > CHUNK_CHARS):
            out.append(rows[start:i])
            start, chars = i, 0
        chars += len(row["text"])
    if start < len(rows):
        out.append(rows[start:])
    return out


def needs_stage(rows: Sequence[dict[str, Any]]) -> bool:
    """Whether ``rows`` are more than one chunk (fewer go straight into the switch)."""
    return len(_chunks(rows)) > 1


def stage_passages(
    db: Database,
    document_id: str,
    rows: Sequence[dict[str, Any]],
    *,
    after_chunk: Callable[[int], None] | None = None,
) -> Stage:
    """Write ``rows`` (dicts with :data:`COLUMNS`) for ``document_id`` into a new stage, one
    short transaction per chunk; ``after_chunk(n_written)`` runs after each (outside any
    transaction). Earlier stages of the same document, and stages of dead processes, go first."""
    drop_dead_stages(db, document_id)
    stage = Stage(f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:12]}", document_id, 0)
    try:
        for chunk in _chunks(rows):
            started = time.perf_counter()
            with transaction(db):
                for start in range(0, len(chunk), 500):
                    batch = chunk[start : start + 500]
                    keys = {"stage": stage.stage, "document_id": document_id}
                    run_many(db, _INSERT, [{**keys, **r} for r in batch])
            held = time.perf_counter() - started
            stage.longest_hold_s = max(stage.longest_hold_s, held)
            stage.n_rows += len(chunk)
            if after_chunk is not None:
                after_chunk(stage.n_rows)
            if not db.conn.in_transaction:  # a waiting writer (a label) gets its turn
                time.sleep(max(0.005, held * PAUSE_SHARE))
    except BaseException:
        drop_stage(db, stage.stage)
        raise
    return stage


def switch_passages(db: Database, stage: Stage) -> None:
    """Replace the passages of ``stage.document_id`` with the staged rows (then
    :func:`drop_stage`, outside the transaction, removes the stage).

    Call inside the transaction that writes the document row. Raises StoreError (and changes
    nothing, the caller's transaction rolls back) when rows of the stage are missing: another
    import of the same document ran at the same time and removed them."""
    n = scalar(db, _COUNT, {"stage": stage.stage})
    if n != stage.n_rows:
        raise StoreError(
            f"another import of {stage.document_id!r} ran at the same time and replaced this "
            "one's staged passages; nothing was changed: run the import again"
        )
    run_bound(db, _DELETE_PASSAGES, {"document_id": stage.document_id})
    run_bound(db, _SWITCH, {"stage": stage.stage})


def drop_stage(db: Database, stage: str) -> None:
    """Remove one stage's rows (switched in, or an import that failed), in short transactions
    of at most :data:`CHUNK_ROWS` rows (inside a caller's transaction: all at once)."""
    if db.conn.in_transaction:
        run_bound(db, _DROP, {"stage": stage})
        return
    while True:
        with transaction(db):
            gone = run_bound(db, _DROP_CHUNK, {"stage": stage, "n": CHUNK_ROWS}).rowcount
        if gone < CHUNK_ROWS:
            return


def drop_dead_stages(db: Database, document_id: str | None = None) -> int:
    """Remove the stages of ``document_id`` (an earlier import of it that failed, or one running
    now, whose switch then refuses) and of any document whose process on this host died (also
    run by :func:`core.store.database.open_db`, so a killed import leaves nothing behind for
    longer than the next open). Returns how many stages were removed."""
    host = socket.gethostname()
    stages = [r[0] for r in run_bound(db, _STAGES)]
    if not stages:
        return 0
    doc_stages = {r[0] for r in run_bound(db, _DOCUMENT_STAGES, {"document_id": document_id})}
    dead = []
    for stage in stages:
        owner_host, _, rest = stage.partition(":")
        pid = rest.partition(":")[0]
        if stage in doc_stages or (
            owner_host == host and pid.isdigit() and not pid_alive(int(pid))
        ):
            dead.append(stage)
    for stage in dead:
        drop_stage(db, stage)  # in short transactions: a 20,000-row stage holds no long lock
    return len(dead)
