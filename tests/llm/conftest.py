"""The model-layer tests' loopback server that the three SDK providers point at."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from llm_servers import KEYS, FakeServer

from core.llm.catalog import configure, reset_configuration
from core.llm.registry import clear_instances


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[FakeServer]:
    """A loopback server all three providers point at, with planted keys and fast retries."""
    monkeypatch.chdir(tmp_path)  # no stray .env
    for k, v in KEYS.items():
        monkeypatch.setenv(k, v)
    with FakeServer() as srv:
        # a generous timeout: a reply delayed by a busy machine is not a timeout (the "timeout"
        # behaviour, held until the server closes, sets its own short one)
        fast = dict(timeout_s=30, max_attempts=3, backoff_base_s=0.01, backoff_max_s=0.05)
        configure("openai", base_url=srv.url + "/v1", **fast)
        configure("anthropic", base_url=srv.url, **fast)
        configure("google", base_url=srv.url, explicit_cache_min_tokens=50, **fast)
        yield srv
    reset_configuration()
    clear_instances()
