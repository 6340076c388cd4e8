"""Exam banks: import the TREC CAR Y3 question banks as they are; derive banks from own questions.

CAR Y3 bank format (``car-y3-genq.jsonl``, one JSON object a line)::

    {"query_id", "query_text", "qid", "question", "choices", "correctKey", "correct", "facet_id"}

``choices`` is ``{key: text}`` for a multiple-choice question (``correctKey`` names the right
key, ``correct`` its text) and ``null`` for a free-text question. The rubric-evaluation layout
(one line per query/facet with ``items: [{question_id, question_text}]``) is read as well.

A derived bank holds this project's generated long-span questions of one book (``questions``
rows with ``origin = 'generated'``): one query per book, the reference answers kept for the
ground-truth rater. Exam questions go to ``exam_questions`` only, so they never reach a system.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # sqlite_utils imports pandas: loaded only when a database is opened
    import sqlite_utils

from core.corpus.tabular import check_path, jsonl_records
from core.errors import InputError
from core.store.connection import dumps, rows, transaction, utcnow
from core.store.questions import QuestionOrigin, QuestionStatus, document_questions

REQUIRED = ("query_id", "qid", "question")


def _records(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line_number, record)`` for every exam question in a CAR-style JSONL file."""

    for n, rec in jsonl_records(path):
        if "items" in rec:  # rubric-evaluation layout: one line per (query, facet)
            items = rec.get("items")
            if items is not None and not isinstance(items, list):
                raise InputError(
                    "'items' must be a list of question objects", path=str(path), line=n
                )
            for item in items or []:
                if not isinstance(item, dict):
                    raise InputError(
                        "every 'items' entry must be an object with "
                        "'question_id' and 'question_text'",
                        path=str(path),
                        line=n,
                    )
                yield (
                    n,
                    {
                        "query_id": rec.get("query_id"),
                        "query_text": rec.get("query_text"),
                        "qid": item.get("question_id"),
                        "question": item.get("question_text"),
                        "facet_id": rec.get("facet_id"),
                        "choices": None,
                        "correctKey": None,
                        "correct": None,
                    },
                )
        else:
            yield n, rec


def _check(rec: dict[str, Any], path: Path, n: int) -> dict[str, Any]:
    """Validate one record; return the row fields for ``exam_questions``."""
    for key in REQUIRED:
        if not isinstance(rec.get(key), str) or not rec[key].strip():
            raise InputError(f"missing or empty field {key!r}", path=str(path), line=n)
    for key in ("query_text", "facet_id", "correct"):
        if rec.get(key) is not None and not isinstance(rec[key], str):
            raise InputError(
                f"field {key!r} must be a string or null, got {type(rec[key]).__name__}",
                path=str(path),
                line=n,
            )
    choices = rec.get("choices")
    key = rec.get("correctKey")
    if choices is not None:
        if (
            not isinstance(choices, dict)
            or len(choices) < 2
            or not all(isinstance(v, str) for v in choices.values())
        ):
            raise InputError(
                "'choices' must be an object of at least two texts or null", path=str(path), line=n
            )
        if key not in choices:
            raise InputError(
                f"'correctKey' {key!r} is not one of the choices {sorted(choices)}",
                path=str(path),
                line=n,
            )
    return {
        "qid": rec["qid"],
        "query_id": rec["query_id"],
        "question": rec["question"].strip(),
        "choices": dumps(choices) if choices is not None else None,
        "correct_key": key if choices is not None else None,
        "correct": rec.get("correct"),
        "facet_id": rec.get("facet_id") or "",
        "line": n,
        "metadata": dumps({"query_text": rec.get("query_text") or ""}),
    }


def import_car_bank(
    db: sqlite_utils.Database,
    path: str | Path,
    *,
    bank_id: str | None = None,
    queries: set[str] | None = None,
    name: str = "",
) -> dict[str, Any]:
    """Import a CAR Y3 exam-question JSONL file as bank ``bank_id`` (default: the file stem).

    The whole file is validated first; a malformed line raises ``InputError`` (path, line) and
    nothing is written. A record whose question text is blank (with a qid) is skipped and
    counted, not imported: the published ``car-y3-genq.jsonl`` has 16 such lines (all one qid).
    Re-importing replaces the bank's questions (and, by cascade, its grades). ``queries`` keeps
    only those query ids. Returns ``{"bank_id", "n_queries", "n_questions", "n_blank_skipped"}``.
    """
    path = check_path(path)
    bank_id = bank_id or path.name.split(".")[0]
    parsed, seen, blank = [], set(), 0
    query_text: dict[str, str] = {}
    for n, rec in _records(path):
        if (
            isinstance(rec.get("question"), str)
            and not rec["question"].strip()
            and isinstance(rec.get("qid"), str)
            and rec["qid"].strip()
        ):
            blank += 1  # an empty generated question (the CAR Y3 file has 16): not a question
            continue
        row = _check(rec, path, n)
        if queries is not None and row["query_id"] not in queries:
            continue
        if row["qid"] in seen:
            raise InputError(f"duplicate qid {row['qid']!r}", path=str(path), line=n)
        seen.add(row["qid"])
        text = (rec.get("query_text") or "").split(" / ")[0]
        query_text.setdefault(row["query_id"], text)
        parsed.append(row)
    if not parsed:
        raise InputError("no exam questions found", path=str(path))
    with transaction(db):
        _replace_bank(
            db,
            bank_id,
            name=name or path.name,
            source="car-y3",
            path=str(path),
            document_id=None,
            queries=query_text,
            n_questions=len(parsed),
        )
        db["exam_questions"].insert_all(
            ({**row, "id": f"{bank_id}::{row['qid']}", "bank_id": bank_id} for row in parsed),
            batch_size=500,
        )
    return {
        "bank_id": bank_id,
        "n_queries": len(query_text),
        "n_questions": len(parsed),
        "n_blank_skipped": blank,
    }


def _replace_bank(
    db: sqlite_utils.Database,
    bank_id: str,
    *,
    name: str,
    source: str,
    path: str,
    document_id: str | None,
    queries: dict[str, str],
    n_questions: int,
    query_documents: dict[str, str] | None = None,
) -> None:
    """(Re)create the bank row and its queries; old questions and grades of the bank go."""
    old = db.execute("select 1 from exam_banks where id = ?", [bank_id]).fetchone()
    if old:
        db.execute(
            "delete from exam_grades where question_id in "
            "(select id from exam_questions where bank_id = ?)",
            [bank_id],
        )
        db.execute("delete from exam_questions where bank_id = ?", [bank_id])
    db["exam_banks"].upsert(
        {
            "id": bank_id,
            "name": name,
            "source": source,
            "path": path,
            "document_id": document_id,
            "n_queries": len(queries),
            "n_questions": n_questions,
            "metadata": "{}",
            "created_at": utcnow(),
        },
        pk="id",
    )
    for qid, text in queries.items():
        db["exam_queries"].upsert(
            {
                "bank_id": bank_id,
                "query_id": qid,
                "query_text": text,
                "document_id": (query_documents or {}).get(qid),
            },
            pk=("bank_id", "query_id"),
        )


def derive_bank(
    db: sqlite_utils.Database,
    document_id: str,
    *,
    bank_id: str | None = None,
    origin: str = "generated",
    statuses: tuple[str, ...] = ("accepted", "edited", "pending"),
) -> dict:
    """Derive an exam bank from the long-span questions of one book (one query = the book).

    Questions with status ``rejected``/``discarded`` are left out; reference answers are kept for
    the ground-truth rater. Raises ``InputError`` when the book has no such questions.
    """
    doc = rows(db, "select id, title from documents where id = ?", [document_id])
    if not doc:
        raise InputError(f"unknown document {document_id!r}")
    qs = document_questions(
        db,
        document_id,
        origin=QuestionOrigin(origin),
        statuses=[QuestionStatus(s) for s in statuses],
    )
    if not qs:
        raise InputError(f"document {document_id!r} has no {origin!r} questions to make an exam")
    bank_id = bank_id or f"{origin}:{document_id}"
    with transaction(db):
        _replace_bank(
            db,
            bank_id,
            name=f"{origin} questions of {doc[0]['title'] or document_id}",
            source=origin,
            path="",
            document_id=document_id,
            queries={document_id: doc[0]["title"] or document_id},
            n_questions=len(qs),
            query_documents={document_id: document_id},
        )
        db["exam_questions"].insert_all(
            {
                "id": f"{bank_id}::{q.id}",
                "bank_id": bank_id,
                "query_id": document_id,
                "qid": q.id,
                "question": q.question,
                "choices": None,
                "correct_key": None,
                "correct": None,
                "answers": dumps(q.answers),
                "facet_id": "",
                "source_question_id": q.id,
                "line": None,
                "metadata": "{}",
            }
            for q in qs
        )
    return {"bank_id": bank_id, "n_queries": 1, "n_questions": len(qs)}


def bank_questions(db: sqlite_utils.Database, bank_id: str) -> list[dict[str, Any]]:
    """Every question of a bank (choices decoded by :func:`core.store.connection.rows`; free-text
    questions have ``None``), ordered by query and qid."""
    out = rows(
        db, "select * from exam_questions where bank_id = ? order by query_id, qid", [bank_id]
    )
    for q in out:
        q["choices"] = q["choices"] or None
    return out


def bank_queries(db: sqlite_utils.Database, bank_id: str) -> list[dict[str, Any]]:
    """The queries of a bank with their question counts."""
    if not db.execute("select 1 from exam_banks where id = ?", [bank_id]).fetchone():
        raise InputError(f"unknown exam bank {bank_id!r}")
    return rows(
        db,
        "select q.query_id, q.query_text, q.document_id, count(x.id) as n_questions "
        "from exam_queries q left join exam_questions x on x.bank_id = q.bank_id "
        "and x.query_id = q.query_id where q.bank_id = ? group by q.query_id "
        "order by q.query_id",
        [bank_id],
    )
