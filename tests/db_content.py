"""What a test compares to prove "nothing was written", on either backend (issue 25).

On SQLite: the database file's bytes after folding the WAL in (a checkpoint changes no content),
as strict as before. On PostgreSQL, where there is no file to read: every row of every table,
sorted (a write that changed, added or removed a row shows).
"""

from __future__ import annotations

from pathlib import Path

from core.store.database import postgres_url
from core.store.engine import Database


def all_rows(db: Database) -> dict[str, list[str]]:
    """Every table's rows (each as its ``repr``), sorted, by table name."""
    return {
        name: sorted(repr(sorted(row.items())) for row in db.query(f'select * from "{name}"'))
        for name in sorted(db.table_names())
    }


def snapshot(db: Database, location: Path | str) -> bytes | dict[str, list[str]]:
    """The database's content: the file's bytes (SQLite) or :func:`all_rows` (PostgreSQL)."""
    if postgres_url(location) is not None:
        return all_rows(db)
    db.execute("pragma wal_checkpoint(TRUNCATE)")
    return Path(location).read_bytes()


def stored_blobs(db: Database, location: Path | str) -> list[bytes]:
    """Everything stored, to search for a string that must not be there, and closes ``db``: the
    SQLite file and its WAL (read after closing), or every row of every PostgreSQL table."""
    if postgres_url(location) is not None:
        blobs = [row.encode() for rows in all_rows(db).values() for row in rows]
        db.close()
        return blobs
    db.close()
    path = Path(location)
    return [path.read_bytes()] + [p.read_bytes() for p in path.parent.glob("*-wal")]
