"""Copy a whole workbench database into an empty one (``migrate-db``, issue 25), either kind.

:func:`copy_database` copies every table (``schema_migrations`` excepted: DEST is migrated
already) in foreign-key order, parents first, in chunks read by primary key (keyset
pagination), with the ids kept. A table that references itself (``documents.parent_id``,
``judgments.supersedes``, ...) holds a row back until the row it references is in, so the
append-only and same-owner insert triggers see what they saw when the rows were first written;
nothing is updated or deleted. Generated columns (``llm_calls.system_name``) are left to DEST.

Everything is written in one DEST transaction, and before it commits each table is verified:
the row count and a checksum of the rows are computed the same way on both sides
(:func:`table_checksum`); a difference, or any error, rolls the whole copy back. On PostgreSQL
each identity sequence is then moved past the largest id (``setval``), as explicit ids do not
advance it. The source is read in one snapshot (SQLite: a read transaction; PostgreSQL:
repeatable read). A PostgreSQL DEST is then vacuumed and analysed (issue 33: planner statistics,
and all-visible pages, so an index-only scan visits no row's page: docs/storage.md).

Every table is read and written through SQLAlchemy Core over a lightweight ``sa.table`` of the
plan's columns, the catalogue queries as ``text()`` with bound parameters (issue 33): nothing
here is translated for PostgreSQL.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import sqlite3
from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from core.errors import WorkbenchError
from core.store.connection import transaction
from core.store.engine import Database
from core.store.postgres import POSTGRES
from core.store.revisions import BASELINE
from core.store.schema_upgrade import alembic_revision
from core.store.statements import run, run_many

#: Rows read (and inserted) per statement.
CHUNK = 2000
#: Tables never copied: the migration records (DEST has its own) and SQLite's bookkeeping.
SKIPPED = {
    "schema_migrations",
    "alembic_version",
    "sqlite_sequence",
    "sqlite_stat1",
    "sqlite_stat4",
}


class CopyError(WorkbenchError):
    """The copy cannot start or did not verify; DEST is left as it was."""


@dataclass(frozen=True, slots=True)
class TableCopy:
    """One table's outcome: rows in SRC and in DEST after the copy, and the shared checksum."""

    table: str
    source_rows: int
    dest_rows: int
    checksum: str


@dataclass(frozen=True, slots=True)
class TablePlan:
    """How one table is copied: its columns (generated ones left out), primary key, and the
    column referencing the table's own key, if any (``(column, referenced key column)``)."""

    table: str
    columns: tuple[str, ...]
    pk: tuple[str, ...]
    self_refs: tuple[tuple[str, str], ...]


def is_postgres(db: Database) -> bool:
    """Whether ``db`` is a PostgreSQL database."""
    return db.dialect is POSTGRES


def _fetch(db: Database, sql: str, **params: Any) -> list[tuple[Any, ...]]:
    """The rows of a catalogue query (``text()``, ``:name`` parameters bound)."""
    return [tuple(r) for r in run(db, sa.text(sql).bindparams(**params)).fetchall()]


def _table(plan: TablePlan) -> sa.TableClause:
    """The table of ``plan`` with its copied columns, for Core statements."""
    return sa.table(plan.table, *(sa.column(c) for c in plan.columns))


def copied_tables(db: Database) -> list[str]:
    """The tables a copy carries, sorted by name."""
    return sorted(str(r[0]) for r in _fetch(db, db.dialect.table_names_sql) if r[0] not in SKIPPED)


def foreign_keys(db: Database, table: str) -> list[tuple[str, str, str]]:
    """``(column, referenced table, referenced column)`` for each one-column foreign key."""
    if is_postgres(db):
        rows = _fetch(
            db,
            "select a.attname, c.confrelid::regclass::text, b.attname from pg_constraint c "
            "join pg_attribute a on a.attrelid = c.conrelid and a.attnum = c.conkey[1] "
            "join pg_attribute b on b.attrelid = c.confrelid and b.attnum = c.confkey[1] "
            "where c.contype = 'f' and c.conrelid = cast(:t as regclass)",
            t=db.dialect.quote(table),
        )
        return [(str(r[0]), str(r[1]).strip('"'), str(r[2])) for r in rows]
    rows = _fetch(db, f"pragma foreign_key_list({db.dialect.quote(table)})")
    return [(str(r[3]), str(r[2]), str(r[4] or "id")) for r in rows]


def writable_columns(db: Database, table: str) -> list[str]:
    """The table's columns in declaration order, generated (computed) columns left out."""
    if is_postgres(db):
        rows = _fetch(
            db,
            "select column_name from information_schema.columns where table_schema = "
            "current_schema() and table_name = :t and is_generated = 'NEVER' "
            "order by ordinal_position",
            t=table,
        )
        return [str(r[0]) for r in rows]
    rows = _fetch(db, f"pragma table_xinfo({db.dialect.quote(table)})")
    return [str(r[1]) for r in rows if r[6] == 0]


def table_order(db: Database, tables: Sequence[str]) -> list[str]:
    """``tables`` with every table after the tables it references (ties by name); a cycle
    between tables is a :class:`CopyError`."""
    needs = {
        t: {ref for _, ref, _ in foreign_keys(db, t) if ref != t and ref in tables} for t in tables
    }
    order: list[str] = []
    while needs:
        ready = sorted(t for t, refs in needs.items() if not refs - set(order))
        if not ready:
            raise CopyError(f"foreign keys form a cycle between {', '.join(sorted(needs))}")
        order.extend(ready)
        for t in ready:
            del needs[t]
    return order


def plan_table(src: Database, dest: Database, table: str) -> TablePlan:
    """The copy plan of ``table``: DEST's writable columns, which SRC must have too."""
    columns = writable_columns(dest, table)
    missing = sorted(set(columns) - set(writable_columns(src, table)))
    if missing:
        raise CopyError(f"table {table}: SRC has no column {', '.join(missing)} (schemas differ)")
    pk = tuple(_primary_key(dest, table))
    selfs = tuple((c, rc) for c, rt, rc in foreign_keys(dest, table) if rt == table)
    return TablePlan(table, tuple(columns), pk, selfs)


def _primary_key(db: Database, table: str) -> list[str]:
    """The primary-key columns of ``table`` in key order (``["rowid"]`` if it has none)."""
    if is_postgres(db):
        found = _fetch(
            db,
            "select a.attname from pg_index i join pg_attribute a on a.attrelid = i.indrelid "
            "and a.attnum = any(i.indkey) where i.indrelid = cast(:t as regclass) and "
            "i.indisprimary order by array_position(i.indkey::int2[], a.attnum)",
            t=db.dialect.quote(table),
        )
        return [str(r[0]) for r in found]
    info = _fetch(db, f"pragma table_info({db.dialect.quote(table)})")
    if not info:
        raise sqlite3.OperationalError(f"no such table: {table}")
    return [name for _, name in sorted((r[5], r[1]) for r in info if r[5])] or ["rowid"]


def read_rows(db: Database, plan: TablePlan, chunk: int = CHUNK) -> Iterator[tuple[Any, ...]]:
    """Every row of the table (``plan.columns`` in order), in primary-key order, ``chunk`` rows
    per query (``where (key) > (last key)``, so each query starts where the last one stopped)."""
    table = _table(plan)
    keys = [table.c[k] for k in plan.pk]
    at = [plan.columns.index(k) for k in plan.pk]
    first = sa.select(*table.c).order_by(*keys).limit(int(chunk))
    last: list[Any] | None = None
    while True:
        if last is None:
            rows = run(db, first).fetchall()
        else:
            after = sa.tuple_(*keys) > sa.tuple_(*(sa.literal(v) for v in last))
            rows = run(db, first.where(after)).fetchall()
        yield from (tuple(r) for r in rows)
        if len(rows) < chunk:
            return
        last = [rows[-1][i] for i in at]


def canonical(value: Any) -> Any:
    """A value as both databases give it back, for the checksum: bytes-like -> hex text, a
    ``Decimal`` -> float, anything not JSON-native -> its text; ints, floats, text, ``None``
    unchanged (an int and a float stay distinct: ``1`` vs ``1.0``)."""
    if isinstance(value, bytes | bytearray | memoryview):
        return {"hex": bytes(value).hex()}
    if value is None or isinstance(value, bool | int | float | str):
        return value
    try:
        return float(value)
    except (TypeError, ValueError):
        return str(value)


def row_digest(row: Sequence[Any]) -> int:
    """The first 16 bytes of SHA-256 of the row's canonical JSON, as an integer."""
    text = json.dumps([canonical(v) for v in row], ensure_ascii=False, separators=(",", ":"))
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:16], "big")


def table_checksum(rows: Iterator[tuple[Any, ...]]) -> tuple[int, str]:
    """``(count, checksum)`` of rows: checksum = (sum of :func:`row_digest`) mod 2**128 in hex.

    A sum over rows that each carry their primary key is the same for the same set of rows
    whatever order a database returns them in (PostgreSQL sorts text keys by its collation,
    SQLite byte-wise), and differs when any value of any row differs (up to a 2**-128 chance).
    """
    count, total = 0, 0
    for row in rows:
        count += 1
        total = (total + row_digest(row)) % (1 << 128)
    return count, f"{total:032x}"


def _insert_rows(dest: Database, plan: TablePlan, rows: Iterator[tuple[Any, ...]]) -> None:
    """Insert the rows in chunks; with a self-reference, a row waits for the row it names."""
    insert = sa.insert(_table(plan))
    batch: list[dict[str, Any]] = []

    def flush() -> None:
        run_many(dest, insert, batch)
        batch.clear()

    ordered = _parents_first(plan, rows) if plan.self_refs else rows
    for row in ordered:
        batch.append(dict(zip(plan.columns, row, strict=True)))
        if len(batch) >= CHUNK:
            flush()
    flush()


def _parents_first(plan: TablePlan, rows: Iterator[tuple[Any, ...]]) -> Iterator[tuple[Any, ...]]:
    """The rows, each after the row of the same table it references (a row naming a row not
    yet seen waits for it; one still waiting at the end is a :class:`CopyError`)."""
    refs = [(plan.columns.index(c), plan.columns.index(rc)) for c, rc in plan.self_refs]
    keys = sorted({rc for _, rc in refs})
    seen: dict[int, set[Any]] = {k: set() for k in keys}
    waiting: dict[tuple[int, Any], list[tuple[Any, ...]]] = defaultdict(list)

    def blocker(row: tuple[Any, ...]) -> tuple[int, Any] | None:
        for c, rc in refs:
            if row[c] is not None and row[c] not in seen[rc]:
                return rc, row[c]
        return None

    for row in rows:
        ready = [row]
        while ready:
            current = ready.pop()
            block = blocker(current)
            if block is not None:
                waiting[block].append(current)
                continue
            yield current
            for k in keys:
                seen[k].add(current[k])
                ready.extend(waiting.pop((k, current[k]), []))
    if waiting:
        (_, value), _rows = next(iter(waiting.items()))
        raise CopyError(
            f"table {plan.table}: {len(waiting)} row(s) reference a missing row ({value!r})"
        )


def _advance_identities(dest: Database) -> None:
    """PostgreSQL: each identity sequence continues after the largest id now stored."""
    found = _fetch(
        dest,
        "select table_name, column_name from information_schema.columns where table_schema = "
        "current_schema() and is_identity = 'YES'",
    )
    q = dest.dialect.quote
    for table, column in found:
        _fetch(
            dest,
            f"select setval(pg_get_serial_sequence(:t, :c), coalesce(max({q(column)}), 0) + 1, "
            f"false) from {q(table)}",
            t=q(table),
            c=column,
        )


def check_empty(dest: Database) -> None:
    """Refuse a DEST with rows in any table (``schema_migrations`` aside), naming them."""
    counts = {
        t: int(run(dest, sa.select(sa.func.count()).select_from(sa.table(t))).fetchone()[0])
        for t in copied_tables(dest)
    }
    full = [f"{t} ({n})" for t, n in counts.items() if n]
    if full:
        raise CopyError(
            f"DEST is not empty: {', '.join(full[:5])}{' ...' if len(full) > 5 else ''}; "
            "migrate-db only copies into a new, empty database"
        )


def check_same_schema(src: Database, dest: Database, src_applied: Sequence[str]) -> None:
    """Both databases must have exactly the same numbered migrations and the same revision."""
    dest_applied = [r[0] for r in _fetch(dest, "select name from schema_migrations")]
    if sorted(src_applied) != sorted(dest_applied):
        missing = sorted(set(dest_applied) - set(src_applied))
        extra = sorted(set(src_applied) - set(dest_applied))
        what = (
            f"SRC lacks {', '.join(missing[:3])}" if missing else f"SRC has {', '.join(extra[:3])}"
        )
        raise CopyError(
            f"SRC and DEST are at different schema versions ({what}); migrate SRC first "
            "(python -m core --db SRC init) with this version of the workbench"
        )
    src_at = alembic_revision(src) or BASELINE  # a numbered migrations' database: the baseline
    dest_at = alembic_revision(dest)
    if src_at != dest_at:
        raise CopyError(
            f"SRC and DEST are at different schema revisions ({src_at} and {dest_at}); migrate "
            "SRC first (python -m core --db SRC migrate) with this version of the workbench"
        )


@contextlib.contextmanager
def snapshot(src: Database) -> Iterator[None]:
    """Read ``src`` in one consistent snapshot (a read transaction), ended afterwards."""
    run(src, sa.text("begin isolation level repeatable read" if is_postgres(src) else "begin"))
    try:
        yield
    finally:
        run(src, sa.text("rollback"))


def copy_database(src: Database, dest: Database, src_applied: Sequence[str]) -> list[TableCopy]:
    """Copy every table of ``src`` into the empty, migrated ``dest`` and verify it (see the
    module); the per-table outcome in copy order. Any failure rolls DEST back."""
    check_same_schema(src, dest, src_applied)
    check_empty(dest)
    tables = copied_tables(dest)
    unknown = sorted(set(copied_tables(src)) - set(tables))
    if unknown:
        raise CopyError(f"SRC has tables DEST lacks: {', '.join(unknown)} (schemas differ)")
    plans = [plan_table(src, dest, t) for t in table_order(dest, tables)]
    step = "opening the transactions"
    try:
        with snapshot(src), transaction(dest):
            if not is_postgres(dest):
                run(dest, sa.text("pragma defer_foreign_keys = on"))  # checked at commit instead
            for plan in plans:
                step = f"copying table {plan.table}"
                _insert_rows(dest, plan, read_rows(src, plan))
            step = "advancing the identity sequences"
            if is_postgres(dest):
                _advance_identities(dest)
            step = "verifying"
            done = [_verify(src, dest, plan) for plan in plans]
            step = "committing"
    except (sqlite3.Error, _pg_error()) as exc:
        text = str(exc).strip()
        first = text.splitlines()[0] if text else type(exc).__name__
        raise CopyError(
            f"{step} failed ({first}); the copy was rolled back, DEST is empty"
        ) from None
    if is_postgres(dest):  # as after any bulk load; a failure leaves the copy as it is
        with contextlib.suppress(_pg_error()):
            run(dest, sa.text("vacuum (analyze)"))
    return done


def _verify(src: Database, dest: Database, plan: TablePlan) -> TableCopy:
    """Count and checksum the table on both sides; a difference is a :class:`CopyError`."""
    n_src, sum_src = table_checksum(read_rows(src, plan))
    n_dest, sum_dest = table_checksum(read_rows(dest, plan))
    if (n_src, sum_src) != (n_dest, sum_dest):
        raise CopyError(
            f"table {plan.table} did not verify (SRC {n_src} rows, checksum {sum_src}; DEST "
            f"{n_dest} rows, checksum {sum_dest}); the copy was rolled back"
        )
    return TableCopy(plan.table, n_src, n_dest, sum_src)


def _pg_error() -> type[Exception]:
    """psycopg's base error class (imported only when PostgreSQL is used), else ``sqlite3.Error``."""
    try:
        import psycopg
    except ImportError:  # pragma: no cover - psycopg is a requirement
        return sqlite3.Error
    return psycopg.Error
