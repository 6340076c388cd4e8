"""Nothing lost when two write at once: a long book import and four annotators at the same time
store every label; a label that meets a lock retries and is stored, or fails with one plain
message and stores nothing (never a traceback). Synchronised by events, never by sleeping."""

from __future__ import annotations

import sqlite3
import threading

import psycopg
import pytest

import core.store.connection as connection
import core.store.passage_stage as passage_stage
from core.annotation.identity import sign_in_open
from core.annotation.pairwise import blind_item, pairwise_items, submit_verdict
from core.corpus.books import import_book
from core.corpus.documents import split_passages
from core.errors import DatabaseBusyError
from core.store.database import open_db

ANNOTATORS = ("ann1", "ann2", "ann3", "ann4")
WAIT_S = 120  # the bound on every wait: a hang fails the test instead of blocking it


def _book(path, n_paragraphs: int = 600) -> None:
    """A generated book of ``n_paragraphs`` distinct paragraphs (one passage each, roughly)."""
    words = "river lantern orchard harbour meadow violin granite thimble".split()
    paragraphs = [
        f"Chapter {i}. " + " ".join(words[(i * k) % len(words)] for k in range(1, 120)) + "."
        for i in range(n_paragraphs)
    ]
    path.write_text("\n\n".join(paragraphs), encoding="utf-8")


def _human_rows(path) -> dict[str, int]:
    db = open_db(path)
    try:
        return {
            r[0]: r[1]
            for r in db.execute(
                "select rater, count(*) from judgments where rater_kind = 'human' group by rater"
            )
        }
    finally:
        db.conn.close()


def test_a_long_import_and_four_annotators_lose_no_label(fixture_db, tmp_path, monkeypatch):
    """The import writes its passages in many chunks; half-way it waits (between chunks, outside
    any transaction) until half of the labels are stored, so labels are stored while the import
    is under way (an import holding one long transaction would block them: the test then fails
    with lost labels). Every one of the 4 x 2 x items verdicts is stored."""
    path, _ = fixture_db
    book = tmp_path / "long_book.txt"
    _book(book)
    monkeypatch.setattr(passage_stage, "CHUNK_ROWS", 10)  # many short transactions
    monkeypatch.setattr(connection, "LABEL_RETRY_S", 20.0)
    monkeypatch.setenv("WORKBENCH_BUSY_TIMEOUT", "2")
    setup = open_db(path)
    keys = pairwise_items(setup)
    people = {name: sign_in_open(setup, name) for name in ANNOTATORS}
    setup.conn.close()
    total = len(ANNOTATORS) * 2 * len(keys)

    importing, half_stored = threading.Event(), threading.Event()
    stored, lost, problems = [], [], []
    guard = threading.Lock()
    chunks_after_half: list[int] = []

    def hook(n_written: int) -> None:
        importing.set()
        if n_written == 20 and not half_stored.wait(WAIT_S):
            problems.append("no label was stored while the import was under way")
        if half_stored.is_set():
            chunks_after_half.append(n_written)

    def run_import() -> None:
        db = open_db(path)
        try:
            import_book(db, book, doc_id="book:long", progress=hook)
        except Exception as exc:  # reported below
            problems.append(f"import failed: {exc!r}")
        finally:
            importing.set()
            db.conn.close()

    def annotate(name: str) -> None:
        if not importing.wait(WAIT_S):
            problems.append("the import never started")
            return
        db = open_db(path)  # one connection per annotator, like one page run each
        try:
            for round_ in range(2):
                for key in keys:
                    item = blind_item(db, key, name)
                    try:
                        submit_verdict(db, item, people[name], "A" if round_ == 0 else "B")
                    except DatabaseBusyError:
                        lost.append((name, key))
                        continue
                    with guard:
                        stored.append((name, key))
                        if len(stored) >= total // 2:
                            half_stored.set()
        finally:
            db.conn.close()

    threads = [threading.Thread(target=run_import)]
    threads += [threading.Thread(target=annotate, args=(n,)) for n in ANNOTATORS]
    for t in threads:
        t.start()
    for t in threads:
        t.join(WAIT_S)
    assert not any(t.is_alive() for t in threads), "a writer hung"
    assert not problems, problems
    assert lost == []
    assert len(stored) == total
    assert _human_rows(path) == {f"human:{n}": 2 * len(keys) for n in ANNOTATORS}
    db = open_db(path)
    try:
        n_passages = db.execute(
            "select count(*) from passages where document_id = 'book:long'"
        ).fetchone()[0]
        assert n_passages == len(split_passages(book.read_text(encoding="utf-8"))) > 20 * 10
        assert db.execute("select count(*) from passage_stage").fetchone()[0] == 0
    finally:
        db.conn.close()


class LockHolder:
    """A second connection that holds the lock a label write needs, the way a long import used
    to: SQLite's write lock (``BEGIN IMMEDIATE``), or on PostgreSQL an exclusive lock on
    ``judgments`` (reads go on, inserts wait)."""

    def __init__(self, location) -> None:
        self.sqlite = not str(location).startswith("postgresql:")
        if self.sqlite:
            self.conn = sqlite3.connect(location, isolation_level=None, check_same_thread=False)
        else:
            self.conn = psycopg.connect(location, autocommit=True)

    def hold(self) -> None:
        if self.sqlite:
            self.conn.execute("begin immediate")
        else:
            self.conn.execute("begin")
            self.conn.execute("lock table judgments in exclusive mode")

    def release(self) -> None:
        self.conn.rollback() if self.sqlite else self.conn.execute("rollback")

    def close(self) -> None:
        self.conn.close()


@pytest.fixture
def locked(fixture_db, monkeypatch):
    """A fixture database, a 0.1 s busy timeout, and a :class:`LockHolder`."""
    db_path, _ = fixture_db
    monkeypatch.setenv("WORKBENCH_BUSY_TIMEOUT", "0.1")
    holder = LockHolder(db_path)
    db = open_db(db_path)
    yield db_path, db, holder
    db.conn.close()
    holder.close()


def test_a_label_that_meets_a_lock_retries_and_is_stored(locked, monkeypatch):
    path, db, holder = locked
    who = sign_in_open(db, "ann1")
    item = blind_item(db, pairwise_items(db)[0], "ann1")
    met_lock = threading.Event()
    real_is_busy = connection.is_busy

    def is_busy(exc):
        found = real_is_busy(exc)
        met_lock.set()
        return found

    monkeypatch.setattr(connection, "is_busy", is_busy)
    holder.hold()

    def release_after_first_refusal() -> None:
        met_lock.wait(WAIT_S)
        holder.release()

    releaser = threading.Thread(target=release_after_first_refusal)
    releaser.start()
    new_id = submit_verdict(db, item, who, "A")
    releaser.join(WAIT_S)
    assert met_lock.is_set()  # the first try met the lock
    assert _human_rows(path) == {"human:ann1": 1} and new_id


def test_a_label_still_locked_after_its_retries_stores_nothing_and_says_so(locked, monkeypatch):
    path, db, holder = locked
    who = sign_in_open(db, "ann1")
    item = blind_item(db, pairwise_items(db)[0], "ann1")
    monkeypatch.setattr(connection, "LABEL_RETRY_S", 0.5)
    holder.hold()
    try:
        with pytest.raises(DatabaseBusyError, match="not saved yet - press again"):
            submit_verdict(db, item, who, "A")
    finally:
        holder.release()
    assert _human_rows(path) == {}
    assert submit_verdict(db, item, who, "A")  # pressed again once the lock is gone: stored
    assert _human_rows(path) == {"human:ann1": 1}
