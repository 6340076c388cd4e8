"""The answers' fingerprint (a table scan) is read once per connection, i.e. once per script run
(issue 37: Side by side asked three times a label), and again on the next connection."""

from __future__ import annotations

from test_app_pages import fixture_db as fixture_db  # noqa: F401 (the fixture)

from app_support import caching
from core.annotation.pairwise import identical_items, pairwise_items
from core.store.database import open_db


def test_the_answers_fingerprint_is_read_once_a_connection(fixture_db, monkeypatch):  # noqa: F811
    path, _ = fixture_db
    monkeypatch.setenv("WORKBENCH_DB", str(path))
    reads: list[int] = []
    real = caching.answers_fingerprint
    monkeypatch.setattr(caching, "answers_fingerprint", lambda db: reads.append(1) or real(db))
    db = open_db(path)
    try:
        items, same = caching.cached_answers_each(db, pairwise_items, identical_items)
        assert caching.cached_answers(db, pairwise_items) == items == pairwise_items(db)
        assert same == identical_items(db)
        assert len(reads) == 1
    finally:
        db.conn.close()
    again = open_db(path)
    try:
        caching.cached_answers(again, pairwise_items)
        assert len(reads) == 2  # a new connection (the next run) reads it again
    finally:
        again.conn.close()
