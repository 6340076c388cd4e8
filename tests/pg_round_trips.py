"""Count what a PostgreSQL connection sends, at the driver (issue 33): every statement's text
and the round trips (a statement sent on its own is one; a pipeline, psycopg's pipeline mode
where its statements are all sent and then all answered, is one however many it holds). Shared
by ``tests/app/test_label_statements.py`` and ``tests/store/test_deferred_statements.py``."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import pytest


def count_pg(monkeypatch: pytest.MonkeyPatch) -> tuple[list[str], list[list[str]]]:
    """From now on (until ``monkeypatch`` undoes it): every statement psycopg sends (its text,
    whitespace folded) and each round trip's statements."""
    import psycopg

    sent: list[str] = []
    trips: list[list[str]] = []
    real, real_many = psycopg.Cursor.execute, psycopg.Cursor.executemany
    real_pipeline = psycopg.Connection.pipeline
    depth = [0]

    def note(query: Any) -> None:
        sent.append(" ".join(str(query).split()))
        if not depth[0]:
            trips.append([])
        trips[-1].append(sent[-1])

    def execute(self: Any, query: Any, *args: Any, **kw: Any) -> Any:
        note(query)
        return real(self, query, *args, **kw)

    def executemany(self: Any, query: Any, *args: Any, **kw: Any) -> Any:
        note(query)
        return real_many(self, query, *args, **kw)

    @contextlib.contextmanager
    def pipeline(self: Any) -> Iterator[Any]:
        if not depth[0]:
            trips.append([])
        depth[0] += 1
        try:
            with real_pipeline(self) as inner:
                yield inner
        finally:
            depth[0] -= 1

    monkeypatch.setattr(psycopg.Cursor, "execute", execute)
    monkeypatch.setattr(psycopg.Cursor, "executemany", executemany)
    monkeypatch.setattr(psycopg.Connection, "pipeline", pipeline)
    return sent, trips
