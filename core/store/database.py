"""Opening the workbench database: connect, then bring its schema to the newest revision.

The schema's history is Alembic's (:mod:`core.store.schema_upgrade`, ``core/store/revisions/``);
a database made by an earlier version (numbered migrations, ``schema_migrations``) is upgraded in
place. The check runs once per engine; an upgrade of an existing database says so on stderr in
one line (from which revision to which).

A missing file is created only where creating is meant (``create=True``, the library default;
the CLI allows it only in ``init`` and ``demo``, see :func:`creating`); any other broken path or
SQLite failure while opening is one :class:`core.errors.DatabaseFileError` (:mod:`core.store.dbfile`),
and so is a database holding another application's tables (:mod:`core.store.foreign_db`), found
before anything is written to it.
"""

from __future__ import annotations

import contextlib
import socket
import sqlite3
import sys
from collections.abc import Iterator
from pathlib import Path

import sqlalchemy as sa

from core.store.connection import default_db_path, use_wal
from core.store.dbfile import check_db_file, explain_sqlite_error, is_file_error
from core.store.engine import Database
from core.store.foreign_db import refuse_foreign
from core.store.passage_stage import ANY_STAGE, drop_dead_stages
from core.store.pg_connection import PgConnection, without_password
from core.store.pool import Pooled, borrow_postgres, borrow_sqlite, engine_for
from core.store.postgres import POSTGRES
from core.store.prepared import bound, run_bound
from core.store.runs import ANY_RUNNING_HERE, mark_dead_runs
from core.store.schema_upgrade import Upgrade, schema_revision, upgrade_schema

#: What an engine remembers of its database's schema: the revision and the numbered migrations.
_KNOWN = sa.text(
    "select (select version_num from alembic_version), (select count(*) from schema_migrations)"
)
_ALEMBIC = sa.table("alembic_version", sa.column("version_num"))
_NUMBERED = sa.table("schema_migrations", sa.column("name"))
#: What every open of a database this process knows checks, in one statement (one round trip:
#: issue 33, a label on PostgreSQL borrows twice): :data:`_KNOWN`'s two values, and whether a
#: run of this host (``:host``) is marked running or a passage stage is left, so the dead-run
#: and dead-stage bookkeeping runs only when there is something to look at.
_OPEN_CHECK = sa.select(
    sa.select(_ALEMBIC.c.version_num).scalar_subquery(),
    sa.select(sa.func.count()).select_from(_NUMBERED).scalar_subquery(),
    ANY_RUNNING_HERE,
    ANY_STAGE,
)


def _open_values() -> dict[str, str]:
    """:data:`_OPEN_CHECK`'s values: this host (its runs marked running)."""
    return {"host": socket.gethostname()}


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
        known = None if memory else _up_to_date(db, pooled)
        if known is None:
            refuse_foreign(db, str(path), create=make)  # before the first write (WAL)
        if not read_only and not memory:
            use_wal(conn)
        if migrate:
            _migrate_once(db, pooled, known, str(path))
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
        if known is None:
            refuse_foreign(db, without_password(url), create=True)  # before migrating
        if migrate:
            _migrate_once(db, pooled, known, without_password(url))
    except BaseException:
        db.conn.close()
        raise
    return db


def _up_to_date(db: Database, pooled: Pooled) -> tuple[bool, bool] | None:
    """Whether this process migrated (or found migrated) this database already: its engine
    knows the revision and the numbered migrations recorded, and the database still has them
    (a file replaced by another one at the same path is checked again). If so, whether a run
    of this host is marked running and whether a passage stage is left (what the bookkeeping
    of :func:`_migrate_once` looks at); else ``None``. One statement (:data:`_OPEN_CHECK`)."""
    if pooled.revision is None:
        return None
    found = db.conn.ping_found if isinstance(db.conn, PgConnection) else None
    if found is None:  # no ping read it (SQLite; a new PostgreSQL connection)
        try:  # autocommit: a failed query leaves no transaction behind on either database
            found = run_bound(db, _OPEN_CHECK, _open_values()).fetchone()
        except Exception:
            return None
    if found is None or tuple(found[:2]) != pooled.revision:
        return None
    return bool(found[2]), bool(found[3])


def _migrate_once(
    db: Database, pooled: Pooled, known: tuple[bool, bool] | None, where: str
) -> None:
    """Upgrade the schema unless this process knows it is current (``known``, from
    :func:`_up_to_date`; an existing database's upgrade is one line on stderr); then the
    bookkeeping of every open: runs whose process died are marked interrupted, and the
    passages their imports staged removed (when :func:`_up_to_date` saw any such run or stage;
    always after a migration check)."""
    if known is None:
        done = migrate_db(db, where)
        if done is not None and done.before is not None:
            print(done.line(where), file=sys.stderr)
        pooled.revision = tuple(run_bound(db, _KNOWN).fetchone())
        if pooled.postgres:  # from now on the pool's ping reads it, in the same round trip
            pooled.ping_check = bound(db, _OPEN_CHECK, _open_values())
    running, staged = (True, True) if known is None else known
    if running:
        mark_dead_runs(db)  # a run whose process died shows as interrupted, not running
    if staged:
        drop_dead_stages(db)  # and the passages its import staged are removed


@contextlib.contextmanager
def opened(path: str | Path | None = None, *, create: bool | None = None) -> Iterator[Database]:
    """Context manager: open a migrated database (see :func:`open_db`) and close it afterwards."""
    db = open_db(path, create=create)
    try:
        yield db
    finally:
        db.conn.close()


def schema_version(db: Database) -> str:
    """Where the schema is: its Alembic revision (a database made by an earlier version and
    not upgraded yet: its last numbered migration; ``none``: empty)."""
    return schema_revision(db) or "none"


def migrate_db(db: Database, where: str = "the database") -> Upgrade | None:
    """Bring ``db``'s schema to the newest revision (:func:`core.store.schema_upgrade.upgrade_schema`);
    what was done, ``None`` if nothing."""
    return upgrade_schema(db, where)
