"""People's time per verdict: median gap between consecutive labels, breaks left out."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np
import pandas as pd

from core.stats.label_time import label_gaps, seconds_per_label


def test_gaps_leave_out_breaks_and_simultaneous_labels():
    t0 = datetime(2026, 1, 1, tzinfo=UTC)
    stamps = [t0 + timedelta(seconds=s) for s in (0, 20, 50, 50, 2000, 2030)]
    # gaps 20, 30, 0 (same instant: left out), 1950 (a break: left out), 30; given out of order
    assert label_gaps([s.isoformat() for s in reversed(stamps)]) == [20.0, 30.0, 30.0]


def test_median_matches_pandas_on_random_sittings():
    rng = np.random.default_rng(3)
    t0 = datetime(2026, 1, 1, tzinfo=UTC)
    stamps = {}
    for name in ("ann", "ben"):
        offsets = np.cumsum(rng.exponential(90, size=60))
        offsets[30:] += 3600  # a lunch break
        stamps[name] = [(t0 + timedelta(seconds=float(o))).isoformat() for o in offsets]
    got = seconds_per_label(stamps)
    pooled = []
    for name, found in stamps.items():
        gaps = pd.to_datetime(pd.Series(found)).sort_values().diff().dt.total_seconds().dropna()
        gaps = gaps[(gaps > 0) & (gaps <= 600)]
        pooled.append(gaps)
        assert got["per_person"][name]["gaps"] == len(gaps)
        assert abs(got["per_person"][name]["median_s"] - gaps.median()) < 1e-6
    assert abs(got["median_s"] - pd.concat(pooled).median()) < 1e-6


def test_no_gap_gives_no_median():
    got = seconds_per_label({"solo": ["2026-01-01T00:00:00+00:00"], "bulk": ["2026-01-01"] * 3})
    assert got["median_s"] is None and got["per_person"]["bulk"]["median_s"] is None
