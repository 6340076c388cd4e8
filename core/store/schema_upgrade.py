"""Bringing a database's schema to the newest revision (issue 33): Alembic, run in-process.

The schema's history is Alembic's (``core/store/revisions/``: ``env.py``, ``versions/``). A
database records its revision in ``alembic_version``; :func:`upgrade_schema` reads it with one
query and, when it is :data:`core.store.revisions.HEAD`, returns without importing Alembic
(about 0.2 s). Otherwise, inside one write transaction (SQLite ``BEGIN IMMEDIATE``; PostgreSQL
``BEGIN`` and an advisory lock: one migrating process at a time):

- a new database (no ``schema_migrations``): ``upgrade head`` from nothing (the baseline
  creates the schema);
- a database the numbered migrations made (``schema_migrations``, no ``alembic_version``): at
  :data:`~core.store.revisions.LEGACY_LAST` it is stamped at the baseline, then upgraded; an
  older SQLite one first gets its missing numbered migrations (``core/store/migrations/``,
  SQLite's spelling, each in its own transaction, as before); an older PostgreSQL one is refused
  with one line (those migrations need the SQL rewriting that is gone: upgrade it with the
  release at commit 3ae2036 first);
- a database at an older revision: ``upgrade head``; one at a revision this copy does not know
  (made by a newer workbench) is refused with one line.
"""

from __future__ import annotations

import contextlib
import importlib
import pkgutil
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa
from sqlalchemy.pool import StaticPool

import core.store.migrations as migrations_pkg
from core.errors import DatabaseFileError
from core.store.connection import transaction, utcnow
from core.store.engine import plain
from core.store.revisions import BASELINE, HEAD, HERE, LEGACY_LAST

if TYPE_CHECKING:
    from core.store.engine import Database

#: The last release with the numbered migrations (an older PostgreSQL database upgrades there).
LEGACY_RELEASE = "3ae2036"

_lock = threading.Lock()


@dataclass(frozen=True, slots=True)
class Upgrade:
    """What :func:`upgrade_schema` did: from ``before`` (a revision, a numbered migration's
    name, or ``None``: a new database) to revision ``after``."""

    before: str | None
    after: str

    def line(self, where: str) -> str:
        """One line saying it: ``upgraded DB from m0760_sign_in_failures to revision 0001``."""
        if self.before is None:
            return f"created the schema of {where} at revision {self.after}"
        origin = self.before if self.before.startswith("m") else f"revision {self.before}"
        return f"upgraded the schema of {where} from {origin} to revision {self.after}"


def alembic_revision(db: Database) -> str | None:
    """The revision recorded in ``alembic_version`` (``None``: no such table yet)."""
    if "alembic_version" not in db.table_names():
        return None
    found = plain(db.conn, "select version_num from alembic_version").fetchone()
    return None if found is None else str(found[0])


def schema_revision(db: Database) -> str | None:
    """Where the schema is: its revision, else the last numbered migration, else ``None``."""
    found = alembic_revision(db)
    if found is not None:
        return found
    legacy = applied_migrations(db)
    return legacy[-1] if legacy else None


def upgrade_schema(db: Database, where: str) -> Upgrade | None:
    """Bring ``db`` to :data:`HEAD` (see the module); ``None`` if it was there already.
    ``where`` names the database in an error (no password)."""
    if alembic_revision(db) == HEAD:
        return None
    with _lock:
        before = schema_revision(db)
        legacy = "schema_migrations" in db.table_names() and alembic_revision(db) is None
        if legacy and LEGACY_LAST not in applied_migrations(db):
            if db.dialect.name == "postgresql":
                raise DatabaseFileError(
                    f"{where} is at numbered migration {before}, older than {LEGACY_LAST}: "
                    f"upgrade it with the workbench at commit {LEGACY_RELEASE} first "
                    "(python -m core migrate), then with this one"
                )
            _legacy_migrate(db)
        after = _run_alembic(db, where, stamp=legacy)
    return None if after == before else Upgrade(before, after)


def _run_alembic(db: Database, where: str, *, stamp: bool) -> str:
    """Stamp at the baseline (if ``stamp`` and not stamped meanwhile) and upgrade to the head,
    in one transaction on ``db``'s own connection; the revision reached."""
    from alembic import command
    from alembic.config import Config
    from alembic.util import CommandError

    engine = engine_over(db)
    config = Config()
    config.set_main_option("script_location", str(HERE).replace("%", "%%"))
    config.set_main_option("path_separator", "os")
    lock = getattr(db.conn, "write_lock", None) or contextlib.nullcontext()
    with lock, engine.begin() as conn:
        if db.dialect.migration_lock_sql:  # PostgreSQL: one migrating process at a time
            conn.exec_driver_sql(db.dialect.migration_lock_sql)
        config.attributes["connection"] = conn
        found = sa.inspect(conn).has_table("alembic_version")
        if stamp and not found:
            command.stamp(config, BASELINE)
        try:
            command.upgrade(config, "head")
        except CommandError as exc:  # a revision this copy does not know
            raise DatabaseFileError(
                f"{where} is at a schema revision this version of the workbench does not know "
                f"({exc}); it was made by a newer version: use that one"
            ) from None
        reached = conn.exec_driver_sql("select version_num from alembic_version").scalar()
    return str(reached)


def engine_over(db: Database) -> sa.Engine:
    """A SQLAlchemy engine whose one connection is ``db``'s own (same session, same temp
    tables; never closed by the engine); ``engine.begin()`` opens the dialect's write
    transaction (``BEGIN IMMEDIATE`` / ``BEGIN``: the drivers are in autocommit mode)."""
    postgres = db.dialect.name == "postgresql"
    raw: Any = db.conn.raw if postgres else db.conn  # type: ignore[attr-defined]
    engine = sa.create_engine(
        "postgresql+psycopg://" if postgres else "sqlite://",
        creator=lambda: raw,
        poolclass=StaticPool,
        pool_reset_on_return=None,
    )

    @sa.event.listens_for(engine, "begin")
    def _begin(conn: sa.Connection) -> None:
        conn.exec_driver_sql(db.dialect.begin_sql)

    return engine


def registered_migrations() -> list[tuple[str, Any]]:
    """The numbered migration modules of :mod:`core.store.migrations`, sorted by name."""
    found = []
    for info in pkgutil.iter_modules(migrations_pkg.__path__):
        if info.name.startswith("m") and info.name[1:5].isdigit():
            found.append((info.name, importlib.import_module(f"core.store.migrations.{info.name}")))
    return sorted(found, key=lambda item: item[0])


def applied_migrations(db: Database) -> list[str]:
    """Names of the numbered migrations recorded in ``db``'s ``schema_migrations``."""
    if "schema_migrations" not in db.table_names():
        return []
    return [str(r[0]) for r in plain(db.conn, "select name from schema_migrations order by name")]


def _legacy_migrate(db: Database) -> list[str]:
    """Apply the numbered migrations a SQLite database lacks (SQLite's spelling), each in its
    own transaction; the names applied."""
    done = set(applied_migrations(db))
    applied = []
    for name, module in registered_migrations():
        if name in done:
            continue
        with transaction(db):
            # Another process may have migrated meanwhile: re-check inside the write lock.
            if db.execute("select 1 from schema_migrations where name = ?", [name]).fetchone():
                continue
            module.apply(db)
            db.table("schema_migrations").insert({"name": name, "applied_at": utcnow()})
        applied.append(name)
    return applied
