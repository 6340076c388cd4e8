"""PostgreSQL connections of the store (issue 25, pooled since issue 33): a psycopg 3
connection in autocommit mode behind the members the store uses of ``sqlite3``'s.

:func:`connect_psycopg` opens one (a refused connection or a bad URL is one
:class:`core.errors.DatabaseFileError`, password masked); :mod:`core.store.pool` keeps them in
SQLAlchemy's ``QueuePool`` and hands each borrower a :class:`PgConnection`, whose ``close`` gives
the connection back. Statements are sent as written: the store's are spelled for PostgreSQL by
SQLAlchemy (:mod:`core.store.statements`, :mod:`core.store.prepared`) and nothing rewrites SQL;
one with SQLite's ``?`` mark and parameters is refused (:func:`refuse_sqlite_marks`).
"""

from __future__ import annotations

import contextlib
import math
import os
import re
import sys
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from core.errors import ConfigError, DatabaseFileError, DatabaseUnreachableError
from core.store.connection import busy_timeout_ms
from core.store.sql_text import segments

if TYPE_CHECKING:
    import psycopg

#: How long opening a connection may take (seconds) unless ``$WORKBENCH_CONNECT_TIMEOUT`` says.
CONNECT_TIMEOUT_S = 5
#: The longest connect timeout ``$WORKBENCH_CONNECT_TIMEOUT`` may set (one hour).
MAX_CONNECT_TIMEOUT_S = 3600


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
        self._later: list[tuple[str, Any, Later]] = []  # deferred statements, in order (defer)
        self._begins = False  # one of them opens a transaction
        #: What the pool's ping read with its check when this connection was borrowed
        #: (:func:`core.store.pool.borrow_postgres`), ``None`` if it read nothing.
        self.ping_found: tuple[Any, ...] | None = None

    @property
    def in_transaction(self) -> bool:
        """Whether a transaction is open (also one a failed statement aborted, or one whose
        ``BEGIN`` is deferred: :meth:`defer`)."""
        if self._begins:
            return True
        return self.raw.info.transaction_status.name not in ("IDLE", "UNKNOWN")  # UNKNOWN: broken

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

    def execute(self, query: str, params: Any = None, /) -> PgCursor:
        """Run one statement spelled for PostgreSQL, as written (psycopg's ``%s`` /
        ``%(name)s`` marks, e.g. compiled by SQLAlchemy: :func:`core.store.statements.run`);
        with ``params``, one holding SQLite's ``?`` mark is refused (:func:`refuse_sqlite_marks`).
        Statements deferred before it (:meth:`defer`) go in the same round trip, first."""
        if params is not None:
            refuse_sqlite_marks(query)
        with self._turn(), _reached(), self._with_deferred():
            cursor = self.raw.execute(query, params)
        return PgCursor(cursor)

    def executemany(self, query: str, params_seq: Iterable[Any], /) -> PgCursor:
        """Run one statement once per parameter row (spelled as for :meth:`execute`)."""
        refuse_sqlite_marks(query)
        with self._turn(), _reached(), self._with_deferred():
            cursor = self.raw.cursor()
            cursor.executemany(query, params_seq)
        return PgCursor(cursor)

    def fetch_each(self, statements: Sequence[tuple[str, Any]]) -> list[list[tuple[Any, ...]]]:
        """Run ``(query, params)`` statements (spelled as for :meth:`execute`) in one round trip
        (psycopg's pipeline mode: all sent, then all answered); each one's rows. Each is its own
        statement (read committed: each sees every commit before it), as if run one by one."""
        for query, _ in statements:
            refuse_sqlite_marks(query)
        with self._turn(), _reached():
            with self._pipeline():
                cursors = [self.raw.execute(query, params) for query, params in statements]
            return [cursor.fetchall() for cursor in cursors]

    def defer(self, query: str, params: Any = None, /, *, begins: bool = False) -> Later:
        """Send ``query`` (spelled as for :meth:`execute`) with this connection's next statement,
        in its round trip and before it (psycopg's pipeline mode), not on its own (issue 33: on
        PostgreSQL each round trip of a label cost a GIL hand-back). For the statements of a
        transaction whose result no decision needs before the next one: ``BEGIN``, a row lock,
        a read checked once the next statement's answer is in, a last write sent with ``COMMIT``.
        Its error is raised by that next statement (the transaction rolls back as for any
        error); :meth:`Later.cursor` reads its result, sending it first if nothing has.
        ``begins``: ``query`` opens a transaction (:attr:`in_transaction` says so from now on)."""
        if params is not None:
            refuse_sqlite_marks(query)
        later = Later(self)
        with self._turn():
            self._later.append((query, params, later))
            self._begins = self._begins or begins
        return later

    def send_deferred(self) -> None:
        """Send the deferred statements (:meth:`defer`) now, in one round trip."""
        with self._turn(), _reached():
            if self._later:
                with self._pipeline():
                    pass

    def drop_deferred(self) -> None:
        """Forget the deferred statements not sent yet (a transaction ending in an error before
        they went: a ``BEGIN`` never sent has nothing to roll back)."""
        with self._turn():
            self._later.clear()
            self._begins = False

    def _with_deferred(self) -> contextlib.AbstractContextManager[None]:
        """The next statement's round trip: with the deferred statements before it (one
        pipeline), or on its own when there are none."""
        return self._pipeline() if self._later else contextlib.nullcontext()

    @contextlib.contextmanager
    def _pipeline(self) -> Iterator[None]:
        """One round trip: the deferred statements, then what the block sends (psycopg's
        pipeline mode: all sent, then all answered; the first error is raised at the end)."""
        later, self._later, self._begins = self._later, [], False
        with self.raw.pipeline():
            for query, params, handle in later:
                handle.raw = self.raw.execute(query, params)
            yield

    def close(self) -> None:
        """Give the connection back to its pool (a transaction left open is rolled back first;
        this borrower's temp tables go at the next borrow's ping, ``discard temp``:
        :func:`core.store.pool.borrow_postgres`), or close it if it has none. Closing twice
        does nothing."""
        self._later.clear()  # deferred statements never sent: a transaction rolled back, a read
        self._begins = False  # nobody read
        release, self._release = self._release, None
        if release is None:
            if not self.raw.closed:
                self.raw.close()
            return
        if not self.raw.closed and not self.raw.broken and self.in_transaction:
            with contextlib.suppress(Exception):  # a broken connection: the pool drops it
                self.raw.rollback()
        release()


class Later:
    """A statement deferred on a :class:`PgConnection` (:meth:`PgConnection.defer`)."""

    def __init__(self, conn: PgConnection) -> None:
        self.conn = conn
        self.raw: psycopg.Cursor[tuple[Any, ...]] | None = None  # set once sent

    def cursor(self) -> PgCursor:
        """The statement's cursor (its rows, its row count), sent now if it was not yet."""
        if self.raw is None:
            self.conn.send_deferred()
        if self.raw is None:
            raise RuntimeError("a deferred statement was dropped before it was sent")
        return PgCursor(self.raw)


def refuse_sqlite_marks(sql: str) -> None:
    """Raise ``ValueError`` when ``sql`` holds SQLite's ``?`` parameter mark outside quotes and
    comments (:func:`core.store.sql_text.segments`): a statement in SQLite's spelling reached
    PostgreSQL, where nothing rewrites it; psycopg would send the ``?`` as text and fail later,
    or, as a jsonb operator, mean something else. A check, not a rewrite."""
    if "?" not in sql:
        return
    if any(code and "?" in text for code, text in segments(sql)):
        shown = " ".join(sql.split())[:200]
        raise ValueError(
            "a statement with SQLite's '?' parameter mark reached PostgreSQL, where SQL is sent "
            "as written: build it with SQLAlchemy Core, or text() with :name values, compiled "
            f"and bound per dialect (core.store.statements.run): {shown}"
        )


def connect_timeout_s() -> int:
    """How long opening a PostgreSQL connection may take: ``$WORKBENCH_CONNECT_TIMEOUT``
    (whole seconds, 1 to :data:`MAX_CONNECT_TIMEOUT_S`; psycopg, like libpq, waits at least 2)
    if set, else :data:`CONNECT_TIMEOUT_S`; any other value is a ``ConfigError`` (one line). A
    ``connect_timeout`` in the URL itself wins."""
    text = os.environ.get("WORKBENCH_CONNECT_TIMEOUT", "").strip()
    if not text:
        return CONNECT_TIMEOUT_S
    try:
        seconds = float(text)
    except ValueError:
        seconds = math.nan
    if not 1 <= seconds <= MAX_CONNECT_TIMEOUT_S:  # also refuses nan
        raise ConfigError(
            f"WORKBENCH_CONNECT_TIMEOUT={text[:40]!r}: expected seconds, a number from 1 to "
            f"{MAX_CONNECT_TIMEOUT_S} (unset it for the default {CONNECT_TIMEOUT_S} s)"
        )
    return math.ceil(seconds)


def connect_timeout_kwargs(url: str) -> dict[str, Any]:
    """psycopg's ``connect_timeout`` keyword for a connection to ``url``
    (:func:`connect_timeout_s`), or none when the URL sets its own: every connection the
    project opens, the tools' too, gives up on a server that accepts and never answers."""
    return {} if "connect_timeout=" in url else {"connect_timeout": connect_timeout_s()}


def is_unreachable(exc: BaseException) -> bool:
    """Whether ``exc`` says the server cannot be reached (psycopg's ``OperationalError`` without
    a server error code: refused, timed out, connection lost; or classes 08 connection exception
    and 57P server shut down or starting): not a lock wait, a full disk or a missing database."""
    psycopg = sys.modules.get("psycopg")  # loaded only once a URL was opened
    if psycopg is None or not isinstance(exc, psycopg.OperationalError):
        return False
    state = exc.sqlstate or ""
    return not state or state.startswith(("08", "57P"))


@contextlib.contextmanager
def _reached() -> Iterator[None]:
    """A statement's failure because the server went away is one
    :class:`core.errors.DatabaseUnreachableError` (other errors pass as they are)."""
    try:
        yield
    except Exception as exc:
        if not is_unreachable(exc):
            raise
        raise DatabaseUnreachableError(
            f"the PostgreSQL server went away during the statement ({_first_line(exc)}); "
            "nothing of it was stored; check that the server runs"
        ) from exc


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def connect_psycopg(url: str) -> psycopg.Connection[tuple[Any, ...]]:
    """Open an autocommit psycopg connection (``BEGIN`` opens a transaction, as with SQLite),
    waiting at most :func:`connect_timeout_s`; a server that cannot be reached (refused, timed
    out) is one :class:`core.errors.DatabaseUnreachableError`, any other refusal (no such
    database, a wrong password) one :class:`core.errors.DatabaseFileError` (password masked)."""
    import psycopg  # deferred: a SQLite workbench never loads the driver

    timeout = connect_timeout_s()
    try:
        raw = psycopg.connect(url, autocommit=True, **connect_timeout_kwargs(url))
    except psycopg.ProgrammingError as exc:  # the URL itself cannot be parsed
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        first = first.replace(url, without_password(url))
        raise DatabaseFileError(
            f"not a valid PostgreSQL URL ({first}); check --db (or $WORKBENCH_DB): "
            "postgresql://USER@HOST:PORT/DATABASE"
        ) from None
    except psycopg.OperationalError as exc:
        first, text = _first_line(exc), str(exc)
        if "FATAL:" not in text or "the database system is" in text:  # no answer, or starting
            raise DatabaseUnreachableError(
                f"cannot connect to PostgreSQL at {without_password(url)}: the server is "
                f"unreachable ({first}; connect timeout {timeout} s, $WORKBENCH_CONNECT_TIMEOUT); "
                "check --db (or $WORKBENCH_DB) and that the server runs"
            ) from None
        raise DatabaseFileError(
            f"cannot connect to PostgreSQL at {without_password(url)} ({first}); check --db "
            "(or $WORKBENCH_DB), that the server runs and that the database exists (createdb)"
        ) from None
    raw.adapters.register_loader("numeric", _numeric_loader())
    # Wait for another transaction's lock no longer than SQLite's busy timeout, then fail as
    # busy (55P03): a label write retries, then says "press again", instead of waiting forever.
    lock_wait = f"{max(1, busy_timeout_ms())}ms"
    raw.execute("select set_config('lock_timeout', %s, false)", [lock_wait])
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
