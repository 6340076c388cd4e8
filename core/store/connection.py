"""SQLite connections: connection settings, transactions, decoded rows.

Connection strategy (safe under Streamlit's script threads): every caller opens its own
connection with :func:`open_db` (cheap: a file open plus a few PRAGMAs) and closes it when done;
connections are made with ``check_same_thread=False`` so a connection handed to a worker thread
does not fail, WAL lets readers run beside one writer, and a busy timeout makes concurrent writers
wait instead of failing. Nothing in this module caches a connection across threads.

Short transactions: every writer (importers, pipeline stages) keeps each transaction well under a
second, so a person's label never waits long; a label write that still meets a lock retries
(:func:`retry_when_busy`) for longer than any writer holds it, then fails with one plain message.

Schema: registered migrations live in :mod:`core.store.migrations` as modules ``mNNNN_<name>.py`` that
define ``apply(db)``. They run in name order, each inside one transaction, and are recorded in
``schema_migrations``; the schema version is the number of applied migrations.

Append-only tables (judgments, reviews, dispute resolutions) are protected by triggers that abort
any UPDATE or DELETE: a changed verdict is a new row whose ``supersedes`` names the old one.
"""

from __future__ import annotations

import contextlib
import functools
import json
import math
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, ParamSpec, TypeVar
from urllib.parse import quote

from core.errors import ConfigError, DatabaseBusyError, StoreError
from core.store import open_files
from core.store.engine import Database, plain

DEFAULT_DB = Path("data/workbench.db")
BUSY_TIMEOUT_MS = 30_000
#: The longest busy timeout ``$WORKBENCH_BUSY_TIMEOUT`` may set (one day).
MAX_BUSY_TIMEOUT_S = 86_400
#: How long a label write keeps retrying a locked database in all (each try waits the busy timeout).
LABEL_RETRY_S = 90.0

P = ParamSpec("P")
R = TypeVar("R")


def busy_timeout_ms() -> int:
    """How long a statement waits for another writer's lock: ``$WORKBENCH_BUSY_TIMEOUT``
    (seconds, a finite number from 0 to :data:`MAX_BUSY_TIMEOUT_S`) if set, else 30 s; any
    other value is a ``ConfigError`` (one line), not a silent default."""
    text = os.environ.get("WORKBENCH_BUSY_TIMEOUT", "").strip()
    if not text:
        return BUSY_TIMEOUT_MS
    try:
        seconds = float(text)
    except ValueError:
        seconds = math.nan
    if not 0 <= seconds <= MAX_BUSY_TIMEOUT_S:  # also refuses nan
        raise ConfigError(
            f"WORKBENCH_BUSY_TIMEOUT={text[:40]!r}: expected seconds, a number from 0 to "
            f"{MAX_BUSY_TIMEOUT_S:g} (unset it for the default {BUSY_TIMEOUT_MS // 1000} s)"
        )
    return int(seconds * 1000)


#: PostgreSQL SQLSTATEs a retry gets past: serialization failure, deadlock, lock timeout.
RETRY_SQLSTATES = frozenset({"40001", "40P01", "55P03"})


def is_busy(exc: BaseException) -> bool:
    """Whether ``exc`` is SQLite's "database is locked"/"busy" (another writer holds the lock),
    or a PostgreSQL serialization failure, deadlock or lock timeout (:data:`RETRY_SQLSTATES`)."""
    if getattr(exc, "sqlstate", None) in RETRY_SQLSTATES:
        return True
    text = str(exc).lower()
    return isinstance(exc, sqlite3.OperationalError) and ("locked" in text or "busy" in text)


def retry_when_busy(fn: Callable[P, R]) -> Callable[P, R]:
    """Decorate a label write (its first argument the database): when it meets a lock, run it
    again with doubling pauses (0.05 s up to 2 s) until :data:`LABEL_RETRY_S` has passed, then
    raise :class:`core.errors.DatabaseBusyError` (nothing was stored; the page keeps the choice).

    Safe because the write is one transaction that rolled back; inside a caller's transaction
    the error is passed on at once (the caller's transaction is the one to retry).
    """

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        conn = getattr(args[0], "conn", None)
        deadline = time.monotonic() + LABEL_RETRY_S
        pause = 0.05
        while True:
            try:
                return fn(*args, **kwargs)
            except Exception as exc:
                if not is_busy(exc) or (conn is not None and conn.in_transaction):
                    raise
                if time.monotonic() + pause > deadline:
                    raise DatabaseBusyError(
                        "the database is busy (another program is writing); your choice was "
                        "not saved yet - press again"
                    ) from None
            time.sleep(pause)
            pause = min(2.0, pause * 2)

    return wrapper


def default_db_path() -> Path | str:
    """The database: ``$WORKBENCH_DB`` if set, else ``data/workbench.db``; a PostgreSQL URL
    (``postgresql://...``) stays a string (a ``Path`` would fold its ``//``)."""
    target = os.environ.get("WORKBENCH_DB", str(DEFAULT_DB))
    return target if target.startswith(("postgresql://", "postgres://")) else Path(target)


def utcnow() -> str:
    """Current UTC time as an ISO-8601 string with millisecond precision
    (``2026-01-02T03:04:05.678+00:00``)."""
    return datetime.now(UTC).isoformat(timespec="milliseconds")


#: What :func:`dumps` gives the empty values most rows hold, without the encoder (a bulk
#: import encodes several per row).
_EMPTY_JSON = {type(None): "null", list: "[]", dict: "{}", tuple: "[]"}


def dumps(value: Any) -> str:
    """JSON-encode for storage (UTF-8 kept readable, keys in stable order)."""
    if type(value) in _EMPTY_JSON and not value:
        return _EMPTY_JSON[type(value)]
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


class LockedConnection(sqlite3.Connection):
    """A connection that threads can share safely: one thread at a time per transaction.

    Every statement takes the connection's re-entrant lock, and a statement that leaves a
    transaction open (``BEGIN``, the engine's ``SAVEPOINT`` around a batch
    insert) keeps the lock until the statement that closes it, so
    another thread's statements wait instead of landing inside it ("cannot start a transaction
    within a transaction", rows committed by a call that failed). A thread that waits longer
    than the busy timeout gets ``sqlite3.OperationalError``.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.write_lock = threading.RLock()
        self.tx_depth = 0
        self._kept = False  # the owner thread keeps one lock acquisition while in a transaction
        self.leave_register: Callable[[], object] = lambda: None  # open_files.register

    def close(self) -> None:
        """Close, and leave the process's register of open database files
        (:func:`core.store.open_files.file_unopened`)."""
        try:
            super().close()
        finally:
            self.leave_register()

    def _take(self) -> None:
        if not self.write_lock.acquire(timeout=busy_timeout_ms() / 1000):
            raise sqlite3.OperationalError(
                "connection busy: another thread held its transaction past the busy timeout"
            )

    def _give(self) -> None:
        if self.in_transaction and not self._kept:
            self._kept = True  # this acquisition stays until the transaction ends
            return
        if not self.in_transaction and self._kept:
            self._kept = False
            self.write_lock.release()
        self.write_lock.release()

    def execute(self, *args: Any, **kwargs: Any) -> sqlite3.Cursor:
        """``sqlite3.Connection.execute`` under the connection's lock (see the class)."""
        self._take()
        try:
            return super().execute(*args, **kwargs)
        finally:
            self._give()

    def executemany(self, *args: Any, **kwargs: Any) -> sqlite3.Cursor:
        """``sqlite3.Connection.executemany`` under the connection's lock."""
        self._take()
        try:
            return super().executemany(*args, **kwargs)
        finally:
            self._give()

    def executescript(self, *args: Any, **kwargs: Any) -> sqlite3.Cursor:
        """``sqlite3.Connection.executescript`` under the connection's lock."""
        self._take()
        try:
            return super().executescript(*args, **kwargs)
        finally:
            self._give()

    def commit(self) -> None:
        """``sqlite3.Connection.commit`` under the connection's lock."""
        self._take()
        try:
            super().commit()
        finally:
            self._give()

    def rollback(self) -> None:
        """``sqlite3.Connection.rollback`` under the connection's lock."""
        self._take()
        try:
            super().rollback()
        finally:
            self._give()


def connect(path: str | Path, *, read_only: bool = False, wal: bool = True) -> sqlite3.Connection:
    """Open a raw sqlite3 connection with WAL, foreign keys and a busy timeout (the file's folder
    must exist: :func:`core.store.database.open_db` checks the path first).

    ``read_only`` opens the file with SQLite's ``mode=ro`` (nothing can be written, the journal
    mode stays as it is); ``wal=False`` leaves switching to WAL to the caller (:func:`use_wal`),
    so a file can be looked at before anything is written to it.
    """
    path = str(path)
    timeout_ms = busy_timeout_ms()
    memory = path == ":memory:"
    with open_files.registering():  # no header read of this file runs meanwhile
        conn = sqlite3.connect(
            path if memory or not read_only else f"file:{quote(os.path.abspath(path))}?mode=ro",
            check_same_thread=False,
            timeout=timeout_ms / 1000,
            isolation_level=None,
            factory=LockedConnection,
            uri=read_only and not memory,
        )
        open_files.register(conn, path)
    conn.execute(f"PRAGMA busy_timeout = {timeout_ms}")
    conn.execute("PRAGMA foreign_keys = ON")
    if wal and not read_only and not memory:
        use_wal(conn)
    return conn


def use_wal(conn: sqlite3.Connection) -> None:
    """Switch the database to write-ahead logging (readers beside one writer) with ``synchronous
    = NORMAL``: the first write to a new file, a no-op for a file already in WAL mode."""
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")


@contextlib.contextmanager
def transaction(db: Database) -> Iterator[Database]:
    """Run a block as one write transaction (``BEGIN IMMEDIATE`` ... ``COMMIT``; PostgreSQL:
    ``BEGIN``, read committed, so a concurrent writer meets row locks and unique keys, not a
    database lock).

    Any exception rolls back everything written inside the block. Nested use (same thread) joins
    the outer transaction as a savepoint, so helpers that write can be composed. Threads sharing
    one connection take turns (the connection's re-entrant lock); separate connections are
    serialised by SQLite itself (busy timeout).
    """
    conn = db.conn
    lock = getattr(conn, "write_lock", None) or contextlib.nullcontext()
    with lock:
        depth = getattr(conn, "tx_depth", 1 if conn.in_transaction else 0)
        if depth:
            name = f"sp_{depth}"
            plain(conn, f"SAVEPOINT {name}")
            _set_depth(conn, depth + 1)
            try:
                yield db
            except BaseException:
                if conn.in_transaction:  # SQLite may have rolled back already (disk full, ...)
                    plain(conn, f"ROLLBACK TO {name}")
                    plain(conn, f"RELEASE {name}")
                raise
            finally:
                _set_depth(conn, depth)
            plain(conn, f"RELEASE {name}")
            return
        # PostgreSQL: BEGIN goes with the block's first statement, in its round trip (and the
        # block's deferred statements with COMMIT: PgConnection.defer)
        defer, drop = getattr(conn, "defer", None), getattr(conn, "drop_deferred", None)
        if defer is None:
            plain(conn, db.dialect.begin_sql)
        else:
            defer(db.dialect.begin_sql, begins=True)
        _set_depth(conn, 1)
        try:
            yield db
        except BaseException:
            if drop is not None:
                drop()  # not sent: the error came before them
            if conn.in_transaction:  # SQLite rolls back by itself on some errors (disk full)
                plain(conn, "ROLLBACK")
            raise
        finally:
            _set_depth(conn, 0)
        try:
            plain(conn, "COMMIT")
        except BaseException:
            if defer and conn.in_transaction:  # a statement sent with COMMIT failed: not run
                plain(conn, "ROLLBACK")
            raise


def _set_depth(conn: object, depth: int) -> None:
    if hasattr(conn, "tx_depth"):  # a LockedConnection (PostgreSQL: the server tracks depth)
        setattr(conn, "tx_depth", depth)  # noqa: B010


# ---------------------------------------------------------------------------------------------
# Typed read helpers
# ---------------------------------------------------------------------------------------------

JSON_COLUMNS = {
    "answers",
    "provenance",
    "metadata",
    "aliases",
    "evidence",
    "checklist",
    "config",
    "params",
    "request",
    "response",
    "usage",
    "fields",
    "choices",
    "shared_entities",
    "systems",
}


def decode_row(row: dict[str, Any], also: Iterable[str] = ()) -> dict[str, Any]:
    """Decode the JSON-typed columns of a row (see ``JSON_COLUMNS``, plus the aliases in
    ``also``, e.g. ``g.evidence as gt_evidence``): the one place stored JSON is read back.

    A text value that starts like JSON (``[``, ``{`` or ``"``) must parse: bad JSON raises
    :class:`core.errors.StoreError` naming the column and row, never passes silently.
    """
    out = dict(row)
    for key in (JSON_COLUMNS | set(also)) & out.keys():
        value = out[key]
        if isinstance(value, str) and value[:1] in '[{"':
            try:
                out[key] = json.loads(value)
            except json.JSONDecodeError as exc:
                where = f" of row {out['id']!r}" if "id" in out else ""
                raise StoreError(
                    f"column {key!r}{where} holds invalid JSON ({exc.msg} at char {exc.pos})"
                ) from exc
    return out


def rows(
    db: Database,
    sql: str,
    params: Iterable[Any] | dict[str, Any] | None = None,
    also: Sequence[str] = (),
) -> list[dict[str, Any]]:
    """Run a query and return decoded rows as dicts (the one place rows are decoded); ``also``
    names extra JSON columns to decode (see :func:`decode_row`). ``sql`` goes to the driver as
    written: with ``params`` it is one database's spelling (PostgreSQL refuses SQLite's ``?``
    marks); a statement for both is a Core one (:func:`core.store.statements.all_rows`)."""
    args: Sequence[Any] | dict[str, Any] = (
        params if isinstance(params, dict) else list(params or [])
    )
    return [decode_row(r, also) for r in db.query(sql, args)]


def table_counts(db: Database) -> dict[str, int]:
    """Row count of every user table (migrations bookkeeping excluded)."""
    return {
        name: db[name].count
        for name in sorted(db.table_names())
        if name not in ("schema_migrations", "alembic_version") and not name.startswith("sqlite_")
    }
