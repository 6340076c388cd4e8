"""Figures as display text, one rule for the pages and the HTML report: a number formatted by a
format spec, a missing figure (None or NaN) as a placeholder, never "None" or "nan", and an
interval as ``[low, high]``."""

from __future__ import annotations

import math
from typing import Any


def num(value: Any, fmt: str = ".2f", missing: str = "–") -> str:
    """``value`` formatted with ``fmt`` (``format(value, fmt)``), or ``missing`` for None / NaN."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return missing
    return format(value, fmt)


def interval(low: Any, high: Any, fmt: str = ".2f") -> str:
    """``[low, high]`` formatted with ``fmt``, or "" when either end is missing."""
    if low is None or high is None:
        return ""
    return f"[{num(low, fmt)}, {num(high, fmt)}]"
