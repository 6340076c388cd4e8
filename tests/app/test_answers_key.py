"""The answers' fingerprint (a table scan) is read once per connection, i.e. once per script run
(issue 37: Side by side asked three times a label), and again on the next connection."""

from __future__ import annotations

import json
import sqlite3
import threading
from dataclasses import replace

import pytest
from test_app_pages import fixture_db as fixture_db  # noqa: F401 (the fixture)

from app_support import caching, connection
from core.annotation.pairwise import identical_items, pairwise_items
from core.store import pool
from core.store.answers import question_answers, save_answer
from core.store.database import open_db, opened, postgres_url


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


def test_the_items_are_shared_until_the_answers_change(fixture_db, monkeypatch):  # noqa: F811
    """cached_answers_each gives every run the same object (no copy a run) while the answers'
    fingerprint stays, and the new value once an answer is added (issue 37)."""
    path, _ = fixture_db
    monkeypatch.setenv("WORKBENCH_DB", str(path))
    with opened(path) as db:
        items, same = caching.cached_answers_each(db, pairwise_items, identical_items)
    with opened(path) as db:
        again, same_again = caching.cached_answers_each(db, pairwise_items, identical_items)
        assert again is items and same_again is same
        question, system, _ = json.loads(items[0])
        old = next(a for a in question_answers(db, question) if a.system == system)
        save_answer(db, replace(old, id=0, text=old.text + " Retried, longer."))  # in place
    with opened(path) as db:
        after, same_after = caching.cached_answers_each(db, pairwise_items, identical_items)
        assert after is not items and after == pairwise_items(db) == items
        assert same_after is not same


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_an_action_hands_its_connection_to_the_run_that_follows(fixture_db):  # noqa: F811
    """A button's action's connection is the next block's in the same thread (one open a
    label: issue 37 on SQLite; on PostgreSQL one borrow, issue 33); a page block closes its own
    (PostgreSQL: gives it back to the pool); another thread opens its own."""
    path, _ = fixture_db
    with connection.acting(), connection.database() as in_action:
        pass
    seen: list[object] = []
    worker = threading.Thread(target=lambda: _open_once(seen))
    worker.start()
    worker.join()
    assert seen and seen[0] is not in_action  # another thread does not take it
    with connection.database() as in_run:
        assert in_run is in_action
        assert in_run.conn.execute("select count(*) from answers").fetchone()[0] > 0
    _closed(path, in_run)  # the run's block closed it
    with connection.database() as fresh:
        assert fresh is not in_action


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_a_handed_connection_no_block_took_is_closed_when_the_run_ends(fixture_db):  # noqa: F811
    """An action's connection waits for the run that follows; a run that opened no database
    closes it at its end (app_support.frame: release_handed), so no pooled PostgreSQL
    connection stays borrowed by a finished script thread."""
    path, _ = fixture_db
    with connection.acting(), connection.database() as in_action:
        pass
    connection.release_handed()
    _closed(path, in_action)
    with connection.database() as next_run:
        assert next_run is not in_action
    connection.release_handed()  # nothing handed: nothing to do


def _closed(path: object, db: object) -> None:
    """``db``'s connection is closed (SQLite) or back in its pool (PostgreSQL)."""
    url = postgres_url(path)
    if url is None:
        with pytest.raises(sqlite3.ProgrammingError, match="closed"):
            db.conn.execute("select 1")
    else:
        assert pool.engine_for(url, postgres=True).engine.pool.checkedout() == 0


def _open_once(seen: list[object]) -> None:
    with connection.database() as db:
        seen.append(db)
