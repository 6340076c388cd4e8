"""Opening the workbench database: connect, then apply every pending registered migration.

Registered migrations live in :mod:`core.store.migrations` as modules ``mNNNN_<name>.py`` that
define ``apply(db)``. They run in name order, each inside one transaction, and are recorded in
``schema_migrations``; the schema version is the number of applied migrations.

A missing file is created only where creating is meant (``create=True``, the library default;
the CLI allows it only in ``init`` and ``demo``, see :func:`creating`); any other broken path or
SQLite failure while opening is one :class:`core.errors.DatabaseFileError` (:mod:`core.store.dbfile`),
and so is a database holding another application's tables (:mod:`core.store.foreign_db`), found
before anything is written to it.
"""

from __future__ import annotations

import contextlib
import importlib
import pkgutil
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import core.store.migrations as migrations_pkg
from core.store.connection import default_db_path, transaction, use_wal, utcnow
from core.store.dbfile import check_db_file, explain_sqlite_error, is_file_error
from core.store.engine import Database
from core.store.foreign_db import refuse_foreign
from core.store.passage_stage import drop_dead_stages
from core.store.pg_connection import without_password
from core.store.pool import Pooled, borrow_postgres, borrow_sqlite, engine_for
from core.store.postgres import POSTGRES
from core.store.runs import mark_dead_runs

_migrate_lock = threading.Lock()
_create_missing = True  # whether open_db creates a missing file when not told (see creating())


@contextlib.contextmanager
def creating(allowed: bool) -> Iterator[None]:
    """Within the block, :func:`open_db` without ``create=`` creates a missing database only if
    ``allowed`` (the CLI: ``init`` and ``demo`` only; a mistyped ``--db`` is an error)."""
    global _create_missing
    before, _create_missing = _create_missing, allowed
    try:
        yield
    finally:
        _create_missing = before


def open_db(
    path: str | Path | None = None,
    *,
    migrate: bool = True,
    create: bool | None = None,
    read_only: bool = False,
) -> Database:
    """Open (and by default migrate) the workbench database at ``path``.

    The connection is in autocommit mode; use :func:`transaction` for multi-row writes. Opening
    with ``migrate`` also marks runs whose process died as ``interrupted``. A missing file is
    created when ``create`` (default: see :func:`creating`); a missing, unusable or damaged file
    otherwise raises :class:`core.errors.DatabaseFileError` before anything is written, and so
    does a database that is not the workbench's (:func:`core.store.foreign_db.refuse_foreign`:
    decided before SQLite's journal mode is switched to WAL). ``read_only`` (SQLite, without
    ``migrate``): SQLite's ``mode=ro``, the journal mode left as it is (``migrate-db``'s SRC).
    """
    if read_only and migrate:
        raise ValueError("a read-only database cannot be migrated")
    path = path if path is not None else default_db_path()
    url = postgres_url(path)
    if url is not None:
        return _open_postgres(url, migrate=migrate)
    make = _create_missing if create is None else create
    check_db_file(path, create=make)
    if make and str(path) != ":memory:":
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    memory = str(path) == ":memory:"
    pooled = engine_for(path, postgres=False, read_only=read_only)
    conn = None
    try:
        conn = borrow_sqlite(pooled)
        db = Database(conn)
        known = not memory and _up_to_date(db, pooled)
        if not known:
            refuse_foreign(db, str(path), create=make)  # before the first write (WAL)
        if not read_only and not memory:
            use_wal(conn)
        if migrate:
            _migrate_once(db, pooled, known)
    except BaseException as exc:
        if conn is not None:
            conn.close()
        if isinstance(exc, sqlite3.Error) and is_file_error(exc):
            raise explain_sqlite_error(exc, path) from None
        raise
    return db


def postgres_url(path: str | Path) -> str | None:
    """The PostgreSQL URL ``path`` names, if it names one (``postgresql://`` or ``postgres://``;
    also after ``Path`` folded the ``//`` to ``/``), else ``None`` (a SQLite file)."""
    text = str(path)
    for scheme in ("postgresql:", "postgres:"):
        if text.startswith(scheme + "/"):
            rest = text[len(scheme) :].lstrip("/")
            return f"{scheme}//{rest}"
    return None


def _open_postgres(url: str, *, migrate: bool) -> Database:
    """Borrow a connection from the URL's pool (:mod:`core.store.pool`; the database must
    exist), refuse someone else's tables (:func:`core.store.foreign_db.refuse_foreign`) and
    migrate, the first time in this process only."""
    pooled = engine_for(url, postgres=True)
    db = Database(borrow_postgres(pooled), POSTGRES)
    try:
        known = _up_to_date(db, pooled)
        if not known:
            refuse_foreign(db, without_password(url), create=True)  # before migrating
        if migrate:
            _migrate_once(db, pooled, known)
    except BaseException:
        db.conn.close()
        raise
    return db


def _up_to_date(db: Database, pooled: Pooled) -> bool:
    """Whether this process migrated (or found migrated) this database already: its engine
    knows the applied migrations and ``schema_migrations`` still holds as many (one count; a
    file replaced by another one at the same path is checked again)."""
    if pooled.migrated is None:
        return False
    try:  # autocommit: a failed query leaves no transaction behind on either database
        found = db.execute("select count(*) from schema_migrations").fetchone()[0]
    except Exception:
        return False
    return int(found) == len(pooled.migrated)


def _migrate_once(db: Database, pooled: Pooled, known: bool) -> None:
    """Apply pending migrations unless this process knows there are none; then the
    bookkeeping every open does (runs whose process died, their staged passages)."""
    if not known:
        migrate_db(db)
        pooled.migrated = frozenset(applied_migrations(db))
    mark_dead_runs(db)  # a run whose process died shows as interrupted, not running
    drop_dead_stages(db)  # and the passages its import staged are removed


@contextlib.contextmanager
def opened(path: str | Path | None = None, *, create: bool | None = None) -> Iterator[Database]:
    """Context manager: open a migrated database (see :func:`open_db`) and close it afterwards."""
    db = open_db(path, create=create)
    try:
        yield db
    finally:
        db.conn.close()


def registered_migrations() -> list[tuple[str, Any]]:
    """All migration modules in :mod:`core.store.migrations`, sorted by name."""
    found = []
    for info in pkgutil.iter_modules(migrations_pkg.__path__):
        if info.name.startswith("m") and info.name[1:5].isdigit():
            found.append((info.name, importlib.import_module(f"core.store.migrations.{info.name}")))
    return sorted(found, key=lambda item: item[0])


def applied_migrations(db: Database) -> list[str]:
    """Names of the migrations already applied to ``db``."""
    if "schema_migrations" not in db.table_names():
        return []
    return [r["name"] for r in db.query("select name from schema_migrations order by name")]


def schema_version(db: Database) -> int:
    """The schema version: how many registered migrations have been applied."""
    return len(applied_migrations(db))


def migrate_db(db: Database) -> list[str]:
    """Apply every pending migration, each in its own transaction; return the names applied."""
    with _migrate_lock:
        db.execute(
            "create table if not exists schema_migrations (name text primary key, applied_at text)"
        )
        done = set(applied_migrations(db))
        pending = [(name, module) for name, module in registered_migrations() if name not in done]
        if pending and db.dialect.setup_sql:  # PostgreSQL: functions giving SQLite's behaviour
            with transaction(db):  # (a change to setup_sql ships with a migration, so it runs)
                if db.dialect.migration_lock_sql:
                    db.execute(db.dialect.migration_lock_sql)
                for statement in db.dialect.setup_sql:
                    db.conn.execute(statement)
        applied = []
        for name, module in pending:
            with transaction(db):
                if db.dialect.migration_lock_sql:  # PostgreSQL: one migrating process at a time
                    db.execute(db.dialect.migration_lock_sql)
                # Another process may have migrated meanwhile: re-check inside the write lock.
                if db.execute("select 1 from schema_migrations where name = ?", [name]).fetchone():
                    continue
                module.apply(db)
                db.table("schema_migrations").insert({"name": name, "applied_at": utcnow()})
            applied.append(name)
        return applied
