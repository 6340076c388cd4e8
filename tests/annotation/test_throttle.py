"""Sign-in throttle: per client, after FREE_FAILURES failed attempts a growing wait, refused
without running the token check; an injected clock (no sleeps)."""

from __future__ import annotations

import pytest

import core.annotation.throttle as throttle
from core.annotation.throttle import (
    BASE_DELAY_S,
    FREE_FAILURES,
    MAX_DELAY_S,
    WINDOW_S,
    start_session_throttled,
    wait_seconds,
)
from core.errors import AccessError
from core.store.accounts import create_account
from core.store.sign_in_failures import failures_since


class Clock:
    def __init__(self, now: float = 1_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def test_wait_seconds_doubles_after_the_free_failures():
    now = 5000.0
    assert wait_seconds([], now) == 0
    assert wait_seconds([now] * FREE_FAILURES, now) == 0
    for extra, expected in ((1, BASE_DELAY_S), (2, 2 * BASE_DELAY_S), (3, 4 * BASE_DELAY_S)):
        assert wait_seconds([now] * (FREE_FAILURES + extra), now) == expected
    assert wait_seconds([now] * (FREE_FAILURES + 40), now) == MAX_DELAY_S
    # measured from the latest failure; failures older than the window do not count
    assert wait_seconds([now - 1.5] * (FREE_FAILURES + 1), now) == pytest.approx(0.5)
    assert wait_seconds([now - WINDOW_S] * (FREE_FAILURES + 3), now) == 0


def _attempt(db, token, client, clock):
    try:
        start_session_throttled(db, token, client, clock)
        return "ok"
    except AccessError as exc:
        return str(exc)


def test_repeated_failures_lock_out_one_client_without_checking_the_token(db, monkeypatch):
    good = create_account(db, "alice")
    clock = Clock()
    checked = []
    real = throttle.start_session
    monkeypatch.setattr(throttle, "start_session", lambda d, t: checked.append(t) or real(d, t))
    for _ in range(FREE_FAILURES + 1):
        assert _attempt(db, "x.wrong", "10.0.0.1", clock) == "wrong sign-in token"
    n_checked = len(checked)
    # now even the right token is refused without being checked
    refused = _attempt(db, good, "10.0.0.1", clock)
    assert refused.startswith("too many failed sign-in attempts") and "2 s" in refused
    assert len(checked) == n_checked
    # another client is not affected
    assert _attempt(db, "x.wrong", "10.0.0.2", clock) == "wrong sign-in token"
    # after the wait one attempt is allowed; failing again doubles the wait
    clock.now += BASE_DELAY_S
    assert _attempt(db, "x.wrong", "10.0.0.1", clock) == "wrong sign-in token"
    assert "4 s" in _attempt(db, good, "10.0.0.1", clock)
    clock.now += 2 * BASE_DELAY_S
    assert _attempt(db, good, "10.0.0.1", clock) == "ok"
    # a sign-in forgets the client's failures
    assert failures_since(db, "10.0.0.1", 0) == []
    assert len(failures_since(db, "10.0.0.2", 0)) == 1


def test_old_failures_are_dropped(db):
    clock = Clock()
    for _ in range(FREE_FAILURES + 2):
        _attempt(db, "x.wrong", "c", clock)
    clock.now += WINDOW_S + 1
    assert _attempt(db, "x.wrong", "other", clock) == "wrong sign-in token"
    assert failures_since(db, "c", 0) == []  # pruned when the next failure was recorded
