"""Staged rows: a large import's new rows written in short transactions, switched in at once.

:func:`stage_rows` writes the rows as JSON objects into ``row_stage`` (no reader looks at it) in
chunks of :data:`CHUNK_ROWS`, each its own transaction with a short pause after it (a waiting
label write gets the lock); :func:`switch_rows`, inside the caller's one short transaction,
copies them into their table in SQL (``json_extract`` per column, on PostgreSQL cast to the
column's type) and :func:`drop_rows_stage`
removes the stage afterwards in short chunks. Readers see all of the rows or none. Stages of
processes that died are removed by the next :func:`stage_rows`.
"""

from __future__ import annotations

import json
import os
import socket
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from core.store.connection import transaction
from core.store.runs import pid_alive

if TYPE_CHECKING:
    from core.store.engine import Database

CHUNK_ROWS = 5000
PAUSE_SHARE = 0.25  # after each chunk, pause this share of its hold (at least 5 ms)


@dataclass
class RowStage:
    """One import's staged rows for ``target``: the stage id, the columns, how many rows."""

    stage: str
    target: str
    columns: tuple[str, ...]
    n_rows: int = 0


def stage_rows(db: Database, target: str, rows: Sequence[dict[str, Any]]) -> RowStage:
    """Write ``rows`` (dicts with the same keys: ``target``'s columns) into a new stage, one short
    transaction per :data:`CHUNK_ROWS` rows. Values must be JSON scalars (text, numbers, None)."""
    _drop_dead_stages(db)
    columns = tuple(rows[0]) if rows else ()
    stage = RowStage(
        f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:12]}", target, columns
    )
    try:
        for start in range(0, len(rows), CHUNK_ROWS):
            began = time.perf_counter()
            with transaction(db):
                db.conn.executemany(
                    "insert into row_stage (stage, seq, target, row) values (?, ?, ?, ?)",
                    (
                        (stage.stage, start + i, target, json.dumps(r, ensure_ascii=False))
                        for i, r in enumerate(rows[start : start + CHUNK_ROWS])
                    ),
                )
            stage.n_rows += len(rows[start : start + CHUNK_ROWS])
            if not db.conn.in_transaction:
                time.sleep(max(0.005, (time.perf_counter() - began) * PAUSE_SHARE))
    except BaseException:
        drop_rows_stage(db, stage)
        raise
    return stage


def switch_rows(
    db: Database,
    stage: RowStage,
    fill: dict[str, str] | None = None,
    params: Sequence[Any] = (),
    columns: Sequence[str] | None = None,
) -> int:
    """Copy the staged rows into ``stage.target`` in their order (call inside the caller's
    transaction); return how many. ``fill`` maps a column to the SQL expression used when the
    staged value is null (it may read the staged values with :func:`staged`; its ``?`` marks
    take ``params``, in column order); ``columns`` (default: all staged) are the ones written.
    The stage stays until :func:`drop_rows_stage`."""
    if not stage.n_rows:
        return 0
    fill = fill or {}
    written = tuple(columns or stage.columns)
    cols = ", ".join(f"[{c}]" for c in written)
    types = _column_types(db, stage.target)

    def value(c: str) -> str:
        typed = f"cast({staged(c)} as {types[c]})" if c in types else staged(c)
        return f"coalesce({typed}, {fill[c]})" if c in fill else typed

    values = ", ".join(value(c) for c in written)
    return db.execute(
        f"insert into [{stage.target}] ({cols}) select {values} from row_stage "
        "where stage = ? order by seq",
        [*params, stage.stage],
    ).rowcount


def _column_types(db: Database, table: str) -> dict[str, str]:
    """PostgreSQL: the non-text columns of ``table`` and their types, to cast each staged value
    to (``json_extract`` gives text there; SQLite gives the JSON value's own type: none needed)."""
    if db.dialect.name != "postgresql":
        return {}
    found = db.execute(
        "select column_name, data_type from information_schema.columns where table_schema = "
        "current_schema() and table_name = ? and data_type not in ('text', 'character varying')",
        [table],
    ).fetchall()
    return {str(name): str(kind) for name, kind in found}


def staged(column: str) -> str:
    """SQL: the staged value of ``column`` of the current ``row_stage`` row."""
    return f"json_extract(row, '$.\"{column}\"')"


def drop_rows_stage(db: Database, stage: RowStage) -> None:
    """Remove a stage's rows (switched in, or an import that failed) in short transactions."""
    if db.conn.in_transaction:
        db.execute("delete from row_stage where stage = ?", [stage.stage])
        return
    while True:
        with transaction(db):
            gone = db.execute(
                "delete from row_stage where rowid in "
                "(select rowid from row_stage where stage = ? limit ?)",
                [stage.stage, CHUNK_ROWS],
            ).rowcount
        if gone < CHUNK_ROWS:
            return


def _drop_dead_stages(db: Database) -> None:
    """Remove the stages whose process on this host died (an import killed mid-way)."""
    host = socket.gethostname()
    for (stage,) in db.execute("select distinct stage from row_stage").fetchall():
        owner, _, rest = stage.partition(":")
        pid = rest.partition(":")[0]
        if owner == host and pid.isdigit() and not pid_alive(int(pid)):
            drop_rows_stage(db, RowStage(stage, "", ()))
