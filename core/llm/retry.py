"""One retry loop for every provider: exponential backoff with jitter, honouring Retry-After."""

from __future__ import annotations

import email.utils
import random
import time
from collections.abc import Callable, Mapping
from typing import TypeVar

from core.llm.types import ProviderCallError

T = TypeVar("T")
MAX_RETRY_AFTER_S = 600.0


def backoff_delay(attempt: int, base: float, cap: float, rng: random.Random) -> float:
    """Delay before attempt ``attempt + 1``: ``d = min(cap, base * 2**(attempt-1))``, jittered
    uniformly in ``[d/2, d]`` ("equal jitter")."""
    d = min(cap, base * 2.0 ** (attempt - 1))
    return d / 2 + rng.random() * d / 2


def parse_retry_after(headers: Mapping[str, str] | None) -> float | None:
    """Seconds from ``retry-after-ms`` or ``Retry-After`` (seconds or an HTTP date)."""
    if not headers:
        return None
    lower = {k.lower(): v for k, v in headers.items()}
    try:
        if "retry-after-ms" in lower:
            return max(0.0, float(lower["retry-after-ms"]) / 1000)
        value = lower.get("retry-after")
        if value is None:
            return None
        try:
            return max(0.0, float(value))
        except ValueError:
            when = email.utils.parsedate_to_datetime(value)
            return max(0.0, when.timestamp() - time.time())
    except (TypeError, ValueError):
        return None


def call_with_retry(
    fn: Callable[[], T],
    *,
    max_attempts: int,
    base_s: float,
    cap_s: float,
    rng: random.Random | None = None,
    sleep: Callable[[float], object] = time.sleep,
) -> tuple[T, int]:
    """Run ``fn`` up to ``max_attempts`` times while it raises a retryable ProviderCallError.

    Returns ``(result, attempts)``. The last error is re-raised with ``.attempts`` set.
    A ``retry_after`` from the server replaces the backoff (plus up to 10% jitter).
    """
    rng = rng or random.Random()
    attempt = 0
    while True:
        attempt += 1
        try:
            return fn(), attempt
        except ProviderCallError as exc:
            exc.attempts = attempt
            if not exc.retryable or attempt >= max_attempts:
                raise
            if exc.retry_after is not None:
                delay = min(exc.retry_after, MAX_RETRY_AFTER_S)
                delay += rng.random() * 0.1 * delay
            else:
                delay = backoff_delay(attempt, base_s, cap_s, rng)
            sleep(delay)
