"""A served app's GIL switch interval (issue 33): ``WORKBENCH_SWITCH_INTERVAL_MS`` or the
default, set by each page's frame in a served process only (AppTest and the CLIs keep Python's)."""

from __future__ import annotations

import sys

import pytest

from app_support import hosting


def test_the_switch_interval_setting():
    default = hosting.DEFAULT_SWITCH_INTERVAL_MS / 1000
    assert hosting.switch_interval_s({}) == default
    assert hosting.switch_interval_s({hosting.SWITCH_INTERVAL_VAR: " "}) == default
    assert hosting.switch_interval_s({hosting.SWITCH_INTERVAL_VAR: "0.5"}) == 0.0005
    assert hosting.switch_interval_s({hosting.SWITCH_INTERVAL_VAR: "5"}) == 0.005
    for bad in ("0", "-1", "fast", "nan", "inf"):
        with pytest.raises(ValueError, match=hosting.SWITCH_INTERVAL_VAR):
            hosting.switch_interval_s({hosting.SWITCH_INTERVAL_VAR: bad})


def test_only_a_served_app_sets_it(monkeypatch):
    before = sys.getswitchinterval()
    monkeypatch.setenv(hosting.SWITCH_INTERVAL_VAR, "0.25")
    try:
        monkeypatch.setattr(hosting, "served", lambda: False)
        hosting.set_switch_interval()
        assert sys.getswitchinterval() == before  # AppTest, a CLI: Python's own
        monkeypatch.setattr(hosting, "served", lambda: True)
        hosting.set_switch_interval()
        assert sys.getswitchinterval() == pytest.approx(0.00025)
    finally:
        sys.setswitchinterval(before)
