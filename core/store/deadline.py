"""A PostgreSQL connection that does not answer in time is cut (issue 37).

A hung server (its processes stopped, a machine that froze, a network that drops packets
without a reset) leaves a waiting client waiting: the kernel keeps the TCP connection open, so
neither libpq nor the pool notices, and the app's page stays grey with no message. Opening a
connection is bounded by ``connect_timeout``; a pooled connection's check before it is handed
out (the pool's pre-ping, :mod:`core.store.pool`) is bounded here: :func:`within` runs a block
and, if it has not finished after ``seconds``, shuts the connection's socket down from a
watchdog thread. The waiting call then fails at once as a lost connection (psycopg's
``OperationalError``, the connection ``broken``), which the pool discards and the store reports
as :class:`core.errors.DatabaseUnreachableError` (one plain line in the app).

One watchdog thread per process, started on first use, sleeping until the earliest deadline.
A block that ends just as its deadline passes may still see its connection cut: it is then
discarded like any broken one.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import socket
import threading
import time
from collections.abc import Iterator
from typing import Protocol


class HasSocket(Protocol):
    """A connection with a socket (psycopg's ``Connection.fileno``)."""

    def fileno(self) -> int: ...


_cond = threading.Condition()
_due: dict[int, tuple[float, HasSocket]] = {}
_ids = itertools.count()
_watchdog: threading.Thread | None = None
#: How many connections the watchdog cut (for tests and the log).
cut_count = 0


@contextlib.contextmanager
def within(seconds: float, conn: HasSocket) -> Iterator[None]:
    """Run the block; cut ``conn`` (shut its socket down) if it is still running after
    ``seconds``."""
    token = next(_ids)
    with _cond:
        _due[token] = (time.monotonic() + seconds, conn)
        _start()
        _cond.notify()
    try:
        yield
    finally:
        with _cond:
            _due.pop(token, None)


def _start() -> None:
    global _watchdog
    if _watchdog is None or not _watchdog.is_alive():
        _watchdog = threading.Thread(target=_watch, name="workbench-deadline", daemon=True)
        _watchdog.start()


def _watch() -> None:
    while True:
        with _cond:
            now = time.monotonic()
            late = [token for token, (at, _) in _due.items() if at <= now]
            cut = [_due.pop(token)[1] for token in late]
            if not cut:
                earliest = min((at for at, _ in _due.values()), default=now + 3600)
                _cond.wait(max(0.0, earliest - now))
                continue
        for conn in cut:
            sever(conn)


def sever(conn: HasSocket) -> None:
    """Shut ``conn``'s socket down in both directions (a call waiting on it fails at once);
    a connection already closed is left alone."""
    global cut_count
    try:
        fd = os.dup(conn.fileno())
    except Exception:  # reason: closed meanwhile (OSError, or psycopg's OperationalError)
        return
    sock = socket.socket(fileno=fd)
    try:
        sock.shutdown(socket.SHUT_RDWR)
        cut_count += 1
    except OSError:  # not connected any more
        pass
    finally:
        sock.close()  # the duplicate only: the connection's own descriptor stays its own
