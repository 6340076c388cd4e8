"""Staged rows: a large import's new rows written outside the write lock, switched in at once.

:func:`stage_rows` writes the rows into a new TEMP table of this connection (typed like the
target's columns; no other connection can see it, and on SQLite writing it takes no lock on
the database file, so a label write never waits for it), in chunks of :data:`CHUNK_ROWS` per
transaction; :func:`switch_rows`, inside the caller's one short transaction, copies them into
their table with one ``insert ... select`` (plain columns: nothing to parse or cast) and
:func:`drop_rows_stage` drops the table. Readers see all of the rows or none. A process that dies
leaves nothing behind: its temp tables go with its connection. (The ``row_stage`` table of
migration m0751, where rows used to be staged as JSON, is no longer written.)
"""

from __future__ import annotations

import contextlib
import operator
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from core.store.engine import Database

CHUNK_ROWS = 5000
STAGE_PREFIX = "row_stage_"


@dataclass
class RowStage:
    """One import's staged rows for ``target``: the stage's table, the columns, how many rows."""

    stage: str
    target: str
    columns: tuple[str, ...]
    n_rows: int = 0


def stage_rows(db: Database, target: str, rows: Sequence[dict[str, Any]]) -> RowStage:
    """Write ``rows`` (dicts with the same keys: ``target``'s columns, or extra ones a fill
    expression reads) into a new stage, one transaction per :data:`CHUNK_ROWS` rows. Values
    must be scalars (text, numbers, None)."""
    columns = tuple(rows[0]) if rows else ()
    stage = RowStage(f"{STAGE_PREFIX}{uuid.uuid4().hex[:16]}", target, columns)
    if not rows:
        return stage
    types = _column_types(db, target)
    untyped = "text" if db.dialect.name == "postgresql" else ""  # a column the target lacks
    declared = ", ".join(f"{_q(c)} {types.get(c, untyped)}".rstrip() for c in columns)
    db.execute(f'create temp table {stage.stage} ("seq" integer primary key, {declared})')
    insert = (
        f'insert into {stage.stage} ("seq", {", ".join(_q(c) for c in columns)}) '
        f"values (?, {', '.join('?' * len(columns))})"
    )
    # the values of a row in column order (itemgetter of one column gives the value, not a tuple)
    get = operator.itemgetter(*columns)
    values = get if len(columns) > 1 else (lambda r: (get(r),))
    own = not db.conn.in_transaction  # else the rows join the caller's transaction
    try:
        for start in range(0, len(rows), CHUNK_ROWS):
            chunk = rows[start : start + CHUNK_ROWS]
            if own:
                db.conn.execute("BEGIN")  # deferred: only the temp table is written
            try:
                db.conn.executemany(insert, ((start + i, *values(r)) for i, r in enumerate(chunk)))
            except BaseException:
                if own and db.conn.in_transaction:
                    db.conn.execute("ROLLBACK")
                raise
            if own:
                db.conn.execute("COMMIT")
            stage.n_rows += len(chunk)
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
    cols = ", ".join(_q(c) for c in written)

    def value(c: str) -> str:
        return f"coalesce({staged(c)}, {fill[c]})" if c in fill else staged(c)

    values = ", ".join(value(c) for c in written)
    return db.execute(
        f'insert into {_q(stage.target)} ({cols}) select {values} from {stage.stage} s order by s."seq"',
        list(params),
    ).rowcount


@contextlib.contextmanager
def staged_or_direct(
    db: Database,
    stage: Callable[[], RowStage],
    insert: Callable[[], object],
    n_rows: int,
    stage_from: int,
) -> Iterator[Callable[[], object]]:
    """The one pattern of a staged import: with at least ``stage_from`` rows, ``stage()`` writes
    them now (outside the write lock); the yielded ``write`` (called inside the caller's one
    switch transaction) copies the stage in, or with fewer rows calls ``insert()`` (a direct
    insert, short enough). The stage is dropped on the way out, switched in or not."""
    staged_rows = stage() if n_rows >= stage_from else None
    try:
        yield insert if staged_rows is None else (lambda: switch_rows(db, staged_rows))
    finally:
        if staged_rows is not None:
            drop_rows_stage(db, staged_rows)


def staged(column: str) -> str:
    """SQL: the staged value of ``column`` of the current stage row (alias ``s``)."""
    return f"s.{_q(column)}"


def drop_rows_stage(db: Database, stage: RowStage) -> None:
    """Remove a stage (switched in, or an import that failed): drop its temp table."""
    db.execute(f"drop table if exists {stage.stage}")


def live_stages(db: Database) -> list[str]:
    """The stage tables this connection still has (for tests: none after an import)."""
    if db.dialect.name == "postgresql":
        sql = (
            "select relname from pg_class where relnamespace = pg_my_temp_schema() "
            "and relkind = 'r'"
        )
    else:
        sql = "select name from sqlite_temp_master where type = 'table'"
    return sorted(str(r[0]) for r in db.execute(sql) if str(r[0]).startswith(STAGE_PREFIX))


def _q(column: str) -> str:
    return f'"{column}"'


def _column_types(db: Database, table: str) -> dict[str, str]:
    """PostgreSQL: ``table``'s columns and their types, for the stage's columns (SQLite: none,
    each staged value keeps its own type, as the column it is copied into will)."""
    if db.dialect.name != "postgresql":
        return {}
    found = db.execute(
        "select column_name, data_type from information_schema.columns where table_schema = "
        "current_schema() and table_name = ?",
        [table],
    ).fetchall()
    return {str(name): str(kind) for name, kind in found}
