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
from collections.abc import Callable, Hashable, Iterator
from contextvars import ContextVar
from typing import Any, TypeVar

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
