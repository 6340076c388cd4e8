"""What is in a test database, to prove "nothing was written" on either backend (issue 25): the
one place that answers it.

On SQLite: the database file's bytes, as strict as before (:func:`snapshot` folds the WAL in
first, a checkpoint changes no content; :func:`database_digest` reads a closed database, whose
last connection already did). On PostgreSQL, where there is no file to read: every row of every
table, sorted (:func:`all_rows`: a write that changed, added or removed a row shows; a
rolled-back insert may still advance a sequence, which is not stored data).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from core.store.database import open_db, postgres_url
from core.store.engine import Database
from core.store.open_files import connections_open_to


def all_rows(db: Database) -> dict[str, list[str]]:
    """Every table's rows (each as its ``repr``), sorted, by table name."""
    return {
        name: sorted(repr(sorted(row.items())) for row in db.query(f'select * from "{name}"'))
        for name in sorted(db.table_names())
    }


def snapshot(db: Database, location: Path | str) -> bytes | dict[str, list[str]]:
    """The content of the open database ``db`` at ``location``: the file's bytes after a
    checkpoint (SQLite) or :func:`all_rows` (PostgreSQL)."""
    if postgres_url(location) is not None:
        return all_rows(db)
    db.execute("pragma wal_checkpoint(TRUNCATE)")
    return db.conn.serialize()  # the file's bytes, read through SQLite: no descriptor to close


def database_digest(location: Path | str) -> str:
    """SHA-256 of the content of the database at ``location``, no connection of the caller's
    open: the file's bytes (SQLite), or :func:`all_rows` read over a connection of its own that
    neither migrates nor writes (PostgreSQL)."""
    if postgres_url(location) is None:
        return hashlib.sha256(_file_bytes(Path(location))).hexdigest()
    db = open_db(location, migrate=False)
    try:
        return hashlib.sha256(repr(all_rows(db)).encode()).hexdigest()
    finally:
        db.close()


def stored_blobs(db: Database, location: Path | str) -> list[bytes]:
    """Everything stored, to search for a string that must not be there, and closes ``db``: the
    SQLite file and its WAL (read after closing), or every row of every PostgreSQL table."""
    if postgres_url(location) is not None:
        blobs = [row.encode() for rows in all_rows(db).values() for row in rows]
        db.close()
        return blobs
    db.close()
    path = Path(location)
    return [_file_bytes(path)] + [_file_bytes(p) for p in path.parent.glob("*-wal")]


def _file_bytes(path: Path) -> bytes:
    """The bytes of a database file (or its log), read only when no connection of this process
    has it open: closing the descriptor that read it would drop their SQLite locks (issue 38)."""
    base = Path(str(path).removesuffix("-wal"))
    assert connections_open_to(base) == 0, f"close this process's connections to {base} first"
    return path.read_bytes()
