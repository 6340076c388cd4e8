"""The process's engines (issue 33): a page run borrows a connection, the migration check runs
once per engine, and a SQLite connection still leaves the register of open files when closed."""

from __future__ import annotations

from contract_registry import contract_case

import core.store.database as database
from core.store.database import open_db, postgres_url
from core.store.open_files import connections_open_to
from core.store.pool import dispose


def _session(db) -> object:
    if db.dialect.name == "postgresql":
        return db.execute("select pg_backend_pid()").fetchone()[0]
    return None


@contract_case(connections_open_to, database.migrate_db, open_db)
def test_a_second_open_borrows_and_does_not_migrate_again(db_path, monkeypatch):
    open_db(db_path).close()  # this process's engine knows the database now
    calls = []
    real = database.migrate_db
    monkeypatch.setattr(database, "migrate_db", lambda db, *a: calls.append(1) or real(db, *a))
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


@contract_case(open_db)
def test_a_connection_given_back_keeps_nothing_of_its_borrower(db_path):
    """An open transaction is rolled back and temp tables go (PostgreSQL: the session is kept
    for the next borrower; SQLite: the connection is closed)."""
    db = open_db(db_path)
    db.execute("create temp table scratch (x integer)")
    db.execute("BEGIN")
    db.execute("insert into sign_in_failures (client, failed_at) values ('c', 1.0)")
    db.close()
    again = open_db(db_path)
    try:
        assert again.execute("select count(*) from sign_in_failures").fetchone()[0] == 0
        again.execute("create temp table scratch (x integer)")  # the borrower's one is gone
    finally:
        again.close()


@contract_case(dispose, open_db, postgres_url)
def test_dispose_closes_the_idle_sessions_of_a_database(db_path):
    if not isinstance(db_path, str):
        return  # SQLite's engines keep no connection open
    url = postgres_url(db_path)
    open_db(db_path).close()
    name = url.rsplit("/", 1)[1]
    dispose(name)
    probe = open_db(db_path)
    try:
        sessions = probe.execute(
            "select count(*) from pg_stat_activity where datname = current_database()"
        ).fetchone()[0]
        assert sessions == 1  # only the probe's own (a new one after dispose)
    finally:
        probe.close()
