"""One SQLAlchemy engine per database per process, and the connections borrowed from it (issue 33).

:func:`engine_for` gives the process's :class:`Pooled` engine of a database: made on first use,
kept for the life of the process (one per database, read-only flag and busy timeout), so every
page run of a server borrows a connection from it instead of opening one:

- PostgreSQL: SQLAlchemy's ``QueuePool`` with ``pre_ping`` (a connection the server dropped is
  replaced, not handed out; one the server does not answer within :func:`_ping_timeout_s` is cut
  and replaced: :mod:`core.store.deadline`) over autocommit psycopg connections
  (:func:`core.store.pg_connection.connect_psycopg`); :func:`borrow` wraps one in a
  :class:`core.store.pg_connection.PgConnection` whose ``close`` gives it back (rolled back; the
  temp tables it left are dropped by the next borrow's ping, :data:`PING`).
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

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.pool import NullPool, QueuePool

from core.store.connection import LockedConnection, busy_timeout_ms, connect
from core.store.deadline import within
from core.store.pg_connection import PgConnection, connect_psycopg, connect_timeout_s

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


def _bounded_ping(dbapi_connection: Any) -> bool:
    """The pre-ping of :func:`_new_engine` (:data:`PING`) within :func:`_ping_timeout_s`: a
    hung server's connection is cut, so the ping fails as a lost connection and the pool opens
    a new one (bounded by the connect timeout) instead of waiting forever (issue 37)."""
    with within(_ping_timeout_s(), dbapi_connection):
        with dbapi_connection.cursor() as cursor:
            cursor.execute(PING)
    return True


def _new_engine(target: str, postgres: bool, read_only: bool) -> sa.Engine:
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
        # the dialect's ping, bounded: SQLAlchemy has no ping timeout of its own
        engine.dialect.do_ping = _bounded_ping  # type: ignore[method-assign]
        return engine
    return sa.create_engine(
        "sqlite://",
        creator=lambda: connect(target, read_only=read_only, wal=False),
        poolclass=NullPool,
    )


def engine_for(target: str | Path, *, postgres: bool, read_only: bool = False) -> Pooled:
    """The process's engine for a PostgreSQL URL or a SQLite path (made on first use)."""
    text = str(target)
    if not postgres and text != ":memory:":
        text = str(Path(text).absolute())
    key = (text, read_only, busy_timeout_ms())
    with _engines_lock:
        found = _engines.get(key)
        if found is None:
            found = _engines[key] = Pooled(_new_engine(text, postgres, read_only), postgres)
        return found


def borrow_postgres(pooled: Pooled) -> PgConnection:
    """A connection from the engine's ``QueuePool`` (pinged first); its ``close`` gives it back
    (or discards it if it broke: the server went away)."""
    proxy = pooled.engine.raw_connection()
    raw = proxy.dbapi_connection

    def release() -> None:  # a connection the server dropped is discarded, not pooled
        if raw is None or raw.closed or raw.broken:
            proxy.invalidate()
        else:
            proxy.close()

    return PgConnection(raw, release=release)  # type: ignore[arg-type]


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
