"""How long a long book import holds SQLite's write lock, and how long a small write waits beside
it; the last printed line is one JSON object of the figures.

A ~25 MB book (the demo book's text repeated, Gutenberg header removed) is imported into a new
database with ``import_book``. Every ``BEGIN ... COMMIT`` of the importing connection is timed
(wall and this process's CPU): ``longest_hold_s`` / ``longest_hold_cpu_s`` and
``n_transactions``. Meanwhile a second thread, on its own connection, runs a one-row write
transaction through ``retry_when_busy`` (the label writes' wrapper) back to back:
``probe_writes``, ``probe_wait_max_s`` (the longest a write waited for the lock) and
``probe_failed`` (writes that gave up: must be 0).

Run: ``.venv/bin/python benchmarks/import_lock.py [--mb 25]`` (about a minute on 2 cores).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import core.store.connection as connection  # noqa: E402
from core.corpus.books import import_book  # noqa: E402
from core.corpus.gutenberg import clean_gutenberg  # noqa: E402
from core.errors import DatabaseBusyError  # noqa: E402
from core.store.database import open_db  # noqa: E402

BOOK = ROOT / "demo" / "books" / "pg135_les_miserables_hugo_hapgood.txt"


def _timed_connection(holds: list[tuple[float, float]]) -> None:
    """Time every transaction of the connections of this thread (BEGIN to COMMIT/ROLLBACK)."""
    real = connection.LockedConnection.execute
    started: dict[int, tuple[float, float]] = {}
    importer = threading.get_ident()

    def execute(self, sql, *args, **kwargs):
        word = sql.split(None, 1)[0].upper() if isinstance(sql, str) and sql.strip() else ""
        out = real(self, sql, *args, **kwargs)
        if threading.get_ident() != importer:
            return out
        if word == "BEGIN":
            started[id(self)] = (time.perf_counter(), time.thread_time())
        elif word in ("COMMIT", "ROLLBACK") and id(self) in started:
            wall, cpu = started.pop(id(self))
            holds.append((time.perf_counter() - wall, time.thread_time() - cpu))
        return out

    connection.LockedConnection.execute = execute  # type: ignore[method-assign]


def main() -> None:
    """Import the long book beside a probe writer; print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mb", type=float, default=25.0, help="book size in MB (default 25)")
    args = parser.parse_args()
    body = clean_gutenberg(BOOK.read_text(encoding="utf-8")).body
    copies = max(1, round(args.mb * 1e6 / len(body.encode("utf-8"))))
    with tempfile.TemporaryDirectory() as tmp:
        book = Path(tmp) / "long_book.txt"
        book.write_text("\n\n".join([body] * copies), encoding="utf-8")
        size_mb = book.stat().st_size / 1e6
        path = Path(tmp) / "bench.db"
        setup = open_db(path, create=True)
        setup.execute("create table bench_probe (id integer primary key, at text)")
        setup.conn.close()
        holds: list[tuple[float, float]] = []
        waits: list[float] = []
        failed = 0
        done = threading.Event()

        @connection.retry_when_busy
        def probe(db) -> None:
            with connection.transaction(db):
                db.execute("insert into bench_probe (at) values (?)", [connection.utcnow()])

        def probe_loop() -> None:
            nonlocal failed
            db = open_db(path)
            try:
                while not done.is_set():
                    started = time.perf_counter()
                    try:
                        probe(db)
                    except DatabaseBusyError:
                        failed += 1
                    waits.append(time.perf_counter() - started)
                    done.wait(0.05)  # one click every ~50 ms, not a hot loop
            finally:
                db.conn.close()

        prober = threading.Thread(target=probe_loop)
        prober.start()
        db = open_db(path)
        _timed_connection(holds)
        started = time.perf_counter()
        result = import_book(db, book, doc_id="book:long")
        total = time.perf_counter() - started
        done.set()
        prober.join()
        db.conn.close()
    figures = {
        "book_mb": round(size_mb, 1),
        "passages": result["n_passages"],
        "tokens": result["n_tokens"],
        "import_s": round(total, 1),
        "n_transactions": len(holds),
        "longest_hold_s": round(max(h[0] for h in holds), 3),
        "longest_hold_cpu_s": round(max(h[1] for h in holds), 3),
        "probe_writes": len(waits),
        "probe_wait_max_s": round(max(waits), 3),
        "probe_failed": failed,
    }
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
