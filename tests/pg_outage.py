"""A PostgreSQL server going away and coming back, for tests (issue 37): :class:`Outage` is a
TCP forwarder on a free loopback port in front of the test's server. ``down()`` cuts every open
connection and refuses new ones (what a stopped server does to its clients), ``up()`` listens
again on the same port; ``freeze()`` holds every byte (a hung server: nothing refused, nothing
answered), ``thaw()`` lets them through; the server itself (shared by the session) keeps
running. :func:`hung_listener` is a server that hangs from the start: a URL whose port accepts
and never answers."""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator

from core.store.pool import dispose
from scripts.throwaway_pg import database_name


class Outage:
    """A TCP forwarder on a free loopback port to ``upstream`` (host, port)."""

    def __init__(self, upstream: tuple[str, int]) -> None:
        self.upstream = upstream
        self.port = 0
        self._open: list[socket.socket] = []
        self._threads: list[threading.Thread] = []
        self._listener: socket.socket | None = None
        self._acceptor: threading.Thread | None = None
        self._flowing = threading.Event()
        self._flowing.set()

    @classmethod
    @contextlib.contextmanager
    def before(cls, url: str) -> Iterator[Outage]:
        """An outage forwarder, up, in front of the server of ``url``; afterwards stopped, and the
        pooled connections to ``url``'s database closed (it may be dropped)."""
        hostport = url.removeprefix("postgresql://").partition("/")[0].rpartition("@")[2]
        host, _, port = hostport.partition(":")
        outage = cls((host, int(port)))
        outage.up()
        try:
            yield outage
        finally:
            if outage._listener is not None:
                outage.down()
            dispose(database_name(url))

    def up(self) -> None:
        """Listen (again) on the forwarder's port."""
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(64)
        self.port = listener.getsockname()[1]
        self._listener = listener
        self._acceptor = threading.Thread(target=self._accept, args=(listener,), daemon=True)
        self._acceptor.start()

    def down(self) -> None:
        """Refuse new connections and cut the open ones; wait for every forwarding thread."""
        self._flowing.set()  # a frozen pump passes on what it holds, then sees the cut
        listener, self._listener = self._listener, None
        assert listener is not None and self._acceptor is not None
        with contextlib.suppress(OSError):
            listener.shutdown(socket.SHUT_RDWR)  # wakes the accept (Linux)
        self._acceptor.join()  # no connection is added after this
        listener.close()
        cut, self._open = self._open, []
        for sock in cut:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
        for thread in self._threads:
            thread.join()
        for sock in cut:
            sock.close()
        self._threads = []

    def freeze(self) -> None:
        """Hang: connections stay open and new ones are accepted, but nothing is forwarded (what
        clients see of a server whose processes are stopped, e.g. SIGSTOP): a client waits."""
        self._flowing.clear()

    def thaw(self) -> None:
        """Forward again (what was held is passed on)."""
        self._flowing.set()

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
            self._open += [client, server]
            self._start(self._pump, client, server)
            self._start(self._pump, server, client)

    def _pump(self, source: socket.socket, sink: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while data := source.recv(65536):
                self._flowing.wait()
                sink.sendall(data)
        with contextlib.suppress(OSError):
            sink.shutdown(socket.SHUT_WR)


def forwarded_url(url: str, outage: Outage) -> str:
    """``url`` (``postgresql://USER@HOST:PORT/NAME``) through ``outage``'s port."""
    head, _, name = url.rpartition("/")
    user = head.removeprefix("postgresql://").rpartition("@")[0]
    return f"postgresql://{user}@127.0.0.1:{outage.port}/{name}"


@contextlib.contextmanager
def hung_listener() -> Iterator[str]:
    """A PostgreSQL URL on a loopback port whose listener completes the TCP handshake (the
    kernel's backlog) and never answers the start-up message; closed after the block."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    try:
        yield f"postgresql://postgres@127.0.0.1:{listener.getsockname()[1]}/workbench"
    finally:
        listener.close()
