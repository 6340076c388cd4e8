"""PostgreSQL connections of the store (issue 25, pooled since issue 33): a psycopg 3
connection in autocommit mode behind the members the store uses of ``sqlite3``'s.

:func:`connect_psycopg` opens one (a refused connection or a bad URL is one
:class:`core.errors.DatabaseFileError`, password masked); :mod:`core.store.pool` keeps them in
SQLAlchemy's ``QueuePool`` and hands each borrower a :class:`PgConnection`, whose ``close`` gives
the connection back. Statements are translated by :func:`core.store.postgres.translate`, except
those a converted module compiled for PostgreSQL already (``native=True``).
"""

from __future__ import annotations

import contextlib
import re
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any

from core.errors import DatabaseFileError
from core.store.connection import busy_timeout_ms
from core.store.postgres import marks_to_psycopg, translate

if TYPE_CHECKING:
    import psycopg


class PgCursor:
    """A psycopg cursor as the store uses a ``sqlite3`` one (``lastrowid`` is always ``None``:
    :class:`Table` reads new keys with ``returning``)."""

    def __init__(self, raw: psycopg.Cursor[tuple[Any, ...]]) -> None:
        self.raw = raw

    @property
    def description(self) -> Any:
        """Column descriptions (``d[0]`` is the name), ``None`` for a statement without rows."""
        return self.raw.description

    @property
    def rowcount(self) -> int:
        """Rows the statement changed or returned."""
        return self.raw.rowcount

    @property
    def lastrowid(self) -> int | None:
        """``None``: PostgreSQL has no rowid."""
        return None

    def fetchone(self) -> tuple[Any, ...] | None:
        """The next row, or ``None``."""
        return self.raw.fetchone()

    def fetchall(self) -> list[tuple[Any, ...]]:
        """The remaining rows."""
        return self.raw.fetchall()

    def __iter__(self) -> Iterator[tuple[Any, ...]]:
        return iter(self.raw)


class PgConnection:
    """A psycopg connection (autocommit) with the members the store uses of ``sqlite3``'s.

    Threads may share it as they share SQLite's :class:`core.store.connection.LockedConnection`:
    a statement that leaves a transaction open (``BEGIN``, a savepoint) keeps the connection's
    re-entrant :attr:`write_lock` until the statement that ends it, so another thread's
    statements wait instead of landing inside that transaction; :func:`transaction` holds it too.
    """

    def __init__(
        self, raw: psycopg.Connection[tuple[Any, ...]], release: Callable[[], None] | None = None
    ) -> None:
        self.raw = raw
        self._release = release  # gives a pooled connection back (None: close it)
        self.write_lock = threading.RLock()
        self._kept = False  # the owner thread keeps one acquisition while in a transaction

    @property
    def in_transaction(self) -> bool:
        """Whether a transaction is open (also one a failed statement aborted)."""
        return self.raw.info.transaction_status.name != "IDLE"

    @contextlib.contextmanager
    def _turn(self) -> Iterator[None]:
        """This thread's turn on the connection (see the class); kept while a transaction is open."""
        if not self.write_lock.acquire(timeout=busy_timeout_ms() / 1000):
            import psycopg  # deferred: loaded already (this connection is psycopg's)

            raise psycopg.errors.LockNotAvailable(
                "connection busy: another thread held its transaction past the busy timeout"
            )
        try:
            yield
        finally:
            if self.in_transaction and not self._kept:
                self._kept = True  # this acquisition stays until the transaction ends
            else:
                if not self.in_transaction and self._kept:
                    self._kept = False
                    self.write_lock.release()
                self.write_lock.release()

    def execute(self, query: str, params: Any = None, /, *, native: bool = False) -> PgCursor:
        """Run one store statement (:func:`translate`d); ``native``: one already in psycopg's
        spelling (compiled by SQLAlchemy for PostgreSQL: :func:`core.store.statements.run`),
        sent as it is."""
        cursor = None
        with self._turn():
            for statement in [query] if native else translate(query, params is not None):
                cursor = self.raw.execute(statement, params)
        assert cursor is not None
        return PgCursor(cursor)

    def executemany(
        self, query: str, params_seq: Iterable[Any], /, *, native: bool = False
    ) -> PgCursor:
        """Run one store statement once per parameter row (``native``: as :meth:`execute`)."""
        with self._turn():
            cursor = self.raw.cursor()
            cursor.executemany(query if native else marks_to_psycopg(query, True), params_seq)
        return PgCursor(cursor)

    def close(self) -> None:
        """Give the connection back to its pool (a transaction left open is rolled back first,
        and this borrower's temp tables dropped), or close it if it has none. Closing twice
        does nothing."""
        release, self._release = self._release, None
        if release is None:
            if not self.raw.closed:
                self.raw.close()
            return
        if not self.raw.closed and not self.raw.broken:
            with contextlib.suppress(Exception):  # a broken connection: the pool drops it
                if self.in_transaction:
                    self.raw.rollback()
                self.raw.execute("discard temp")
        release()


def connect_psycopg(url: str) -> psycopg.Connection[tuple[Any, ...]]:
    """Open an autocommit psycopg connection (``BEGIN`` opens a transaction, as with SQLite); a
    refused connection is one :class:`core.errors.DatabaseFileError` (password masked)."""
    import psycopg  # deferred: a SQLite workbench never loads the driver

    try:
        raw = psycopg.connect(url, autocommit=True)
    except psycopg.ProgrammingError as exc:  # the URL itself cannot be parsed
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        first = first.replace(url, without_password(url))
        raise DatabaseFileError(
            f"not a valid PostgreSQL URL ({first}); check --db (or $WORKBENCH_DB): "
            "postgresql://USER@HOST:PORT/DATABASE"
        ) from None
    except psycopg.OperationalError as exc:
        text = str(exc).strip()
        first = text.splitlines()[0] if text else type(exc).__name__
        raise DatabaseFileError(
            f"cannot connect to PostgreSQL at {without_password(url)} ({first}); check --db "
            "(or $WORKBENCH_DB), that the server runs and that the database exists (createdb)"
        ) from None
    raw.adapters.register_loader("numeric", _numeric_loader())
    # Wait for another transaction's lock no longer than SQLite's busy timeout, then fail as
    # busy (55P03): a label write retries, then says "press again", instead of waiting forever.
    timeout = f"{max(1, busy_timeout_ms())}ms"
    raw.execute("select set_config('lock_timeout', %s, false)", [timeout])
    return raw


def sqlite_number(text: str) -> int | float:
    """A ``numeric`` value as SQLite gives it: an int if it has no fraction, else a float
    (PostgreSQL sums ``bigint`` columns as ``numeric``, which psycopg reads as ``Decimal``)."""
    if text.lstrip("-").isdigit():
        return int(text)
    return float(text)


def _numeric_loader() -> type[Any]:
    """A psycopg loader giving ``numeric`` values as :func:`sqlite_number` does."""
    from psycopg.adapt import Loader

    class SqliteNumberLoader(Loader):
        def load(self, data: Any) -> int | float:
            return sqlite_number(bytes(data).decode())

    return SqliteNumberLoader


def without_password(url: str) -> str:
    """``url`` with any password replaced by ``***`` (error messages never show it)."""
    return re.sub(r"(//[^:/@]*:)[^@/]*@", r"\1***@", url)
