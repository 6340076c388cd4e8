"""A scripted model backend interrupted part-way, for the LLM-stage interrupt tests.

``interrupt_after(name, k, reply, stored)`` installs ``scripted:<name>``: it answers the first
``k`` calls with ``reply(request)``; the next call waits until the stage has stored its ``k``
results (``stored()``, read on the worker thread) and raises KeyboardInterrupt (what Ctrl-C
raises), as does every later call. Inside ``with one_call_in_flight():`` the scripted provider
sends one call at a time. ``answered(name)`` counts the replies the backend gave ("paid"), so a
test sees exactly what a rerun sends. No network.

A Ctrl-C from outside the stage: inside ``with ctrl_c_raises():`` SIGINT raises KeyboardInterrupt
in this process whatever signal state it inherited (a shell starts a background job, ``nohup``
and some CI runners start it with SIGINT ignored, and then ``_thread.interrupt_main`` does
nothing); ``ctrl_c_when(ready, then)`` Ctrl-Cs the main thread once ``ready()`` holds (a
condition, e.g. "k results stored"), never after a wall-clock delay. Child processes that a test
sends SIGINT set their handler themselves: :data:`CHILD_SIGINT` is the line they run first.
"""

from __future__ import annotations

import _thread
import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from core.llm.catalog import configure, reset_configuration
from core.llm.scripted import set_script
from core.llm.types import LLMRequest

_answered: dict[str, int] = {}
_lock = threading.Lock()


def interrupt_after(
    name: str,
    k: int | None,
    reply: Callable[[LLMRequest], str],
    stored: Callable[[], int] | None = None,
) -> None:
    """Install ``scripted:<name>``; ``k=None`` never interrupts (the rerun)."""
    with _lock:
        _answered[name] = 0

    def script(request: LLMRequest) -> str:
        with _lock:
            if k is None or _answered[name] < k:
                _answered[name] += 1
                return reply(request)
        deadline = time.monotonic() + 300  # a condition; the deadline only ends a broken run
        while stored is not None and stored() < k and time.monotonic() < deadline:
            time.sleep(0.01)  # the stage is still storing the k replies
        raise KeyboardInterrupt  # Ctrl-C while this request is on the network

    set_script(name, script)


def answered(name: str) -> int:
    """Replies ``scripted:<name>`` gave since :func:`interrupt_after` installed it."""
    with _lock:
        return _answered.get(name, 0)


@contextmanager
def calls_in_flight(n: int) -> Iterator[None]:
    """The scripted provider sends at most ``n`` calls at a time inside the block."""
    configure("scripted", max_in_flight=n)
    try:
        yield
    finally:
        reset_configuration("scripted")


def one_call_in_flight():
    """The scripted provider sends one call at a time inside the block."""
    return calls_in_flight(1)


CHILD_SIGINT = "import signal; signal.signal(signal.SIGINT, signal.default_int_handler)\n"


@contextmanager
def ctrl_c_raises() -> Iterator[None]:
    """SIGINT (and ``_thread.interrupt_main``) raises KeyboardInterrupt inside the block."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def wait_until(ready: Callable[[], bool], what: str, timeout: float = 300) -> None:
    """Poll ``ready()`` until it holds; the deadline only ends a broken run (AssertionError)."""
    deadline = time.monotonic() + timeout
    while not ready():
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting for {what}")
        time.sleep(0.01)


def ctrl_c_when(
    ready: Callable[[], bool], then: Callable[[], None] = lambda: None
) -> threading.Thread:
    """Start a thread that waits until ``ready()``, Ctrl-Cs the main thread, then calls ``then()``.

    Use inside :func:`ctrl_c_raises`; join the returned thread after the interrupt.
    """

    def run() -> None:
        try:
            wait_until(ready, "the point to interrupt at")
            _thread.interrupt_main(signal.SIGINT)
        finally:
            then()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread
