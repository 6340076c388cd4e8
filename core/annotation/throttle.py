"""Sign-in throttle: after repeated failed token attempts from one client, refuse further
attempts for a growing delay, without running the token check (scrypt costs about 0.1 s of CPU
per attempt, so unthrottled guessing is also a way to load the server).

Policy: the failures of a client within the last :data:`WINDOW_S` seconds count. The first
:data:`FREE_FAILURES` cost nothing; after the ``n``-th (``n > FREE_FAILURES``) the client waits
``min(BASE_DELAY_S * 2 ** (n - FREE_FAILURES - 1), MAX_DELAY_S)`` seconds from that failure. A
successful sign-in forgets the client's failures. The failures live in the store (table
``sign_in_failures``), so several server processes on one database share them.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from core.annotation.identity import Annotator, start_session
from core.errors import AccessError
from core.store.sign_in_failures import clear_failures, failures_since, record_failure

if TYPE_CHECKING:
    from core.store.engine import Database

FREE_FAILURES = 5
BASE_DELAY_S = 2.0
MAX_DELAY_S = 900.0
WINDOW_S = 3600.0


def wait_seconds(failures: Sequence[float], now: float) -> float:
    """How long a client with failed attempts at times ``failures`` (within the window) must
    still wait at ``now`` (0: it may try)."""
    recent = [t for t in failures if now - t < WINDOW_S]
    n = len(recent)
    if n <= FREE_FAILURES:
        return 0.0
    delay: float = min(BASE_DELAY_S * 2 ** (n - FREE_FAILURES - 1), MAX_DELAY_S)
    return max(0.0, max(recent) + delay - now)


def check_client(db: Database, client: str, clock: Callable[[], float] = time.time) -> None:
    """AccessError when ``client`` must still wait after repeated failed sign-ins."""
    now = clock()
    wait = wait_seconds(failures_since(db, client, now - WINDOW_S), now)
    if wait > 0:
        raise AccessError(
            f"too many failed sign-in attempts from this client: try again in {math.ceil(wait)} s"
        )


def start_session_throttled(
    db: Database,
    token: str,
    client: str,
    clock: Callable[[], float] = time.time,
) -> tuple[Annotator, str]:
    """:func:`core.annotation.identity.start_session` for ``client``, refused without checking
    the token while the client must wait; a refused token counts as a failure, a sign-in
    forgets the client's failures."""
    check_client(db, client, clock)
    try:
        found = start_session(db, token)
    except AccessError:
        record_failure(db, client, clock(), keep_s=WINDOW_S)
        raise
    clear_failures(db, client)
    return found
