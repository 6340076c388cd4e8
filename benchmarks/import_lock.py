"""How long an import holds SQLite's write lock, and how long a small write waits beside it; the
last printed line is one JSON object of the figures (one entry per case).

Each case imports into a new database. Every ``BEGIN ... COMMIT`` of the importing thread is
timed (wall and this thread's CPU) and its rows counted (``total_changes``): ``longest_hold_s``
/ ``longest_hold_cpu_s`` / ``most_rows`` over the transactions that lock the database
(``BEGIN IMMEDIATE``), ``n_transactions``; ``longest_stage_s`` over the ones that write only
this connection's temp stage (plain ``BEGIN``: no lock on the file). Meanwhile a second
thread, on its own connection, runs a one-row write transaction through ``retry_when_busy``
(the label writes' wrapper) every 50 ms: ``probe_writes``, ``probe_wait_max_s`` (the longest
a write waited for the lock) and ``probe_failed`` (writes that gave up: must be 0).

Cases (``--case``, default all but ``book``):

- ``book``: a ~25 MB book (``--mb``) with ``import_book``;
- ``answers``: ``import-answers`` of 50,000 answers (5 systems) on 10,000 new questions
  (``store_evaluation``, staged); ``answers-json``: the same through the former JSON stage
  (``benchmarks/import_lock_json.py``, the reference in the same run); ``answers-direct``: the
  same in one transaction (no stage);
- ``questions``: ``import-questions`` of 20,000 questions on one document (staged);
  ``questions-direct``: the same in one transaction;
- ``exam``: the TREC CAR Y3 EXAM bank (8,893 questions; ``--exam-file``; staged);
  ``exam-direct``: the same in one transaction;
- ``hits``: the ledger rows of 50,000 cache hits (a rerun served from the cache);
  ``hits-one``: the same in one transaction, as before.

Run: ``.venv/bin/python benchmarks/import_lock.py [--case answers answers-json] [--runs 3]``.
"""

from __future__ import annotations

import argparse
import csv
import json
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import core.store.connection as connection  # noqa: E402
from core.corpus.books import import_book  # noqa: E402
from core.corpus.gutenberg import clean_gutenberg  # noqa: E402
from core.errors import DatabaseBusyError  # noqa: E402
from core.store.database import open_db  # noqa: E402

BOOK = ROOT / "demo" / "books" / "pg135_les_miserables_hugo_hapgood.txt"
EXAM = Path("/work/shared/data/exam_trec_car_y3/flan-t5-exam-appendix/car-y3-genq.jsonl")
Hold = tuple[float, float, int, bool]  # wall, CPU, rows written, locks the database file


def _timed_connection(holds: list[Hold]) -> Callable[[], None]:
    """Time every transaction of this thread's connections (BEGIN to COMMIT/ROLLBACK); returns
    the function that puts the real ``execute`` back."""
    real = connection.LockedConnection.execute
    started: dict[int, tuple[float, float, int, bool]] = {}
    importer = threading.get_ident()

    def execute(self, sql, *args, **kwargs):
        text = sql.strip().upper() if isinstance(sql, str) else ""
        word = text.split(None, 1)[0] if text else ""
        if threading.get_ident() == importer and word in ("COMMIT", "ROLLBACK"):
            out = real(self, sql, *args, **kwargs)
            if id(self) in started:
                wall, cpu, changes, locks = started.pop(id(self))
                rows = self.total_changes - changes
                holds.append((time.perf_counter() - wall, time.thread_time() - cpu, rows, locks))
            return out
        out = real(self, sql, *args, **kwargs)
        if threading.get_ident() == importer and word == "BEGIN":
            locks = "IMMEDIATE" in text or "EXCLUSIVE" in text
            started[id(self)] = (time.perf_counter(), time.thread_time(), self.total_changes, locks)
        return out

    connection.LockedConnection.execute = execute  # type: ignore[method-assign]

    def restore() -> None:
        connection.LockedConnection.execute = real  # type: ignore[method-assign]

    return restore


def measure(path: Path, run_import: Callable[[Any], Any]) -> dict[str, Any]:
    """Run ``run_import(db)`` on the database at ``path`` beside the probe writer."""
    holds: list[Hold] = []
    waits: list[float] = []
    failed = 0
    done = threading.Event()
    setup = open_db(path)
    setup.execute("create table if not exists bench_probe (id integer primary key, at text)")
    setup.conn.close()

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
    restore = _timed_connection(holds)
    started = time.perf_counter()
    try:
        run_import(db)
    finally:
        total = time.perf_counter() - started
        restore()
        done.set()
        prober.join()
        db.conn.close()
    locked = [h for h in holds if h[3]] or [(0.0, 0.0, 0, True)]
    staged = [h for h in holds if not h[3]] or [(0.0, 0.0, 0, False)]
    return {
        "import_s": round(total, 2),
        "n_transactions": len(holds),
        "longest_hold_s": round(max(h[0] for h in locked), 3),
        "longest_hold_cpu_s": round(max(h[1] for h in locked), 3),
        "most_rows": max(h[2] for h in locked),
        "longest_stage_s": round(max(h[0] for h in staged), 3),
        "probe_writes": len(waits),
        "probe_wait_max_s": round(max(waits, default=0.0), 3),
        "probe_failed": failed,
    }


def book_case(tmp: Path, mb: float) -> tuple[Path, Callable[[Any], Any]]:
    body = clean_gutenberg(BOOK.read_text(encoding="utf-8")).body
    copies = max(1, round(mb * 1e6 / len(body.encode("utf-8"))))
    book = tmp / "long_book.txt"
    book.write_text("\n\n".join([body] * copies), encoding="utf-8")
    return _new_db(tmp), lambda db: import_book(db, book, doc_id="book:long")


def answers_case(tmp: Path, how: str) -> tuple[Path, Callable[[Any], Any]]:
    import core.corpus.evaluations as evaluations
    from core.corpus.evaluations import read_answers, store_evaluation

    path = tmp / "answers.csv"
    with path.open("w", encoding="utf-8", newline="") as out:
        w = csv.writer(out)
        w.writerow(["question_id", "system", "answer", "question"])
        for q in range(10_000):
            for s in range(5):
                w.writerow(
                    [
                        f"bq{q:05d}",
                        f"sys{s}",
                        f"answer {q} of system {s}: " + "words " * 40,
                        f"What happened in chapter {q}?",
                    ]
                )
    ev = read_answers(path)

    def run(db: Any) -> None:
        if how == "direct":
            evaluations.STAGE_ABOVE = 10**9
        if how == "json":
            import import_lock_json

            with import_lock_json.json_stage():
                store_evaluation(db, ev)
        else:
            store_evaluation(db, ev)
        evaluations.STAGE_ABOVE = 2000

    return _new_db(tmp), run


def questions_case(tmp: Path, how: str) -> tuple[Path, Callable[[Any], Any]]:
    import core.corpus.question_sets as question_sets

    path = _new_db(tmp)
    text = tmp / "short_book.txt"
    text.write_text(clean_gutenberg(BOOK.read_text(encoding="utf-8")).body[:200_000])
    db = open_db(path)
    import_book(db, text, doc_id="book:q")
    db.conn.close()
    csv_path = tmp / "questions.csv"
    with csv_path.open("w", encoding="utf-8", newline="") as out:
        w = csv.writer(out)
        w.writerow(["id", "document_id", "question", "answer"])
        for q in range(20_000):
            w.writerow([f"iq{q:05d}", "book:q", f"Who is person {q} in the story?", f"person {q}"])

    def run(db: Any) -> None:
        question_sets.STAGE_ABOVE = 10**9 if how == "direct" else 2000
        question_sets.import_questions(db, csv_path)
        question_sets.STAGE_ABOVE = 2000

    return path, run


def exam_case(tmp: Path, exam: Path, how: str) -> tuple[Path, Callable[[Any], Any]]:
    import core.exam.bank as bank

    def run(db: Any) -> None:
        bank.STAGE_ABOVE = 10**9 if how == "direct" else 2000
        bank.import_car_bank(db, exam, bank_id="car-y3")
        bank.STAGE_ABOVE = 2000

    return _new_db(tmp), run


def hits_case(tmp: Path, how: str) -> tuple[Path, Callable[[Any], Any]]:
    from core.llm.cache import record_call, record_hits
    from core.llm.types import LLMRequest, LLMResponse

    hits = [
        (
            LLMRequest(model="offline:bench", prompt=f"q{i}", task="answer", purpose="bench"),
            LLMResponse(text=f"reply {i}", cache_key=f"k{i}", cache_hit=True),
        )
        for i in range(50_000)
    ]

    def one_transaction(db: Any) -> None:  # how the hits were recorded before
        with connection.transaction(db):
            for request, response in hits:
                record_call(db, request, response, run_id=None)

    return _new_db(tmp), (
        lambda db: record_hits(db, hits, None)
    ) if how != "one" else one_transaction


def _new_db(tmp: Path) -> Path:
    path = tmp / f"bench_{time.monotonic_ns()}.db"
    open_db(path, create=True).conn.close()
    return path


CASES = (
    *("answers", "answers-json", "answers-direct", "questions", "questions-direct"),
    *("exam", "exam-direct", "hits", "hits-one"),
)


def main() -> None:
    """Run the cases beside a probe writer; print each run and the medians."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--case", nargs="+", choices=("book", *CASES), default=list(CASES))
    parser.add_argument("--runs", type=int, default=1, help="runs of each case (median shown)")
    parser.add_argument("--mb", type=float, default=25.0, help="book size in MB (default 25)")
    parser.add_argument("--exam-file", type=Path, default=EXAM)
    args = parser.parse_args()
    results: dict[str, list[dict[str, Any]]] = {c: [] for c in args.case}
    for run in range(args.runs):
        for case in args.case:  # cases alternate, so each sees the same load
            with tempfile.TemporaryDirectory() as name:
                tmp = Path(name)
                if case == "book":
                    path, fn = book_case(tmp, args.mb)
                elif case.startswith("answers"):
                    path, fn = answers_case(tmp, case.partition("-")[2] or "staged")
                elif case.startswith("questions"):
                    path, fn = questions_case(tmp, case.partition("-")[2])
                elif case.startswith("exam"):
                    path, fn = exam_case(tmp, args.exam_file, case.partition("-")[2])
                else:
                    path, fn = hits_case(tmp, case.partition("-")[2])
                load = _load()
                figures = {"run": run + 1, "load": load, **measure(path, fn)}
                results[case].append(figures)
                print(case, json.dumps(figures), flush=True)
    medians = {
        case: {
            key: statistics.median(r[key] for r in runs)
            for key in (
                "load",
                "longest_hold_s",
                "longest_hold_cpu_s",
                "most_rows",
                "longest_stage_s",
                "probe_wait_max_s",
                "probe_failed",
            )
        }
        | {"runs": len(runs)}
        for case, runs in results.items()
    }
    print(json.dumps(medians))


def _load() -> float:
    try:
        return float(Path("/proc/loadavg").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return -1.0


if __name__ == "__main__":
    main()
