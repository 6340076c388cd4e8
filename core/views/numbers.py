"""Figures as display text, one rule for the pages and the HTML report: a number formatted by a
format spec, a missing figure (None or NaN) as a placeholder, never "None" or "nan", and an
interval as ``[low, high]``."""

from __future__ import annotations

import math
import re
from typing import Any

_FIXED = re.compile(r"^\.(\d+)([f%])$")


def num(value: Any, fmt: str = ".2f", missing: str = "–") -> str:
    """``value`` formatted with ``fmt`` (``format(value, fmt)``), or ``missing`` for None / NaN."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return missing
    return format(value, fmt)


def interval(low: Any, high: Any, fmt: str = ".2f") -> str:
    """``[low, high]`` formatted with ``fmt``, or "" when either end is missing. A fixed-point or
    percent ``fmt`` gets more decimals (up to 4 more) where rounding would hide the interval: a
    non-zero bound shown as 0 (the Wilson interval of 0 of 1,008 is ``[0%, 0.4%]``, never
    ``[0%, 0%]``) or two different bounds shown alike."""
    if low is None or high is None:
        return ""
    fixed = _FIXED.match(fmt)
    if fixed and all(isinstance(v, (int, float)) and math.isfinite(v) for v in (low, high)):
        digits, kind = int(fixed.group(1)), fixed.group(2)
        for extra in range(5):
            spec = f".{digits + extra}{kind}"
            shown = [num(low, spec), num(high, spec)]
            hidden = [
                abs(v) > 1e-12 and float(t.rstrip("%")) == 0 for v, t in zip((low, high), shown)
            ]
            if not any(hidden) and (shown[0] != shown[1] or low == high):
                break
        return f"[{shown[0]}, {shown[1]}]"
    return f"[{num(low, fmt)}, {num(high, fmt)}]"
