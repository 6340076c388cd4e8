"""``migrate``: bring a database's schema to the newest revision (issue 33); ``migrate-db``: copy a
workbench database into an empty one (SQLite or PostgreSQL, issue 25)."""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Iterator
from pathlib import Path

from core.store.database import open_db, postgres_url


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the migrate and migrate-db commands to the CLI."""
    m = sub.add_parser(
        "migrate",
        help="upgrade the database's schema to this version's newest revision",
        description="Bring the schema of --db (a SQLite path or a postgresql:// URL) to the "
        "newest Alembic revision and say from which revision to which, in one line. A "
        "database made by an earlier version of the workbench is upgraded in place with "
        "every row kept (every command and the app do this when they open it). An older "
        "PostgreSQL database than the last numbered migration is refused, naming the release "
        "to upgrade it with first (docs/storage.md).",
    )
    m.set_defaults(func=_migrate)
    p = sub.add_parser(
        "migrate-db",
        help="copy a database (SQLite path or PostgreSQL URL) into an empty one, verified",
        description="Copy every table of SRC into DEST (each a SQLite path or a postgresql:// "
        "URL) with the ids kept, in foreign-key order, in one DEST transaction, then verify "
        "each table row for row (count and checksum on both sides) before committing. DEST "
        "must be empty (a new SQLite file is created; a PostgreSQL database must exist, "
        "createdb) and both must be at the same schema version. Another application's "
        "database, as SRC or DEST, is refused before anything is written. --db is not used.",
    )
    p.add_argument("src", help="the database to copy (opened read-only, left unchanged)")
    p.add_argument("dest", help="the empty database to copy into")
    p.set_defaults(func=_migrate_db)


def _migrate(args: argparse.Namespace) -> int:
    from core.store.database import migrate_db
    from core.store.pg_connection import without_password
    from core.store.revisions import HEAD

    url = postgres_url(args.db)
    where = str(args.db) if url is None else without_password(url)
    db = open_db(args.db, migrate=False)
    try:
        done = migrate_db(db, where)
    finally:
        db.close()
    print(done.line(where) if done else f"{where} is at revision {HEAD}: nothing to upgrade")
    return 0


@contextlib.contextmanager
def _dest_file_removed_on_error(dest: str) -> Iterator[None]:
    """A SQLite DEST file this command created is deleted again if the copy fails."""
    path = None if postgres_url(dest) else Path(dest)
    new = path is not None and not path.exists()
    try:
        yield
    except BaseException:
        if new and path is not None:
            for suffix in ("", "-wal", "-shm"):
                Path(str(path) + suffix).unlink(missing_ok=True)
        raise


def _migrate_db(args: argparse.Namespace) -> int:
    from core.cli.output_files import refuse_database_path
    from core.store.copy_db import CopyError, copy_database
    from core.store.schema_upgrade import applied_migrations

    if str(args.src) == str(args.dest):
        raise CopyError("SRC and DEST are the same database")
    if postgres_url(args.dest) is None:  # not SRC by another name, nor its -wal/-shm/-journal
        refuse_database_path(args.dest, args.src, name="SRC")
    src = open_db(args.src, migrate=False, create=False, read_only=True)
    try:
        applied = applied_migrations(src)
        with _dest_file_removed_on_error(args.dest):
            dest = open_db(args.dest, create=True)
            try:
                copies = copy_database(src, dest, applied)
            finally:
                dest.close()
    finally:
        src.close()
    width = max([len("table"), *(len(c.table) for c in copies)])
    print(f"{'table':<{width}}  {'SRC rows':>9}  {'DEST rows':>9}  checksum")
    for c in copies:
        print(f"{c.table:<{width}}  {c.source_rows:>9}  {c.dest_rows:>9}  {c.checksum[:12]}")
    total = sum(c.dest_rows for c in copies)
    print(f"copied {total} rows in {len(copies)} tables; verified row for row (count and checksum)")
    return 0
