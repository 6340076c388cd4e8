"""A served app's GIL switch interval (issue 33): ``WORKBENCH_SWITCH_INTERVAL_MS``, or 1 ms on
PostgreSQL and Python's own on SQLite, set by each page's frame in a served process only (AppTest
and the CLIs keep Python's)."""

from __future__ import annotations

import sys

import pytest

from app_support import connection, hosting

VAR = hosting.SWITCH_INTERVAL_VAR


def test_the_switch_interval_setting():
    default = hosting.DEFAULT_SWITCH_INTERVAL_MS / 1000
    assert hosting.switch_interval_s(True, {}) == default == 0.001
    assert hosting.switch_interval_s(True, {VAR: " "}) == default
    assert hosting.switch_interval_s(False, {}) is None  # SQLite: Python's own
    for postgres in (True, False):
        assert hosting.switch_interval_s(postgres, {VAR: "0.5"}) == 0.0005
        assert hosting.switch_interval_s(postgres, {VAR: "5"}) == 0.005
    for bad in ("0", "-1", "fast", "nan", "inf"):
        with pytest.raises(ValueError, match=VAR):
            hosting.switch_interval_s(True, {VAR: bad})


def test_only_a_served_app_sets_it(monkeypatch):
    before = sys.getswitchinterval()
    try:
        monkeypatch.setattr(hosting, "served", lambda: False)
        monkeypatch.setenv(VAR, "0.25")
        hosting.set_switch_interval(True)
        assert sys.getswitchinterval() == before  # AppTest, a CLI: Python's own
        monkeypatch.setattr(hosting, "served", lambda: True)
        monkeypatch.delenv(VAR)
        hosting.set_switch_interval(False)
        assert sys.getswitchinterval() == before  # SQLite, not set: Python's own
        hosting.set_switch_interval(True)
        assert sys.getswitchinterval() == pytest.approx(0.001)
        monkeypatch.setenv(VAR, "0.25")
        hosting.set_switch_interval(False)
        assert sys.getswitchinterval() == pytest.approx(0.00025)
    finally:
        sys.setswitchinterval(before)


def test_the_frame_asks_which_database_the_app_serves(monkeypatch):
    monkeypatch.setenv("WORKBENCH_DB", "postgresql://u@127.0.0.1:1/x")
    assert connection.on_postgres()
    monkeypatch.setenv("WORKBENCH_DB", "/tmp/workbench.db")
    assert not connection.on_postgres()
