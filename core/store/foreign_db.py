"""Whether a database is the workbench's, decided before anything is written to it (issue 38).

Another application's SQLite file (a browser's ``places.sqlite``, a Rails database) or a
PostgreSQL database of someone else's tables must never be migrated into a workbench database:
:func:`refuse_foreign` looks at its tables through the open connection (never by reading the
file: closing another descriptor of it would drop this process's SQLite locks) and raises
:class:`core.errors.DatabaseFileError` when

- it has tables but no ``schema_migrations`` table, or one that is not the workbench's (no
  ``name`` column, a name that is no migration module's ``mNNNN_...``, or no migration recorded
  while other tables exist);
- it has no tables but views, or a SQLite header naming another application
  (``pragma application_id``, e.g. an empty GeoPackage): foreign even for ``init``;
- it has no tables at all and creating is not allowed (SQLite: only ``init`` and ``demo`` make a
  new database; an empty PostgreSQL database, made by ``createdb``, is migrated as before);
- it is a workbench database made by a newer version (a recorded migration this copy does not
  have): this code cannot know that schema, so it neither migrates nor writes it.

Its statements are SQLAlchemy Core or ``text()`` in each dialect's own spelling (issue 33):
nothing here is translated for PostgreSQL.
"""

from __future__ import annotations

import pkgutil
import re
from functools import lru_cache

import sqlalchemy as sa

import core.store.migrations as migrations_pkg
from core.errors import DatabaseFileError
from core.store.dbfile import INIT_HINT
from core.store.engine import Database
from core.store.postgres import POSTGRES
from core.store.prepared import run_bound

#: The recorded migrations (declared here alone: the check must not assume more columns).
_MIGRATIONS = sa.table("schema_migrations", sa.column("name"))
_NAMES = sa.select(_MIGRATIONS.c.name)
#: No row, only the table's column names.
_COLUMNS = sa.text("select * from schema_migrations where 1 = 0")
_APPLICATION_ID = sa.text("pragma application_id")

#: A migration as :mod:`core.store.database` records it: the module's name.
MIGRATION_NAME = re.compile(r"m\d{4}_\w+")


def user_tables(db: Database) -> list[str]:
    """The database's tables, the engine's own bookkeeping (``sqlite_sequence``, ...) left out."""
    found = run_bound(db, _catalogue(db.dialect.table_names_sql))
    return sorted(str(r[0]) for r in found if not str(r[0]).startswith("sqlite_"))


@lru_cache(maxsize=8)
def _catalogue(sql: str) -> sa.TextClause:
    """A catalogue query of a dialect (:class:`core.store.engine.Dialect`), spelled for it."""
    return sa.text(sql)


def is_workbench(db: Database, tables: list[str]) -> bool:
    """Whether ``tables`` (:func:`user_tables` of ``db``) are a workbench database's: a
    ``schema_migrations`` table whose ``name`` column holds only migration names, with at least
    one when there are other tables."""
    if "schema_migrations" not in tables:
        return False
    cursor = run_bound(db, _COLUMNS)
    if "name" not in [d[0] for d in cursor.description or ()]:
        return False
    names = [r[0] for r in run_bound(db, _NAMES).fetchall()]
    if not names and len(tables) > 1:
        return False
    return all(isinstance(n, str) and MIGRATION_NAME.fullmatch(n) for n in names)


@lru_cache(maxsize=1)
def known_migrations() -> frozenset[str]:
    """The names of this copy's migration modules (:mod:`core.store.migrations`)."""
    return frozenset(
        i.name
        for i in pkgutil.iter_modules(migrations_pkg.__path__)
        if MIGRATION_NAME.fullmatch(i.name)
    )


def _other_application(db: Database) -> str | None:
    """What shows that a database without tables is another application's: its views, or (SQLite)
    the header's application id; ``None`` when nothing does."""
    views = sorted(str(r[0]) for r in run_bound(db, _catalogue(db.dialect.view_names_sql)))
    if views:
        return "views " + ", ".join(map(shown, views[:3]))
    if db.dialect is not POSTGRES:
        app_id = run_bound(db, _APPLICATION_ID).fetchone()[0]
        if app_id:
            return f"application id {app_id:#x} in its header"
    return None


def refuse_foreign(db: Database, where: str, *, create: bool) -> None:
    """Raise :class:`core.errors.DatabaseFileError` unless ``db`` (at ``where``) is a workbench
    database of this version or an older one, or an empty one that may be made one (``create``;
    see the module)."""
    tables = user_tables(db)
    if not tables:
        other = _other_application(db)
        if other is not None:
            raise DatabaseFileError(
                f"{where} is not a workbench database (it holds no tables but {other}); nothing "
                "was written; give the path of a workbench database, or create a new one with "
                "`python -m core --db NEW.db init`"
            )
        if create or db.dialect is POSTGRES:
            return
        raise DatabaseFileError(
            f"{where} holds no tables: it is not a workbench database; nothing was written; "
            f"{INIT_HINT}"
        )
    if is_workbench(db, tables):
        _refuse_newer(db, where)
        return
    others = [t for t in tables if t != "schema_migrations"] or tables
    named = ", ".join(map(shown, others[:3])) + (
        f" and {len(others) - 3} more" if len(others) > 3 else ""
    )
    raise DatabaseFileError(
        f"{where} is not a workbench database (it holds another application's tables: {named}); "
        "nothing was written; give the path of a workbench database, or create a new one with "
        "`python -m core --db NEW.db init`"
    )


def _refuse_newer(db: Database, where: str) -> None:
    """Refuse a workbench database with a migration this copy does not have (a newer version's)."""
    names = {r[0] for r in run_bound(db, _NAMES).fetchall()}
    unknown = sorted(names - known_migrations())
    if unknown:
        raise DatabaseFileError(
            f"{where} was made by a newer version of the workbench (migration "
            f"{shown(unknown[-1])} is unknown to this copy); nothing was written; update this "
            "copy (git pull) before using that database"
        )


def shown(name: str, limit: int = 40) -> str:
    """A table name as the one-line error shows it: characters that are not printable escaped
    (a line break in another application's table name cannot split the line), cut at ``limit``."""
    text = "".join(c if c.isprintable() else c.encode("unicode_escape").decode() for c in name)
    return text if len(text) <= limit else text[: limit - 3] + "..."
