"""A scripted model backend interrupted part-way, for the LLM-stage interrupt tests.

``interrupt_after(name, k, reply, stored)`` installs ``scripted:<name>``: it answers the first
``k`` calls with ``reply(request)``; the next call waits until the stage has stored its ``k``
results (``stored()``, read on the worker thread) and raises KeyboardInterrupt (what Ctrl-C
raises), as does every later call. Inside ``with one_call_in_flight():`` the scripted provider
sends one call at a time. ``answered(name)`` counts the replies the backend gave ("paid"), so a
test sees exactly what a rerun sends. No network.
"""

from __future__ import annotations

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
        deadline = time.monotonic() + 10
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
