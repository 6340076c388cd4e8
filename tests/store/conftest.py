"""Rows the table-layer tests build on: one book, two questions, two systems and their answers."""

from __future__ import annotations

import sqlite3

import pytest

from core.store.connection import utcnow


@pytest.fixture
def refused(backend: str) -> tuple[type[Exception], ...]:
    """What the database raises when it refuses a write (a constraint, an append-only trigger):
    ``sqlite3.IntegrityError`` on SQLite; on PostgreSQL psycopg's ``IntegrityError`` (a
    constraint) or ``RaiseException`` (a trigger's ``raise exception``, SQLSTATE P0001)."""
    if backend == "sqlite":
        return (sqlite3.IntegrityError,)
    import psycopg

    return (psycopg.IntegrityError, psycopg.errors.RaiseException)


@pytest.fixture
def seeded(db):
    """``db`` with document ``d1``, questions ``q1``/``q2``, systems ``s1``/``s2`` and an answer
    of each system to ``q1`` (ids 1 and 2)."""
    now = utcnow()
    db["documents"].insert(
        {
            "id": "d1",
            "kind": "book",
            "source": "test",
            "title": "Book",
            "text": "x",
            "n_chars": 1,
            "n_tokens": 1,
            "sha256": "",
            "created_at": now,
            "updated_at": now,
        }
    )
    for qid, origin, status in (("q1", "generated", "pending"), ("q2", "imported", "accepted")):
        db["questions"].insert(
            {
                "id": qid,
                "document_id": "d1",
                "question": f"question {qid}?",
                "answers": '["ref"]',
                "origin": origin,
                "status": status,
                "provenance": '{"model": "m:1"}',
                "created_at": now,
                "updated_at": now,
            }
        )
    for name in ("s1", "s2"):
        db["systems"].insert({"name": name, "model": "m:1", "context": "none", "created_at": now})
        db["answers"].insert(
            {"question_id": "q1", "system": name, "text": f"answer {name}", "created_at": now}
        )
    return db
