"""A real interrupted run: a child process calling a loopback server is killed (SIGKILL) or
interrupted (SIGINT) half-way; the database holds only whole rows and the next run resumes.

The child sets its own SIGINT handler (it may inherit SIGINT ignored, as a background job does);
the server holds its replies after the k-th, so the child is always mid-run when it is stopped."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from interrupting import CHILD_SIGINT
from llm_servers import FakeServer, reply_text

from core.llm.catalog import configure, reset_configuration
from core.llm.engine import complete_many
from core.llm.registry import clear_instances
from core.llm.types import LLMRequest
from core.store.database import open_db, postgres_url

ROOT = Path(__file__).resolve().parents[2]
N = 40
KEY = "sk-resume-test-0123456789abcdefXYZ"
CHILD = (
    CHILD_SIGINT
    + """
import sys
from core.llm.engine import complete_many
from core.llm.types import LLMRequest
from core.store.database import open_db, postgres_url
from core.llm.catalog import configure
from core.store.database import open_db
configure("openai", base_url=sys.argv[2], max_in_flight=2, max_attempts=5,
          backoff_base_s=0.01)
db = open_db(sys.argv[1])
complete_many(db, [LLMRequest(model="openai:gpt-4o-mini", prompt=p)
                   for p in sys.argv[3].split(",")])
"""
)

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")


def prompts() -> list[str]:
    return [f"p{i}" for i in range(N)]


@pytest.fixture
def start_child(tmp_path):
    """Start the child run; a child still alive when the test ends is killed."""
    children: list[subprocess.Popen] = []

    def start(db_path: Path | str, url: str, names: list[str]) -> subprocess.Popen:
        env = {**os.environ, "OPENAI_API_KEY": KEY, "PYTHONPATH": str(ROOT)}
        env.pop("WORKBENCH_LLM_CACHE", None)
        child = subprocess.Popen(
            [sys.executable, "-c", CHILD, str(db_path), url + "/v1", ",".join(names)],
            cwd=tmp_path,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        children.append(child)
        return child

    yield start
    for child in children:
        if child.poll() is None:
            child.kill()
            child.wait()


def wait_for_rows(
    db_path: Path | str, n: int, child: subprocess.Popen, timeout: float = 300
) -> None:
    deadline = time.monotonic() + timeout  # a condition; the deadline only ends a broken run
    reader = open_db(db_path, migrate=False)  # a second connection, as the app's would be
    try:
        while time.monotonic() < deadline:
            assert child.poll() is None, child.stderr.read().decode()[-2000:]
            if reader.execute("select count(*) from llm_cache").fetchone()[0] >= n:
                return
            time.sleep(0.02)
    finally:
        reader.close()
    raise AssertionError("the child made no progress")


def check_whole_rows(db_path: Path | str) -> int:
    """Every cached reply has its ledger row and vice versa; returns the number stored."""
    db = open_db(db_path, migrate=False)
    try:
        if postgres_url(db_path) is None:  # PostgreSQL has no file to damage
            assert db.execute("pragma integrity_check").fetchone()[0] == "ok"
        cache = {r[0] for r in db.execute("select key from llm_cache")}
        ledger = [
            r[0]
            for r in db.execute("select cache_key from llm_calls where status='ok' and cache_hit=0")
        ]
        assert sorted(ledger) == sorted(cache)  # no reply without its ledger row, no duplicate
    finally:
        db.close()
    return len(cache)


@pytest.fixture
def server(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.delenv("WORKBENCH_LLM_CACHE", raising=False)
    with FakeServer(delay=0.05) as srv:
        configure("openai", base_url=srv.url + "/v1", max_in_flight=4)
        yield srv
    reset_configuration()
    clear_instances()


def resume(db_path: Path | str, server: FakeServer, stored: int) -> None:
    sent = len(server.calls)
    db = open_db(db_path)
    out = complete_many(db, [LLMRequest(model="openai:gpt-4o-mini", prompt=p) for p in prompts()])
    db.conn.close()
    assert len(server.calls) - sent == N - stored  # only what was missing is sent
    assert [r.text for r in out] == [reply_text(p) for p in prompts()]
    assert sum(r.cache_hit for r in out) == stored
    assert check_whole_rows(db_path) == N


def test_killed_run_leaves_whole_rows_and_resumes(server, db_path, start_child):
    server.hold_after(6)  # six replies; later calls wait at the server
    child = start_child(db_path, server.url, prompts())
    wait_for_rows(db_path, 6, child)
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=60)
    server.release()
    stored = check_whole_rows(db_path)
    assert stored == 6
    resume(db_path, server, stored)


def test_ctrl_c_stops_promptly_even_during_a_long_retry_wait(server, db_path, start_child):
    # one call is told to come back in 600 s (the longest wait honoured); Ctrl-C must not wait
    # for it: the child stops within a fifth of that however busy the machine is
    wait = {"Retry-After": "600"}
    server.sticky = {"p39": ("status", 429, wait, {"error": {"message": "slow"}})}
    child = start_child(db_path, server.url, prompts()[::-1])  # p39 goes first
    wait_for_rows(db_path, 6, child)
    child.send_signal(signal.SIGINT)
    child.wait(timeout=120)
    assert b"KeyboardInterrupt" in child.stderr.read()
    stored = check_whole_rows(db_path)
    assert stored < N
    server.sticky = {}
    resume(db_path, server, stored)
