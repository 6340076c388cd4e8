"""Figures as display text (core.views.numbers): one rule for pages and the HTML report."""

from __future__ import annotations

import math

from core.views.numbers import interval, num


def test_a_missing_figure_is_a_placeholder_never_none_or_nan():
    assert num(0.38012, ".3f", "-") == "0.380"
    assert num(0.6557, ".1%") == "65.6%"
    assert num(None, ".3f", "-") == "-" and num(math.nan, ".3f", "-") == "-"
    assert num(None) == "–"  # the HTML report's dash
    assert num(7, ".0f") == "7"


def test_an_interval_needs_both_ends():
    assert interval(0.306, 0.454) == "[0.31, 0.45]"
    assert interval(0.2, 0.55, ".0%") == "[20%, 55%]"
    assert interval(None, 0.4) == "" and interval(0.1, None) == ""


def test_an_interval_is_never_rounded_away():
    """0 of 1,008 has a Wilson interval above 0: never shown as [0%, 0%]."""
    from core.stats.significance import wilson_ci

    ci = wilson_ci(0, 1008)
    shown = interval(ci.low, ci.high, ".0%")
    assert shown != "[0%, 0%]" and shown == "[0.0%, 0.4%]"
    assert interval(0.1, 0.2, ".0%") == "[10%, 20%]"  # enough digits already: unchanged
    assert interval(0.501, 0.504, ".2f") == "[0.501, 0.504]"  # two bounds never shown alike
    assert interval(0.5, 0.5) == "[0.50, 0.50]"
