"""People's time per verdict from the timestamps of their labels.

One person's labels, in time order, are separated by gaps ``g_i = t_{i+1} - t_i``. A gap longer
than ``max_gap_s`` (default 10 minutes) is a break, not work, and is left out; the time per
verdict is the median of the remaining gaps (the first label of a sitting has no gap of its own,
so a sitting of ``n`` labels gives ``n - 1`` gaps). The median, not the mean, so one slow item
does not dominate. Pure Python; no storage.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

#: Gaps longer than this (seconds) are breaks and left out.
MAX_GAP_S = 600.0


def _seconds(stamp: str | datetime) -> float:
    """A timestamp (ISO 8601 text or a ``datetime``) as POSIX seconds."""
    when = stamp if isinstance(stamp, datetime) else datetime.fromisoformat(str(stamp))
    return when.timestamp()


def label_gaps(stamps: Iterable[str | datetime], max_gap_s: float = MAX_GAP_S) -> list[float]:
    """The gaps (seconds) between consecutive labels of one person, breaks (``> max_gap_s``)
    and zero gaps (labels stored at one instant, e.g. imported) left out."""
    times = sorted(_seconds(s) for s in stamps)
    return [b - a for a, b in zip(times, times[1:]) if 0 < b - a <= max_gap_s]


def seconds_per_label(
    stamps_by_person: Mapping[str, Iterable[str | datetime]], max_gap_s: float = MAX_GAP_S
) -> dict[str, Any]:
    """Median seconds per label, per person and over everyone's gaps pooled.

    Returns ``{"per_person": {name: {"labels", "gaps", "median_s"}}, "gaps", "median_s",
    "max_gap_s"}``; ``median_s`` is None where there is no gap (one label, or all at one
    instant).
    """
    per_person: dict[str, dict[str, Any]] = {}
    pooled: list[float] = []
    for name, stamps in sorted(stamps_by_person.items()):
        stamps = list(stamps)
        gaps = label_gaps(stamps, max_gap_s)
        pooled += gaps
        per_person[name] = {
            "labels": len(stamps),
            "gaps": len(gaps),
            "median_s": statistics.median(gaps) if gaps else None,
        }
    return {
        "per_person": per_person,
        "gaps": len(pooled),
        "median_s": statistics.median(pooled) if pooled else None,
        "max_gap_s": max_gap_s,
    }
