"""Faults a team meets (issue 37): the PostgreSQL server goes away while an annotator works.

The app reaches the test's server through :class:`Outage`, a loopback forwarder standing in for
the server's address: ``down()`` cuts every open connection and refuses new ones (what a stopped
server does to its clients), ``up()`` listens again on the same port. A verdict pressed while it is
down stores nothing and says, in one plain line, that it was not saved (press again), with the
detail in the log only; once the server is back the next run renders and the verdict pressed
again is stored, without a reload.
"""

from __future__ import annotations

import contextlib
import logging
import socket
import threading
from collections.abc import Iterator

import pytest
from browser_support import build_fixture_db, unescaped
from pg_server import built_database
from test_app_pages import button, count, ok, page

SBS = "pages/3_Side_by_side.py"


class Outage:
    """A TCP forwarder on a free loopback port to ``upstream`` (host, port)."""

    def __init__(self, upstream: tuple[str, int]) -> None:
        self.upstream = upstream
        self.port = 0
        self._open: list[socket.socket] = []
        self._threads: list[threading.Thread] = []
        self._lock = threading.Lock()
        self._listener: socket.socket | None = None

    def up(self) -> None:
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(64)
        self.port = listener.getsockname()[1]
        self._listener = listener
        self._start(self._accept, listener)

    def down(self) -> None:
        """Refuse new connections and cut the open ones; wait for every forwarding thread."""
        listener, self._listener = self._listener, None
        assert listener is not None
        with contextlib.suppress(OSError):
            listener.shutdown(socket.SHUT_RDWR)  # wakes the accept (Linux)
        listener.close()
        with self._lock:
            cut, self._open = self._open, []
        for sock in cut:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
        for thread in self._threads:
            thread.join()
        for sock in cut:
            sock.close()
        self._threads = []

    def _start(self, target, *args) -> None:
        thread = threading.Thread(target=target, args=args, daemon=True)
        self._threads.append(thread)
        thread.start()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            server = socket.create_connection(self.upstream)
            with self._lock:
                self._open += [client, server]
            self._start(self._pump, client, server)
            self._start(self._pump, server, client)

    @staticmethod
    def _pump(source: socket.socket, sink: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while data := source.recv(65536):
                sink.sendall(data)
        with contextlib.suppress(OSError):
            sink.shutdown(socket.SHUT_WR)


@pytest.fixture
def backend() -> str:
    return "postgresql"


@pytest.fixture
def outage_db(request, monkeypatch) -> Iterator[tuple[str, str, Outage]]:
    """(the URL through the forwarder, the direct URL, the forwarder) of a copy of the fixture
    database; the app's ``WORKBENCH_DB`` is the forwarded URL."""
    direct, _ = built_database(request, "fixture_db", build_fixture_db)
    head, _, name = str(direct).rpartition("/")
    user, _, hostport = head.removeprefix("postgresql://").rpartition("@")
    host, _, port = hostport.partition(":")
    outage = Outage((host, int(port)))
    outage.up()
    forwarded = f"postgresql://{user}@127.0.0.1:{outage.port}/{name}"
    monkeypatch.setenv("WORKBENCH_DB", forwarded)
    monkeypatch.setenv("WORKBENCH_CONNECT_TIMEOUT", "2")
    try:
        yield forwarded, str(direct), outage
    finally:
        if outage._listener is not None:
            outage.down()
        from core.store.pool import dispose

        dispose(name)


@contextlib.contextmanager
def _logged() -> Iterator[list[str]]:
    """The lines the app's frame logs meanwhile (Streamlit's loggers do not propagate to root)."""
    lines: list[str] = []
    handler = logging.Handler()
    handler.emit = lambda record: lines.append(record.getMessage())  # type: ignore[method-assign]
    log = logging.getLogger("app_support.connection")
    log.addHandler(handler)
    try:
        yield lines
    finally:
        log.removeHandler(handler)


def test_a_verdict_while_the_database_is_down_says_not_saved_and_is_stored_when_back(outage_db):
    forwarded, direct, outage = outage_db
    mine = "select count(*) from judgments where rater = 'human:alice'"
    at = ok(page(SBS))
    assert not at.error
    shown = [m.value for m in at.markdown]
    outage.down()
    with _logged() as log:
        ok(button(at, "A").click().run())
    errors = [unescaped(e.value) for e in at.error]
    assert len(errors) == 1, errors
    line = errors[0]
    assert "not saved" in line.lower() and "press again" in line.lower(), line
    assert "unreachable" in line, line
    for operator_detail in ("createdb", "127.0.0.1", str(outage.port), "postgres@", "--db"):
        assert operator_detail not in line, line
    assert "Traceback" not in line
    assert any(str(outage.port) in line for line in log), log  # the operator's detail
    assert count(direct, mine) == 0
    outage.up()  # the server is back: the next run renders, no reload
    ok(at.run())
    assert not at.error, [e.value for e in at.error]
    assert [m.value for m in at.markdown] == shown  # the same item, still on screen
    ok(button(at, "A").click().run())
    assert not at.error, [e.value for e in at.error]
    assert count(direct, mine) == 1


def test_a_page_opened_while_the_database_is_down_shows_one_line_and_recovers(outage_db):
    _, _, outage = outage_db
    at = ok(page(SBS))
    outage.down()
    ok(at.run())
    errors = [unescaped(e.value) for e in at.error]
    assert len(errors) == 1 and "unreachable" in errors[0], errors
    assert "createdb" not in errors[0]
    outage.up()
    ok(at.run())
    assert not at.error, [e.value for e in at.error]
    assert any(unescaped(b.label) == "A" for b in at.button)
