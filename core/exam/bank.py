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
from typing import TYPE_CHECKING, Any, TypedDict

if TYPE_CHECKING:
    from core.store.engine import Database

from core.corpus.names import normal_form
from core.corpus.tabular import check_path, jsonl_records
from core.errors import InputError
from core.store.connection import transaction
from core.store.documents import get_document
from core.store.exam_bank import (
    ExamBank,
    ExamQuestion,
    bank_exists,
    bank_questions,
    insert_exam_questions,
    replace_bank,
    stage_exam_questions,
)
from core.store.exam_bank import bank_queries as stored_bank_queries
from core.store.questions import QuestionOrigin, QuestionStatus, document_questions
from core.store.row_stage import staged_or_direct

REQUIRED = ("query_id", "qid", "question")
STAGE_ABOVE = 2000  # questions: from this many on, staged before the one short switch


class CheckedQuestion(TypedDict):
    """A validated exam-question record: the ``exam_questions`` fields besides id and bank."""

    qid: str
    query_id: str
    question: str
    choices: dict[str, str] | None
    correct_key: str | None
    correct: str | None
    facet_id: str
    line: int
    metadata: dict[str, Any]


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


def _check(rec: dict[str, Any], path: Path, n: int) -> CheckedQuestion:
    """Validate one record; return the row fields for ``exam_questions``."""
    for name in REQUIRED:
        if not isinstance(rec.get(name), str) or not rec[name].strip():
            raise InputError(f"missing or empty field {name!r}", path=str(path), line=n)
    for name in ("query_text", "facet_id", "correct"):
        if rec.get(name) is not None and not isinstance(rec[name], str):
            raise InputError(
                f"field {name!r} must be a string or null, got {type(rec[name]).__name__}",
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
        if not isinstance(key, str) or key not in choices:
            raise InputError(
                f"'correctKey' {str(key)[:80]!r} is not one of the choices {sorted(choices)}",
                path=str(path),
                line=n,
            )
    return CheckedQuestion(
        qid=normal_form(rec["qid"]),  # one id, composed or decomposed (José)
        query_id=normal_form(rec["query_id"]),
        question=rec["question"].strip(),
        choices=choices,
        correct_key=key if choices is not None else None,
        correct=rec.get("correct"),
        facet_id=rec.get("facet_id") or "",
        line=n,
        metadata={"query_text": rec.get("query_text") or ""},
    )


def import_car_bank(
    db: Database,
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
    parsed: list[CheckedQuestion] = []
    seen: set[str] = set()
    blank = 0
    query_text: dict[str, str] = {}
    if queries is not None:
        queries = {normal_form(q) for q in queries}
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
    questions = [ExamQuestion(id=f"{bank_id}::{r['qid']}", bank_id=bank_id, **r) for r in parsed]
    summary = {
        "bank_id": bank_id,
        "n_queries": len(query_text),
        "n_questions": len(parsed),
        "n_blank_skipped": blank,
    }
    if _holds(db, bank_id, query_text, questions):
        return summary  # the same bank again: nothing written, its grades kept
    with (
        staged_or_direct(
            db,
            lambda: stage_exam_questions(db, questions),
            lambda: insert_exam_questions(db, questions),
            len(questions),
            STAGE_ABOVE,
        ) as write_questions,
        transaction(db),
    ):
        replace_bank(
            db,
            ExamBank(
                id=bank_id,
                name=name or path.name,
                source="car-y3",
                path=str(path),
                document_id=None,
                n_queries=len(query_text),
                n_questions=len(parsed),
            ),
            query_text,
        )
        write_questions()
    return summary


def _holds(
    db: Database, bank_id: str, queries: dict[str, str], questions: list[ExamQuestion]
) -> bool:
    """Whether bank ``bank_id`` is stored with exactly these queries and questions (a re-import
    that would change nothing writes nothing, so the bank's grades stay)."""
    if not bank_exists(db, bank_id):
        return False
    stored = {q["query_id"]: q["query_text"] for q in stored_bank_queries(db, bank_id)}
    by_id = sorted(questions, key=lambda q: q.id)
    return stored == queries and sorted(bank_questions(db, bank_id), key=lambda q: q.id) == by_id


def derive_bank(
    db: Database,
    document_id: str,
    *,
    bank_id: str | None = None,
    origin: str = "generated",
    statuses: tuple[str, ...] = ("accepted", "edited", "pending"),
) -> dict[str, Any]:
    """Derive an exam bank from the long-span questions of one book (one query = the book).

    Questions with status ``rejected``/``discarded`` are left out; reference answers are kept for
    the ground-truth rater. Raises ``InputError`` when the book has no such questions.
    """
    doc = get_document(db, document_id)
    if doc is None:
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
    questions = [
        ExamQuestion(
            id=f"{bank_id}::{q.id}",
            bank_id=bank_id,
            query_id=document_id,
            qid=q.id,
            question=q.question,
            answers=list(q.answers),
            source_question_id=q.id,
        )
        for q in qs
    ]
    summary = {"bank_id": bank_id, "n_queries": 1, "n_questions": len(qs)}
    if _holds(db, bank_id, {document_id: doc.title or document_id}, questions):
        return summary  # the same bank again: nothing written, its grades kept
    with transaction(db):
        replace_bank(
            db,
            ExamBank(
                id=bank_id,
                name=f"{origin} questions of {doc.title or document_id}",
                source=origin,
                path="",
                document_id=document_id,
                n_queries=1,
                n_questions=len(qs),
            ),
            {document_id: doc.title or document_id},
            {document_id: document_id},
        )
        insert_exam_questions(db, questions)
    return summary


def bank_queries(db: Database, bank_id: str) -> list[dict[str, Any]]:
    """The queries of a bank with their question counts."""
    if not bank_exists(db, bank_id):
        raise InputError(f"unknown exam bank {bank_id!r}")
    return stored_bank_queries(db, bank_id)
