"""One SQLAlchemy engine per database per process, and the connections borrowed from it (issue 33).

:func:`engine_for` gives the process's :class:`Pooled` engine of a database: made on first use,
kept for the life of the process (one per database, read-only flag and busy timeout), so every
page run of a server borrows a connection from it instead of opening one:

- PostgreSQL: SQLAlchemy's ``QueuePool`` with ``pre_ping`` (a connection the server dropped is
  replaced, not handed out; one the server does not answer within :func:`_ping_timeout_s` is cut
  and replaced: :mod:`core.store.deadline`) over autocommit psycopg connections
  (:func:`core.store.pg_connection.connect_psycopg`); :func:`borrow` wraps one in a
  :class:`core.store.pg_connection.PgConnection` whose ``close`` gives it back (rolled back; the
  temp tables it left are dropped by the next borrow's ping, :data:`PING`). Once the schema is
  known (:attr:`Pooled.ping_check`), the ping carries :func:`core.store.database.open_db`'s
  open check in its round trip (psycopg's pipeline mode) and the borrowed connection holds its
  row (:attr:`core.store.pg_connection.PgConnection.ping_found`): one round trip a borrow, not two.
- SQLite: ``NullPool``: every borrow opens the file (:func:`core.store.connection.connect`: WAL,
  busy timeout, the connection's lock), detached from the pool at once, so closing it (or the
  collector) closes it and leaves the register of open files as before. Opening a SQLite file costs
  little (the migration check was the cost, now once per engine); a pooled idle connection would
  keep the file in this process's register of open files (:mod:`core.store.open_files`), which
  would refuse the header check and input files, and would hold its POSIX locks after the page
  run that needed them.

:attr:`Pooled.revision` is what :func:`core.store.database.open_db` knows of the database:
its schema revision (and numbered migrations) when this process last checked, so the check runs once per engine.
:func:`dispose` closes an engine's idle connections (a PostgreSQL database about to be dropped
or copied as a template must have none).
"""

from __future__ import annotations

import functools
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.pool import NullPool, QueuePool

from core.store.connection import LockedConnection, busy_timeout_ms, connect
from core.store.deadline import within
from core.store.pg_connection import (
    PgConnection,
    connect_psycopg,
    connect_timeout_s,
    is_unreachable,
)

#: Connections a PostgreSQL engine keeps open, and how many more it opens under load.
PG_POOL_SIZE = 8
PG_MAX_OVERFLOW = 24


@dataclass
class Pooled:
    """A database's engine in this process and what is known of its schema."""

    engine: sa.Engine
    postgres: bool
    #: The schema revision and the count of numbered migrations found (``None``: not checked
    #: yet in this process).
    revision: tuple[Any, ...] | None = None
    #: PostgreSQL: a read (SQL spelled for psycopg, parameters) the pool's ping sends with
    #: :data:`PING` in its round trip, set by :func:`core.store.database.open_db` once it knows
    #: the schema (its open check); ``None``: the ping sends :data:`PING` alone.
    ping_check: tuple[str, Any] | None = None


_engines: dict[tuple[str, bool, int], Pooled] = {}
_engines_lock = threading.Lock()


def _ping_timeout_s() -> float:
    """How long the pool's check of a pooled PostgreSQL connection may take before the
    connection is cut (:mod:`core.store.deadline`): the connect timeout
    (:func:`core.store.pg_connection.connect_timeout_s`), a server that answers at all answers
    ``;`` in far less."""
    return float(connect_timeout_s())


#: The pre-ping's statement: it also drops the temp tables a previous borrower left (a staged
#: import that failed), so a borrower starts with none, in the ping's round trip instead of one
#: more when the connection is given back (issue 33: a label's borrow cost three).
PING = "discard temp"


#: What the ping of the connection being borrowed in this thread read with its check
#: (:attr:`Pooled.ping_check`): set by :func:`_bounded_ping`, taken by :func:`borrow_postgres`.
_pinged = threading.local()
#: ``PgConnection.ping_found`` when the check failed on a live connection (the borrower checks
#: again, on its own).
CHECK_FAILED: tuple[Any, ...] = ()


def _bounded_ping(pooled: Pooled, dbapi_connection: Any) -> bool:
    """The pre-ping of :func:`_new_engine` (:data:`PING`, with :attr:`Pooled.ping_check` in the
    same round trip when set) within :func:`_ping_timeout_s`: a hung server's connection is
    cut, so the ping fails as a lost connection and the pool opens a new one (bounded by the
    connect timeout) instead of waiting forever (issue 37). A check that fails on a live
    connection (its table gone) does not fail the ping: :data:`CHECK_FAILED` is kept for the
    borrower, and :data:`PING` is sent again alone if the pipeline stopped before it ran."""
    check = pooled.ping_check
    with within(_ping_timeout_s(), dbapi_connection):
        if check is None:
            with dbapi_connection.cursor() as cursor:
                cursor.execute(PING)
            return True
        pinged = None
        try:
            with dbapi_connection.pipeline():
                pinged = dbapi_connection.execute(PING)
                checked = dbapi_connection.execute(*check)
            _pinged.found = tuple(checked.fetchone() or CHECK_FAILED)
        except Exception as exc:
            if dbapi_connection.broken or dbapi_connection.closed or is_unreachable(exc):
                raise  # SQLAlchemy's pre-ping: a lost connection is replaced
            _pinged.found = CHECK_FAILED
            if pinged is None or pinged.statusmessage != "DISCARD TEMP":
                with dbapi_connection.cursor() as cursor:
                    cursor.execute(PING)
    return True


def _new_engine(target: str, postgres: bool, read_only: bool) -> Pooled:
    if postgres:
        engine = sa.create_engine(
            "postgresql+psycopg://",
            creator=lambda: connect_psycopg(target),
            poolclass=QueuePool,
            pool_pre_ping=True,
            pool_size=PG_POOL_SIZE,
            max_overflow=PG_MAX_OVERFLOW,
            pool_timeout=max(1.0, busy_timeout_ms() / 1000),
            pool_reset_on_return=None,  # PgConnection.close rolls back itself
        )
        pooled = Pooled(engine, postgres=True)
        # the dialect's ping, bounded (SQLAlchemy has no ping timeout of its own), with the check
        ping = functools.partial(_bounded_ping, pooled)
        engine.dialect.do_ping = ping  # type: ignore[method-assign]
        return pooled
    engine = sa.create_engine(
        "sqlite://",
        creator=lambda: connect(target, read_only=read_only, wal=False),
        poolclass=NullPool,
    )
    return Pooled(engine, postgres=False)


def engine_for(target: str | Path, *, postgres: bool, read_only: bool = False) -> Pooled:
    """The process's engine for a PostgreSQL URL or a SQLite path (made on first use)."""
    text = str(target)
    if not postgres and text != ":memory:":
        text = str(Path(text).absolute())
    key = (text, read_only, busy_timeout_ms())
    with _engines_lock:
        found = _engines.get(key)
        if found is None:
            found = _engines[key] = _new_engine(text, postgres, read_only)
        return found


def borrow_postgres(pooled: Pooled) -> PgConnection:
    """A connection from the engine's ``QueuePool`` (pinged first; SQLAlchemy does not ping one
    it just opened); its ``close`` gives it back (or discards it if it broke: the server went
    away). Its ``ping_found``: the row the ping's check read (:attr:`Pooled.ping_check`;
    :data:`CHECK_FAILED` if it failed), ``None`` if no check went with a ping."""
    _pinged.found = None
    proxy = pooled.engine.raw_connection()
    found, _pinged.found = _pinged.found, None
    raw = proxy.dbapi_connection

    def release() -> None:  # a connection the server dropped is discarded, not pooled
        if raw is None or raw.closed or raw.broken:
            proxy.invalidate()
        else:
            proxy.close()

    conn = PgConnection(raw, release=release)  # type: ignore[arg-type]
    conn.ping_found = found
    return conn


def borrow_sqlite(pooled: Pooled) -> LockedConnection:
    """A new connection from the engine (``NullPool``), detached: its own ``close`` (or the
    collector) closes it and takes it off the register of open files, as before pooling."""
    proxy = pooled.engine.raw_connection()
    raw = proxy.dbapi_connection
    proxy.detach()
    assert isinstance(raw, LockedConnection)
    return raw


def dispose(database: str | None = None) -> None:
    """Close the idle pooled connections of the PostgreSQL engines of the database named
    ``database`` (every engine if ``None``): a database is copied as a template or dropped only
    when no session is on it. Borrowed connections are closed when given back; the engines stay
    (and keep what they know of the schema)."""
    with _engines_lock:
        chosen = [
            pooled
            for (target, _, _), pooled in _engines.items()
            if database is None or (pooled.postgres and _database_name(target) == database)
        ]
    for pooled in chosen:
        pooled.engine.dispose()


def _database_name(url: str) -> str:
    """The database a PostgreSQL URL names (``postgresql://u@h:5432/NAME?x=y`` -> ``NAME``)."""
    return url.rsplit("/", 1)[-1].split("?", 1)[0]
