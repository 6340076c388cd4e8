"""Large imports, transaction by transaction (counted, not timed): a reader on another connection,
looking after every transaction of the import, sees the tables as they were or with every new row,
never part of them; every transaction but that one switch writes at most a chunk of rows, and the
switch runs as many statements for an import three times the size (it copies the stage in one
``insert ... select`` per table, whatever the number of rows)."""

from __future__ import annotations

import csv
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import core.corpus.evaluations as evaluations
import core.corpus.question_sets as question_sets
import core.exam.bank as exam_bank
import core.llm.cache as llm_cache
import core.store.row_stage as row_stage
from core.corpus.documents import upsert_document
from core.corpus.evaluation_layouts import read_judgments
from core.corpus.evaluations import read_answers, store_evaluation
from core.generation import entity_store
from core.llm.types import LLMRequest, LLMResponse
from core.store.database import open_db
from core.store.engine import Database

CHUNK = 7
SYSTEMS = ("s1", "s2", "s3")
NAMES = ["Anselm", "Brigid", "Cormac", "Dervla", "Eamon", "Fionn", "Grainne", "Hugh"]
Tx = tuple[int, int, tuple[int, ...]]  # rows written, statements, what the reader saw after it


def _watch(monkeypatch, db: Database, reader: Database, tables: tuple[str, ...]) -> list[Tx]:
    """Record every transaction of ``db``'s connection that writes rows (a write outside any
    transaction is one by itself): its rows, its statements and the reader's row counts of
    ``tables`` right after it ended."""
    cls = type(db.conn)
    seen: list[Tx] = []
    open_tx: list[int] = []  # [rows, statements] of the transaction under way

    def view() -> tuple[int, ...]:
        return tuple(reader.execute(f"select count(*) from {t}").fetchone()[0] for t in tables)

    def wrap(real: Callable[..., Any]) -> Callable[..., Any]:
        def run(self: Any, sql: str, *args: Any, **kwargs: Any) -> Any:
            if self is not db.conn:
                return real(self, sql, *args, **kwargs)
            cur = real(self, sql, *args, **kwargs)
            write = sql.lstrip()[:8].upper().startswith(("INSERT", "UPDATE", "DELETE", "REPLACE"))
            if not open_tx:
                open_tx[:] = [0, 0]
            open_tx[0] += max(cur.rowcount, 0) if write else 0
            open_tx[1] += 1
            if not self.in_transaction:  # this statement ended a transaction (or was one)
                if open_tx[0]:
                    seen.append((open_tx[0], open_tx[1], view()))
                open_tx.clear()
            return cur

        return run

    monkeypatch.setattr(cls, "execute", wrap(cls.execute))
    monkeypatch.setattr(cls, "executemany", wrap(cls.executemany))
    return seen


def _answers(tmp: Path, n: int) -> Path:
    path = tmp / f"answers{n}.csv"
    with path.open("w", newline="", encoding="utf-8") as out:
        w = csv.writer(out)
        w.writerow(["question_id", "system", "answer", "question"])
        for q in range(n):
            for s in SYSTEMS:
                w.writerow([f"q{q}", s, f"answer {q} by {s}", f"question {q}?"])
    return path


def _verdicts(tmp: Path, n: int) -> Path:
    path = tmp / f"verdicts{n}.csv"
    with path.open("w", newline="", encoding="utf-8") as out:
        w = csv.writer(out)
        w.writerow(["question_id", "system_a", "system_b", "verdict", "rater"])
        for q in range(n):
            for a, b in (("s1", "s2"), ("s1", "s3"), ("s2", "s3")):
                w.writerow([f"q{q}", a, b, "A" if q % 2 else "B", "auto:judge"])
    return path


def _import_answers(db: Database, tmp: Path, n: int) -> None:
    store_evaluation(db, read_answers(_answers(tmp, n)))


def _import_verdicts(db: Database, tmp: Path, n: int) -> None:
    store_evaluation(db, read_judgments(_verdicts(tmp, n)))


def _setup_entities(db: Database, tmp: Path, n: int) -> None:
    text = "\n\n".join(
        f"{NAMES[i % 8]} met {NAMES[(i + 3) % 8]} by the river. {NAMES[(i + 5) % 8]} waited."
        for i in range(n)
    )
    upsert_document(db, "tale", text, kind="story", source="file")


def _import_entities(db: Database, tmp: Path, n: int) -> None:
    entity_store.build_entities(db, "tale", method="regex")


def _import_questions(db: Database, tmp: Path, n: int) -> None:
    path = tmp / f"questions{n}.csv"
    with path.open("w", newline="", encoding="utf-8") as out:
        w = csv.writer(out)
        w.writerow(["id", "document_id", "question", "answer"])
        for q in range(n):
            w.writerow([f"iq{q}", "tale", f"Who waited by the river, {q}?", NAMES[q % 8]])
    question_sets.import_questions(db, path)


def _import_exam_bank(db: Database, tmp: Path, n: int) -> None:
    path = tmp / f"bank{n}.jsonl"
    lines = [
        {"query_id": f"tqa:{q % 2}", "query_text": "rivers", "qid": f"x{q}", "facet_id": "f"}
        | {"question": f"Which river is {q}?", "choices": None, "correctKey": None}
        for q in range(n)
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in lines), encoding="utf-8")
    exam_bank.import_car_bank(db, path, bank_id="bank")


#: name -> (setup outside the watch, the import, the tables a reader looks at, base size)
CASES: dict[str, tuple[Any, Any, tuple[str, ...], int]] = {
    "import-answers": (None, _import_answers, ("questions", "systems", "answers"), 12),
    "import-judgments": (_import_answers, _import_verdicts, ("judgments",), 12),
    "entity-mentions": (_setup_entities, _import_entities, ("entities", "mentions"), 20),
    "import-questions": (_setup_entities, _import_questions, ("questions",), 12),
    "exam-bank": (None, _import_exam_bank, ("exam_banks", "exam_queries", "exam_questions"), 12),
}


def _run(monkeypatch, location, tmp: Path, case: str, n: int) -> list[Tx]:
    setup, run, tables, _ = CASES[case]
    db, reader = open_db(location), open_db(location)
    try:
        if setup is not None:
            setup(db, tmp, n)
        with monkeypatch.context() as m:
            seen = _watch(m, db, reader, tables)
            before = tuple(
                reader.execute(f"select count(*) from {t}").fetchone()[0] for t in tables
            )
            run(db, tmp, n)
        assert seen and seen[-1][2] != before, "the import wrote nothing"
        after = seen[-1][2]
        views = [v for _, _, v in seen]
        switch = views.index(after)
        assert all(v == before for v in views[:switch]), (before, views)  # none of the new rows
        assert all(v == after for v in views[switch:]), (after, views)  # then all of them
        assert row_stage.live_stages(db) == []
        others = seen[:switch] + seen[switch + 1 :]
        assert all(rows <= CHUNK for rows, _, _ in others), [t[:2] for t in seen]
        assert len(seen[:switch]) >= 2  # staged in several chunks before the switch
        return [seen[switch]]
    finally:
        db.close()
        reader.close()


@pytest.mark.parametrize("case", sorted(CASES))
def test_an_import_is_all_or_nothing_and_chunked(case, new_db_location, tmp_path, monkeypatch):
    monkeypatch.setattr(row_stage, "CHUNK_ROWS", CHUNK)
    monkeypatch.setattr(evaluations, "STAGE_ABOVE", 1)
    monkeypatch.setattr(question_sets, "STAGE_ABOVE", 1)
    monkeypatch.setattr(exam_bank, "STAGE_ABOVE", 1)
    n = CASES[case][3]
    small = _run(monkeypatch, _migrated(new_db_location("small")), tmp_path, case, n)
    large = _run(monkeypatch, _migrated(new_db_location("large")), tmp_path, case, 3 * n)
    assert large[0][0] > small[0][0]  # the switch copied more rows ...
    assert large[0][1] == small[0][1]  # ... with the same statements


def _migrated(location: Path | str) -> Path | str:
    open_db(location, create=True).close()
    return location


def test_cache_hits_are_recorded_in_short_transactions(db_path, monkeypatch):
    monkeypatch.setattr(llm_cache, "HIT_CHUNK", CHUNK)
    db, reader = open_db(db_path), open_db(db_path)
    hits = [
        (
            LLMRequest(model="offline:t", prompt=f"p{i}", task="answer"),
            LLMResponse(text=f"r{i}", cache_key=f"k{i}", cache_hit=True),
        )
        for i in range(30)
    ]
    try:
        with monkeypatch.context() as m:
            seen = _watch(m, db, reader, ("llm_calls",))
            llm_cache.record_hits(db, hits, None)
        assert [rows for rows, _, _ in seen] == [7, 7, 7, 7, 2]
        assert seen[-1][2] == (30,)
    finally:
        db.close()
        reader.close()
