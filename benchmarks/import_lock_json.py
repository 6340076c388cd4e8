"""The former row stage, kept as the reference of ``benchmarks/import_lock.py --case answers-json``:
rows staged as JSON text in the ``row_stage`` table (migration m0751), 5,000 per ``BEGIN
IMMEDIATE`` transaction with a short pause after each, and switched in with one
``json_extract`` per column and row (SQLite only, as the benchmark).
"""

from __future__ import annotations

import contextlib
import json
import time
import uuid
from collections.abc import Iterator, Sequence
from typing import Any

import core.corpus.evaluations as evaluations
from core.store.connection import transaction
from core.store.row_stage import RowStage

CHUNK_ROWS = 5000


def stage_rows(db: Any, target: str, rows: Sequence[dict[str, Any]]) -> RowStage:
    stage = RowStage(uuid.uuid4().hex, target, tuple(rows[0]) if rows else ())
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
        time.sleep(max(0.005, (time.perf_counter() - began) * 0.25))
    return stage


def switch_rows(db: Any, stage: RowStage) -> int:
    if not stage.n_rows:
        return 0
    cols = ", ".join(f"[{c}]" for c in stage.columns)
    values = ", ".join(f"json_extract(row, '$.\"{c}\"')" for c in stage.columns)
    return int(
        db.execute(
            f"insert into [{stage.target}] ({cols}) select {values} from row_stage "
            "where stage = ? order by seq",
            [stage.stage],
        ).rowcount
    )


def drop_rows_stage(db: Any, stage: RowStage) -> None:
    while True:
        with transaction(db):
            gone = db.execute(
                "delete from row_stage where rowid in "
                "(select rowid from row_stage where stage = ? limit ?)",
                [stage.stage, CHUNK_ROWS],
            ).rowcount
        if gone < CHUNK_ROWS:
            return


@contextlib.contextmanager
def json_stage() -> Iterator[None]:
    """``store_evaluation`` through the JSON stage while the block runs."""
    names = ("stage_rows", "switch_rows", "drop_rows_stage")
    real = {n: getattr(evaluations, n) for n in names}
    for n in names:
        setattr(evaluations, n, globals()[n])
    try:
        yield
    finally:
        for n, fn in real.items():
            setattr(evaluations, n, fn)
