"""Store contract (issue 33), opening and holding a database: ``connection``, ``database``,
``pool``, ``pg_connection``, ``dbfile`` and ``open_files``, each case run on SQLite and on
PostgreSQL (``db`` / ``db_path`` run on both).

Some of these are one backend's own machinery (SQLite's raw connection and its file checks,
psycopg's connection): their case asserts what each backend does in their place (the file
checks never run for a PostgreSQL URL; a PostgreSQL database holds no file of the register),
and calls them on inputs of their own (a SQLite file under ``tmp_path``, a URL that cannot be
reached) in both runs."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import psycopg
import pytest
import sqlalchemy as sa
from contract_registry import contract_case
from pg_round_trips import count_pg

from core.errors import (
    ConfigError,
    DatabaseBusyError,
    DatabaseFileError,
    DatabaseUnreachableError,
    StoreError,
)
from core.store import connection, database, dbfile, open_files, pg_connection, pool, prepared
from core.store.connection import (
    LockedConnection,
    decode_row,
    default_db_path,
    dumps,
    is_busy,
    retry_when_busy,
    transaction,
)
from core.store.database import creating, open_db, opened
from core.store.documents import Document, get_document, write_document
from core.store.engine import SQLITE, Database
from core.store.postgres import POSTGRES
from core.store.revisions import HEAD
from core.store.row_locks import hold_name
from core.store.settings import get_setting, set_setting
from core.store.tables import answers, documents


def _is_pg(db_path: Path | str) -> bool:
    return isinstance(db_path, str)


def _lock_timeout_ms(raw: psycopg.Connection) -> int:
    """PostgreSQL's ``lock_timeout`` of a psycopg connection, in milliseconds."""
    found = raw.execute("select setting from pg_settings where name = 'lock_timeout'").fetchone()
    return int(found[0])


@contract_case(connection.busy_timeout_ms, open_db)
def test_the_busy_timeout_setting_reaches_each_backend_s_connection(db_path, monkeypatch):
    """``$WORKBENCH_BUSY_TIMEOUT`` is SQLite's ``busy_timeout`` and PostgreSQL's
    ``lock_timeout`` on a connection opened under it; a bad value is one ConfigError."""
    monkeypatch.delenv("WORKBENCH_BUSY_TIMEOUT", raising=False)
    assert connection.busy_timeout_ms() == 30_000
    for bad in ("soon", "-1", "nan", "inf", "86401"):
        monkeypatch.setenv("WORKBENCH_BUSY_TIMEOUT", bad)
        with pytest.raises(ConfigError, match="WORKBENCH_BUSY_TIMEOUT"):
            connection.busy_timeout_ms()
    monkeypatch.setenv("WORKBENCH_BUSY_TIMEOUT", " 2.5 ")
    assert connection.busy_timeout_ms() == 2500
    db = open_db(db_path)  # a new engine: the timeout is part of its key
    try:
        if _is_pg(db_path):
            assert _lock_timeout_ms(db.conn.raw) == 2500
        else:
            assert db.execute("pragma busy_timeout").fetchone()[0] == 2500
    finally:
        db.close()


@contract_case(
    connection.is_busy,
    connection.retry_when_busy,
    pg_connection.is_unreachable,
    transaction,
    hold_name,
    set_setting,
    get_setting,
    open_db,
)
def test_a_write_meeting_another_writer_is_busy_and_retried_until_it_is_done(db_path, monkeypatch):
    """Another connection's write transaction holds the lock (SQLite's write lock, PostgreSQL's
    advisory lock): a write waits the busy timeout, then fails as busy (not unreachable);
    :func:`retry_when_busy` gives up after ``LABEL_RETRY_S`` with one plain error, and goes
    through once the holder commits (its value lands after the holder's)."""
    monkeypatch.setenv("WORKBENCH_BUSY_TIMEOUT", "0.2")
    holder, writer = open_db(db_path), open_db(db_path)
    held, release = threading.Event(), threading.Event()

    def hold() -> None:
        with transaction(holder):
            hold_name(holder, "contract", "busy")
            set_setting(holder, "contract", "holder")
            held.set()
            release.wait(60)

    def write(db: Database) -> None:
        with transaction(db):
            hold_name(db, "contract", "busy")
            set_setting(db, "contract", "writer")

    thread = threading.Thread(target=hold)
    thread.start()
    try:
        assert held.wait(60)
        with pytest.raises(Exception) as caught:
            write(writer)
        assert is_busy(caught.value) and not pg_connection.is_unreachable(caught.value)
        monkeypatch.setattr(connection, "LABEL_RETRY_S", 0.5)
        with pytest.raises(DatabaseBusyError, match="press again"):
            retry_when_busy(write)(writer)
        monkeypatch.setattr(connection, "LABEL_RETRY_S", 60.0)
        threading.Timer(0.3, release.set).start()
        retry_when_busy(write)(writer)
    finally:
        release.set()
        thread.join()
        holder.close()
    try:
        assert get_setting(writer, "contract") == "writer"
        with pytest.raises(ValueError, match="not busy"), transaction(writer):
            retry_when_busy(_raise_value_error)(writer)  # not busy: raised at once
    finally:
        writer.close()
    assert not is_busy(ValueError("database is locked"))  # only the drivers' own errors


def _raise_value_error(db: Database) -> None:
    raise ValueError("not busy")


def _document(metadata: object) -> Document:
    return Document(id="j1", text="x", kind="book", source="test", metadata=metadata)


@contract_case(connection.dumps, connection.decode_row, write_document, get_document)
def test_json_is_stored_as_the_same_text_on_both_and_decoded_back(db):
    value = {"b": [1, 2.5, None], "a": "Zoë ü 😀", "c": {"z": True}}
    assert dumps(value) == '{"a": "Zoë ü 😀", "b": [1, 2.5, null], "c": {"z": true}}'
    assert [dumps(v) for v in (None, [], {}, (), 0, "")] == ["null", "[]", "{}", "[]", "0", '""']
    write_document(db, _document(value))
    stored = prepared.run_bound(
        db, sa.select(documents.c.id, documents.c.metadata).where(documents.c.id == "j1")
    ).fetchone()
    assert tuple(stored) == ("j1", dumps(value))  # the same text on both databases
    assert decode_row({"id": stored[0], "metadata": stored[1]}) == {"id": "j1", "metadata": value}
    assert get_document(db, "j1").metadata == value
    row = {"id": 7, "metadata": "plain text", "extra": "[1]", "other": "[2]"}
    assert decode_row(row, also=["extra"]) == {**row, "extra": [1]}  # not JSON-looking: kept
    with pytest.raises(StoreError, match="column 'metadata' of row 7 holds invalid JSON"):
        decode_row({"id": 7, "metadata": "{oops"})


@contract_case(
    connection.default_db_path,
    database.opened,
    database.creating,
    open_db,
    set_setting,
    get_setting,
)
def test_the_default_database_is_opened_and_closed_and_only_created_where_meant(
    db_path, tmp_path, monkeypatch
):
    monkeypatch.delenv("WORKBENCH_DB", raising=False)
    assert default_db_path() == Path("data/workbench.db")
    for url in ("postgres://u@h/x", "postgresql://u@h:5432/x?sslmode=disable"):
        monkeypatch.setenv("WORKBENCH_DB", url)
        assert default_db_path() == url  # a URL stays text (a Path folds its //)
    monkeypatch.setenv("WORKBENCH_DB", str(db_path))
    assert default_db_path() == db_path and isinstance(default_db_path(), str) == _is_pg(db_path)
    with opened() as db:  # $WORKBENCH_DB
        set_setting(db, "contract", "default")
        first = db.conn
    assert _closed(first)
    with pytest.raises(RuntimeError), opened(db_path) as db:
        second = db.conn
        raise RuntimeError("the block fails")
    assert _closed(second)  # closed all the same
    missing = tmp_path / "missing.db"
    with creating(False):
        with opened(db_path) as db:  # an existing database opens whatever the flag
            assert get_setting(db, "contract") == "default"
        with pytest.raises(DatabaseFileError, match="no database at"):
            open_db(missing)
        with creating(True):
            pass
        with pytest.raises(DatabaseFileError, match="no database at"):
            open_db(missing)  # the inner block restored the outer flag
    assert not missing.exists()
    with creating(True), opened(missing) as made:
        assert made.execute("select count(*) from alembic_version").fetchone()[0] == 1
    assert missing.exists()


def _closed(conn: object) -> bool:
    """Whether a borrowed connection was given back: SQLite's is closed; PostgreSQL's is
    released to its pool (a closed :class:`PgConnection` has no release left)."""
    if isinstance(conn, sqlite3.Connection):
        try:
            conn.execute("select 1")
        except sqlite3.ProgrammingError:
            return True
        return False
    return getattr(conn, "_release", "") is None


@contract_case(
    connection.connect,
    connection.use_wal,
    pg_connection.connect_psycopg,
    pg_connection.sqlite_number,
    pg_connection.without_password,
    prepared.scalar,
)
def test_each_backend_s_raw_connection_has_what_the_store_relies_on(seeded, tmp_path):
    """SQLite's (:func:`connection.connect`): WAL, foreign keys, the busy timeout, a read-only
    mode; psycopg's (:func:`pg_connection.connect_psycopg`): autocommit, the lock timeout,
    numbers as SQLite gives them. A sum and a fraction come back as the same Python types."""
    db = seeded  # answers 1 and 2
    total = prepared.scalar(db, sa.select(sa.func.sum(answers.c.id)))
    assert total == 3 and type(total) is int  # PostgreSQL's sum of bigint is numeric
    fraction = prepared.scalar(db, sa.select(sa.cast(sa.literal("2.50"), sa.Numeric(5, 2))))
    assert fraction == 2.5 and type(fraction) is float
    whole = prepared.scalar(db, sa.select(sa.cast(sa.literal("12"), sa.Numeric)))
    assert whole == 12 and type(whole) is int
    assert [pg_connection.sqlite_number(t) for t in ("12", "-3", "2.50", "1e3")] == [
        12,
        -3,
        2.5,
        1000.0,
    ]
    assert type(pg_connection.sqlite_number("1e3")) is float
    if db.dialect.name == "postgresql":
        raw = db.conn.raw
        assert raw.autocommit
        assert _lock_timeout_ms(raw) == connection.busy_timeout_ms()
    else:
        raw = db.conn
        assert isinstance(raw, LockedConnection)
        assert raw.execute("pragma journal_mode").fetchone()[0] == "wal"
        assert raw.execute("pragma foreign_keys").fetchone()[0] == 1
        assert raw.execute("pragma busy_timeout").fetchone()[0] == connection.busy_timeout_ms()
    # SQLite's raw connection on a file of its own, in both runs
    path = tmp_path / "raw.db"
    conn = connection.connect(path, wal=False)
    try:
        assert conn.execute("pragma journal_mode").fetchone()[0] == "delete"  # left as it was
        conn.execute("create table t (k integer primary key, p integer references t (k))")
        with pytest.raises(sqlite3.IntegrityError):
            conn.execute("insert into t values (1, 99)")  # foreign keys on
        connection.use_wal(conn)
        assert conn.execute("pragma journal_mode").fetchone()[0] == "wal"
        assert conn.execute("pragma synchronous").fetchone()[0] == 1  # NORMAL
        assert open_files.connections_open_to(path) == 1
        reader = connection.connect(path, read_only=True)
        try:
            with pytest.raises(sqlite3.OperationalError, match="readonly"):
                reader.execute("insert into t values (2, null)")
        finally:
            reader.close()
    finally:
        conn.close()
    assert open_files.connections_open_to(path) == 0
    # psycopg's, on a URL that cannot be parsed: one line, the password masked, in both runs
    with pytest.raises(DatabaseFileError, match=r"not a valid PostgreSQL URL") as caught:
        pg_connection.connect_psycopg("postgresql://ann:s3cret@127.0.0.1:1/x?nosuch=1")
    assert "s3cret" not in str(caught.value)
    assert pg_connection.without_password("postgresql://ann:s3cret@h:5/x") == (
        "postgresql://ann:***@h:5/x"
    )
    assert pg_connection.without_password("postgresql://ann@h/x") == "postgresql://ann@h/x"


@contract_case(
    pg_connection.is_unreachable,
    pg_connection.connect_timeout_s,
    pg_connection.without_password,
    connection.is_busy,
    open_db,
)
def test_an_unreachable_server_is_told_from_a_busy_or_broken_one(db, monkeypatch):
    monkeypatch.delenv("WORKBENCH_CONNECT_TIMEOUT", raising=False)
    assert pg_connection.connect_timeout_s() == 5
    for bad in ("0.5", "3601", "soon", "nan"):
        monkeypatch.setenv("WORKBENCH_CONNECT_TIMEOUT", bad)
        with pytest.raises(ConfigError, match="WORKBENCH_CONNECT_TIMEOUT"):
            pg_connection.connect_timeout_s()
    monkeypatch.setenv("WORKBENCH_CONNECT_TIMEOUT", "2.2")
    assert pg_connection.connect_timeout_s() == 3  # whole seconds, rounded up
    lost = psycopg.OperationalError("server closed the connection unexpectedly")
    assert pg_connection.is_unreachable(lost) and not is_busy(lost)
    for state, unreachable, busy in (
        ("08006", True, False),  # connection failure
        ("57P01", True, False),  # admin shutdown
        ("55P03", False, True),  # lock not available
        ("40P01", False, True),  # deadlock
        ("53100", False, False),  # disk full
    ):
        error = psycopg.errors.lookup(state)("x")
        assert (pg_connection.is_unreachable(error), is_busy(error)) == (unreachable, busy)
    assert not pg_connection.is_unreachable(sqlite3.OperationalError("unable to open database"))
    assert is_busy(sqlite3.OperationalError("database is locked"))
    with pytest.raises(
        DatabaseUnreachableError, match=r"at postgresql://u:\*\*\*@127\.0\.0\.1:1/x"
    ):
        open_db("postgresql://u:secret@127.0.0.1:1/x")  # nothing listens on port 1
    assert db.execute("select 1").fetchone()[0] == 1  # the database at hand is untouched


@contract_case(pool.engine_for, pool.borrow_sqlite, pool.borrow_postgres, open_db)
def test_one_engine_per_database_and_the_connections_borrowed_from_it(db_path, monkeypatch):
    pg = _is_pg(db_path)
    pooled = pool.engine_for(db_path, postgres=pg)
    assert pool.engine_for(db_path, postgres=pg) is pooled and pooled.postgres is pg
    assert pool.engine_for(db_path, postgres=pg, read_only=True) is not pooled
    if not pg:
        monkeypatch.chdir(Path(db_path).parent)
        assert pool.engine_for(Path(db_path).name, postgres=False) is pooled  # one file
    open_db(db_path).close()
    assert pooled.revision is not None and pooled.revision[0] == HEAD  # checked once, known
    borrow = pool.borrow_postgres if pg else pool.borrow_sqlite
    first = borrow(pooled)
    db = Database(first, POSTGRES if pg else SQLITE)
    assert db.execute("select version_num from alembic_version").fetchone()[0] == HEAD
    if pg:
        raw = first.raw
        first.close()
        assert pooled.engine.pool.checkedout() == 0  # given back, not closed
        second = pool.borrow_postgres(pooled)
        assert second.raw is raw and not raw.closed  # the same session, borrowed again
        second.close()
        assert pooled.engine.pool.checkedout() == 0
    else:
        assert isinstance(first, LockedConnection)
        assert open_files.connections_open_to(db_path) == 1
        second = pool.borrow_sqlite(pooled)
        assert second is not first and open_files.connections_open_to(db_path) == 2
        first.close()
        second.close()
        assert open_files.connections_open_to(db_path) == 0  # NullPool: closed, not kept


@contract_case(pool.borrow_postgres, open_db)
def test_a_borrow_s_ping_carries_the_open_check(db_path, monkeypatch):
    """PostgreSQL: once this process knows the schema, the pool's ping of a pooled connection
    sends the open check in its own round trip (issue 33: a borrow cost two), and the open uses
    what it read. A check that fails on a live connection does not fail the borrow: the open
    checks again on its own. SQLite has no ping: the open check runs on each new connection."""
    pg = _is_pg(db_path)
    open_db(db_path).close()
    pooled = pool.engine_for(db_path, postgres=pg)
    if not pg:
        assert pooled.ping_check is None
        db = open_db(db_path)
        assert not hasattr(db.conn, "ping_found")
        db.conn.close()
        return
    assert pooled.ping_check is not None
    sent, trips = count_pg(monkeypatch)
    db = open_db(db_path)
    db.conn.close()
    assert len(trips) == 1, trips  # the ping and the open check, one round trip
    assert trips[0][0] == "discard temp" and "alembic_version" in trips[0][1], trips
    good, pooled.ping_check = pooled.ping_check, ("select * from no_such_table", None)
    try:
        del sent[:], trips[:]
        db = open_db(db_path)
        assert db.conn.ping_found == pool.CHECK_FAILED
        assert db.execute("select version_num from alembic_version").fetchone()[0] == HEAD
        db.conn.close()
        assert trips[0] == ["discard temp", "select * from no_such_table"], trips
        assert any("alembic_version" in s for s in sent[2:]), sent  # checked again, on its own
    finally:
        pooled.ping_check = good


@contract_case(dbfile.check_db_file, dbfile.explain_sqlite_error, dbfile.is_file_error, open_db)
def test_a_database_file_is_checked_before_sqlite_opens_it(db_path, tmp_path, monkeypatch):
    """A SQLite file passes the checks; a PostgreSQL URL never meets them. Then, in both runs,
    each bad file is one line and nothing is written to it."""
    if _is_pg(db_path):

        def refuse(*args: object, **kwargs: object) -> None:
            raise AssertionError("a PostgreSQL URL is not a file")

        monkeypatch.setattr(database, "check_db_file", refuse)
    else:
        dbfile.check_db_file(db_path, create=False)
    open_db(db_path).close()
    monkeypatch.undo()
    folder = tmp_path / "folder"
    folder.mkdir()
    other = tmp_path / "notes.txt"
    other.write_text("not a database at all, but long enough to hold a header " * 3)
    empty = tmp_path / "empty.db"
    empty.touch()
    missing = tmp_path / "missing.db"
    for path, create, message in (
        (missing, False, "no database at"),
        (folder, True, "is a folder"),
        (other, False, "is not a SQLite database"),
        (empty, False, "is an empty file"),
    ):
        before = path.read_bytes() if path.is_file() else None
        with pytest.raises(DatabaseFileError, match=message):
            dbfile.check_db_file(path, create=create)
        assert (path.read_bytes() if path.is_file() else None) == before
    dbfile.check_db_file(missing, create=True)  # to be created: fine
    dbfile.check_db_file(empty, create=True)
    dbfile.check_db_file(":memory:", create=False)
    assert not missing.exists()
    for text, about_the_file, message in (
        ("database is locked", True, "is locked: another program"),
        ("database or disk is full", True, "is full"),
        ("attempt to write a readonly database", True, "is read-only"),
        ("database disk image is malformed", True, "is damaged"),
        ("unable to open database file", True, "cannot open or write"),
        ("no such table: x", False, "database x.db: no such table"),
    ):
        exc = sqlite3.OperationalError(text)
        assert dbfile.is_file_error(exc) is about_the_file
        assert message in str(dbfile.explain_sqlite_error(exc, "x.db"))
    assert not dbfile.is_file_error(sqlite3.IntegrityError("database is locked"))  # a constraint
    assert not dbfile.is_file_error(psycopg.errors.lookup("53100")("disk is full"))


@contract_case(
    open_files.register,
    open_files.registering,
    open_files.file_unopened,
    open_files.held_database_of,
    open_files.same_file,
    open_files.connections_open_to,
)
def test_the_register_of_the_database_files_this_process_holds(db, db_path, tmp_path):
    """The open SQLite database is in the register (the header check must not open it, nor an
    importer read it or its write-ahead log); a PostgreSQL one holds no file. A file's entry
    goes when its last connection closes."""
    if _is_pg(db_path):
        assert open_files.held_database_of(tmp_path) is None
    else:
        with open_files.file_unopened(db_path) as unopened:
            assert not unopened
        held = open_files.held_database_of(db_path)
        assert held is not None and open_files.same_file(held, db_path)
        assert open_files.held_database_of(f"{db_path}-wal") == held
    path, link = tmp_path / "own.db", tmp_path / "link.db"
    raw = sqlite3.connect(path, factory=LockedConnection, check_same_thread=False)
    link.symlink_to(path)
    with open_files.file_unopened(path) as unopened:
        assert unopened  # not registered yet: the header check may read it
    with open_files.registering():
        open_files.register(raw, str(path))
        open_files.register(sqlite3.connect(":memory:"), ":memory:")  # no file: nothing
    assert open_files.connections_open_to(link) == 1
    with open_files.file_unopened(link) as unopened:
        assert not unopened
    assert open_files.same_file(link, path) and not open_files.same_file(path, tmp_path / "x")
    assert open_files.held_database_of(link) == str(path)
    csv = tmp_path / "input.csv"
    csv.write_text("a,b\n")
    assert open_files.held_database_of(csv) is None
    raw.close()
    assert open_files.connections_open_to(path) == 0 and open_files.held_database_of(link) is None
