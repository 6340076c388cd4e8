"""run_stage(ordered=True): results are stored in planned order whatever order replies arrive in;
each in its own transaction, and an interrupt keeps the stored prefix."""

from __future__ import annotations

import time

import pytest
from interrupting import calls_in_flight

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


def _late_first(req: LLMRequest) -> str:
    i = int(req.prompt[1:])
    time.sleep(0.15 * (4 - i))  # p0 answers last, p3 first
    return req.prompt


@pytest.mark.parametrize("ordered", [True, False])
def test_ordered_stores_in_planned_order(db, four_in_flight, ordered):
    set_script("order", _late_first)
    stored: list[int] = []

    def store(db, job, resp):
        assert db.conn.in_transaction  # each result in its own transaction
        stored.append(job)
        return "stored"

    got = run_stage(db, _planned("order", 4), store, ordered=ordered)
    assert got == {"stored": 4} and sorted(stored) == [0, 1, 2, 3]
    if ordered:
        assert stored == [0, 1, 2, 3]
    else:
        assert stored[-1] == 0  # as the replies arrived: p0 came last


def test_ordered_interrupt_keeps_the_stored_prefix(db, four_in_flight):
    def script(req: LLMRequest) -> str:
        if req.prompt == "p2":
            time.sleep(0.3)  # p3 arrives first and waits for p2
            raise KeyboardInterrupt
        return req.prompt

    set_script("order-int", script)
    stored: list[int] = []
    with pytest.raises(KeyboardInterrupt):
        run_stage(db, _planned("order-int", 4), lambda db, j, r: stored.append(j), ordered=True)
    assert stored == [0, 1]  # p3's reply never jumps the gap left by p2
