"""Reads shared within one view computation: inside :func:`shared_reads`, :func:`shared` computes
each value once and hands the same object to every later caller with the same key.

A report of six auto-raters asks for the same verdict rows, the same people's labels and the
same figures among the people dozens of times (each rater's alt-test, its sensitivity curve, its
agreement on the task's scale); a view opens the scope around its whole computation and the
functions it calls ask :func:`shared` instead of reading and sorting again. Outside a scope
:func:`shared` just computes (nothing is kept, so nothing can go stale). Inside one, the store must
not change: views never write, and the scope ends with the view. The values handed out are the
same objects: callers only read them.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Hashable, Iterator, Mapping
from contextvars import ContextVar
from typing import Any, TypeVar

from core.stats.alt_test import IndicatorTable, Labels, indicator_table
from core.stats.alt_test_metrics import Alignment

T = TypeVar("T")

_MEMO: ContextVar[dict[Hashable, Any] | None] = ContextVar("shared_reads", default=None)


@contextlib.contextmanager
def shared_reads() -> Iterator[None]:
    """A scope in which :func:`shared` keeps what it computes (nested scopes share the outer)."""
    if _MEMO.get() is not None:
        yield
        return
    token = _MEMO.set({})
    try:
        yield
    finally:
        _MEMO.reset(token)


def shared(key: Hashable, compute: Callable[[], T]) -> T:
    """``compute()``, once per ``key`` inside a :func:`shared_reads` scope (``key`` names
    everything the value depends on, the database connection's ``id`` included)."""
    memo = _MEMO.get()
    if memo is None:
        return compute()
    if key not in memo:
        memo[key] = compute()
    found: T = memo[key]
    return found


def shared_table(
    humans: Mapping[str, Mapping[Hashable, Labels]],
    rater: Mapping[Hashable, Labels],
    alignment: Alignment,
) -> IndicatorTable:
    """The alt-test's :func:`core.stats.alt_test.indicator_table` of these very label objects
    (the same dicts, as :func:`core.views.rater_validation.validation_labels` hands out in a
    scope), built once for the rater's test, its sensitivity curve and its simulation. The entry
    keeps the objects, so their ids cannot be reused within the scope."""
    kept = shared(
        ("indicator_table", id(humans), id(rater), id(alignment)),
        lambda: (humans, rater, alignment, indicator_table(humans, rater, alignment)),
    )
    if kept[0] is humans and kept[1] is rater and kept[2] is alignment:
        return kept[3]
    return indicator_table(humans, rater, alignment)
