"""run_stage(ordered=True): results are stored in planned order whatever order replies arrive in;
each in its own transaction, and an interrupt keeps the stored prefix.

The arrival order is forced by conditions, not sleeps: a scripted reply waits until the replies
it must follow have reached the stage (``arrivals``, recorded on the stage's own thread)."""

from __future__ import annotations

import threading

import pytest
from interrupting import calls_in_flight, wait_until

import core.llm.stage as stage
from core.llm.scripted import set_script
from core.llm.stage import run_stage
from core.llm.types import LLMRequest


def _planned(name: str, n: int) -> list[tuple[int, LLMRequest]]:
    return [
        (i, LLMRequest(model=f"scripted:{name}", task="answer", prompt=f"p{i}", context="c"))
        for i in range(n)
    ]


@pytest.fixture
def four_in_flight():
    with calls_in_flight(4):
        yield


@pytest.fixture
def arrivals(monkeypatch) -> list[int]:
    """The job indexes in the order their replies reached run_stage."""
    seen: list[int] = []
    lock = threading.Lock()
    real = stage.complete_many

    def spy(db, requests, *, on_reply, **kw):
        def record(i, response):
            with lock:
                seen.append(i)
            on_reply(i, response)

        return real(db, requests, on_reply=record, **kw)

    monkeypatch.setattr(stage, "complete_many", spy)
    return seen


def _after(arrivals: list[int], jobs: set[int]) -> None:
    wait_until(lambda: jobs <= set(arrivals), f"replies {sorted(jobs)} to arrive")


@pytest.mark.parametrize("ordered", [True, False])
def test_ordered_stores_in_planned_order(db, four_in_flight, arrivals, ordered):
    def last_first(req: LLMRequest) -> str:  # p0 answers last, after p1..p3
        if req.prompt == "p0":
            _after(arrivals, {1, 2, 3})
        return req.prompt

    set_script("order", last_first)
    stored: list[int] = []

    def store(db, job, resp):
        assert db.conn.in_transaction  # each result in its own transaction
        stored.append(job)
        return "stored"

    got = run_stage(db, _planned("order", 4), store, ordered=ordered)
    assert got == {"stored": 4} and sorted(stored) == [0, 1, 2, 3]
    assert arrivals[-1] == 0
    if ordered:
        assert stored == [0, 1, 2, 3]
    else:
        assert stored[-1] == 0  # as the replies arrived: p0 came last


def test_ordered_interrupt_keeps_the_stored_prefix(db, four_in_flight, arrivals):
    def script(req: LLMRequest) -> str:
        if req.prompt == "p2":
            _after(arrivals, {0, 1, 3})  # p3 arrives first and waits for p2
            raise KeyboardInterrupt
        return req.prompt

    set_script("order-int", script)
    stored: list[int] = []
    with pytest.raises(KeyboardInterrupt):
        run_stage(db, _planned("order-int", 4), lambda db, j, r: stored.append(j), ordered=True)
    assert stored == [0, 1]  # p3's reply never jumps the gap left by p2
