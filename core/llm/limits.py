"""Per-provider limits: requests in flight, requests per minute, tokens per minute.

Each limit is shared by every call to the provider in this process. Per-minute limits are token
buckets of capacity ``rate`` refilled at ``rate / 60`` per second; a request that needs more
than a full bucket waits for a full bucket and then takes all of it.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator

from core.llm.catalog import ProviderSettings


class TokenBucket:
    """A bucket of ``rate`` units per minute (0 = unlimited)."""

    def __init__(self, rate: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.rate, self.clock = float(rate), clock
        self.level, self.stamp = float(rate), clock()
        self.lock = threading.Lock()

    def take(self, amount: float, sleep: Callable[[float], None] = time.sleep) -> float:
        """Block until ``amount`` units are available, take them; return the seconds waited."""
        if self.rate <= 0:
            return 0.0
        amount, waited = min(float(amount), self.rate), 0.0
        while True:
            with self.lock:
                now = self.clock()
                self.level = min(self.rate, self.level + (now - self.stamp) * self.rate / 60.0)
                self.stamp = now
                if self.level >= amount:
                    self.level -= amount
                    return waited
                delay = (amount - self.level) * 60.0 / self.rate
            sleep(delay)
            waited += delay


class Limiter:
    """In-flight semaphore plus RPM and TPM buckets of one provider."""

    def __init__(self, max_in_flight: int, rpm: int = 0, tpm: int = 0) -> None:
        self.max_in_flight = max(1, int(max_in_flight))
        self.slots = threading.BoundedSemaphore(self.max_in_flight)
        self.requests, self.tokens = TokenBucket(rpm), TokenBucket(tpm)
        self._lock = threading.Lock()
        self.in_flight = self.peak_in_flight = 0

    @contextlib.contextmanager
    def slot(self, tokens: int) -> Iterator[None]:
        """Hold one in-flight slot after the per-minute budgets allow ``tokens`` more."""
        self.requests.take(1)
        self.tokens.take(tokens)
        with self.slots:
            with self._lock:
                self.in_flight += 1
                self.peak_in_flight = max(self.peak_in_flight, self.in_flight)
            try:
                yield
            finally:
                with self._lock:
                    self.in_flight -= 1


_limiters: dict[tuple[str, int, int, int], Limiter] = {}
_lock = threading.Lock()


def limiter_for(settings: ProviderSettings) -> Limiter:
    """The process-wide limiter of a provider (one per distinct limit setting)."""
    key = (settings.name, settings.max_in_flight, settings.rpm, settings.tpm)
    with _lock:
        if key not in _limiters:
            _limiters[key] = Limiter(settings.max_in_flight, settings.rpm, settings.tpm)
        return _limiters[key]
