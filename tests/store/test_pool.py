"""The process's engines (issue 33): a page run borrows a connection, the migration check runs
once per engine, and a SQLite connection still leaves the register of open files when closed."""

from __future__ import annotations

import core.store.database as database
from core.store.database import open_db
from core.store.open_files import connections_open_to


def _session(db) -> object:
    if db.dialect.name == "postgresql":
        return db.execute("select pg_backend_pid()").fetchone()[0]
    return None


def test_a_second_open_borrows_and_does_not_migrate_again(db_path, monkeypatch):
    open_db(db_path).close()  # this process's engine knows the database now
    calls = []
    real = database.migrate_db
    monkeypatch.setattr(database, "migrate_db", lambda db: calls.append(1) or real(db))
    first = open_db(db_path)
    session = _session(first)
    first.close()
    second = open_db(db_path)
    try:
        assert calls == []
        assert _session(second) == session  # PostgreSQL: the same server session, borrowed
    finally:
        second.close()
    if not isinstance(db_path, str):
        assert connections_open_to(db_path) == 0


def test_a_replaced_sqlite_file_is_migrated_again(tmp_path):
    path = tmp_path / "w.db"
    open_db(path).close()
    path.unlink()
    db = open_db(path, create=True)
    try:
        assert "judgments" in db.table_names()
    finally:
        db.close()
