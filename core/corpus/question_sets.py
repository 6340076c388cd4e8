"""Generic question sets in CSV or JSONL.

Columns: ``question`` and ``document_id`` (required; the document must already be imported; in
JSON lines ``"document_id": null`` says the question has no document, an open question answered
without context, as ``export benchmark`` writes imported open questions such as Vicuna-80: an
empty CSV cell stays an error),
answers as ``answers`` (a JSON list, or text with ``|`` between answers), ``answer``, or
``answer1`` ... ``answerN``; optional ``id``, ``qtype``, ``split``, ``language``,
``context_document_id``, ``evidence`` (a list of objects with ``text`` and optional
``passage_index``, ``start``, ``end``, as ``export benchmark`` writes it; kept in the
question's ``metadata``). Without ``id`` the id is a hash of document and question.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.corpus.json_input import check_bounds, check_surrogates
from core.corpus.names import check_name
from core.corpus.tabular import optional_text, read_records, require_text
from core.errors import InputError, StoreError
from core.store.answers import question_answer_count
from core.store.connection import transaction, utcnow
from core.store.disputes import question_disputes
from core.store.documents import document_ids
from core.store.judgments import question_judgment_count
from core.store.questions import (
    Question,
    QuestionOrigin,
    get_question,
    insert_questions,
    questions_by_id,
    upsert_question,
)
from core.store.resolutions import question_resolution_count
from core.store.reviews import review_count
from core.store.row_locks import hold_name
from core.store.row_stage import stage_rows, staged_or_direct

if TYPE_CHECKING:
    from core.store.engine import Database

STAGE_ABOVE = 2000  # new questions: from this many on, staged before the one short switch
#: How often an import plans again when others stored the same new ids meanwhile.
RACE_ATTEMPTS = 5
CONTENT = ("document_id", "context_document_id", "question", "answers", "qtype", "language")
"""Columns that make a question what it is: changing them under stored answers needs --replace."""


def _answer_list(values: list[Any], path: Path, line: int) -> list[str]:
    out = []
    for value in values:
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            raise InputError(
                f"answers must be a list of texts, found an item of type {type(value).__name__}",
                path=str(path),
                line=line,
                column="answers",
            )
        if str(value).strip():
            out.append(str(value).strip())
    return out


def _evidence(record: dict[str, Any], path: Path, line: int) -> list[dict[str, Any]]:
    """The ``evidence`` column as the generator stores it (``passage_idx``, ``start``, ``end``,
    ``text``); a JSON list in a CSV cell is read too."""
    value = record.get("evidence")
    if isinstance(value, str) and value.strip():
        check_bounds(value, path, line)
        check_surrogates(value, path, line)
        try:
            value = json.loads(value)
        except json.JSONDecodeError:
            value = None  # refused below
    elif value is None or value == "":
        return []
    wrong = InputError(
        "evidence must be a list of objects with a text and optional passage_index, start "
        "and end (whole numbers)",
        path=str(path),
        line=line,
        column="evidence",
    )
    if not isinstance(value, list):
        raise wrong
    out = []
    for entry in value:
        if not isinstance(entry, dict) or not isinstance(entry.get("text"), str):
            raise wrong
        numbers = {
            key: entry.get(name)
            for key, name in (("passage_idx", "passage_index"), ("start", "start"), ("end", "end"))
        }
        if any(isinstance(n, bool) or not isinstance(n, int | None) for n in numbers.values()):
            raise wrong
        out.append({**numbers, "text": entry["text"]})
    return out


def _documents(
    record: dict[str, Any], known: set[str], path: Path, line: int
) -> tuple[str | None, str | None]:
    """The question's document and the document that answers it (both imported already);
    ``(None, None)`` for JSON's ``"document_id": null``, an open question with no document."""
    if record.get("document_id", "") is None:
        return None, None
    doc_id = require_text(record, "document_id", path, line)
    if doc_id not in known:
        raise InputError(
            f"unknown document_id {doc_id!r}: import the document first",
            path=str(path),
            line=line,
            column="document_id",
        )
    check_name(doc_id, "document_id", path=str(path), line=line, column="document_id")
    context_id = optional_text(record, "context_document_id", path, line) or doc_id
    if context_id not in known:
        raise InputError(
            f"unknown context_document_id {context_id!r}",
            path=str(path),
            line=line,
            column="context_document_id",
        )
    return doc_id, context_id


def _answers(record: dict[str, Any], path: Path, line: int) -> list[str]:
    value = record.get("answers")
    if isinstance(value, list):
        return _answer_list(value, path, line)
    if value is not None and not isinstance(value, str):
        raise InputError(
            f"answers must be a list of texts or text with '|' between answers, "
            f"found {type(value).__name__}",
            path=str(path),
            line=line,
            column="answers",
        )
    if isinstance(value, str) and value.strip():
        text = value.strip()
        if text.startswith("["):
            check_bounds(text, path, line)  # depth and number length, then lone surrogates
            check_surrogates(text, path, line)
            try:
                parsed = json.loads(text)
            except json.JSONDecodeError:
                raise InputError(
                    "answers is not a valid JSON list", path=str(path), line=line, column="answers"
                ) from None
            if not isinstance(parsed, list):
                raise InputError(
                    "answers is not a valid JSON list", path=str(path), line=line, column="answers"
                )
            return _answer_list(parsed, path, line)
        return [a.strip() for a in text.split("|") if a.strip()]
    found = []
    if "answer" in record:
        found.append(optional_text(record, "answer", path, line))
    numbered = sorted(
        (k for k in record if k.startswith("answer") and k[6:].isdigit()), key=lambda k: int(k[6:])
    )
    found += [optional_text(record, k, path, line) for k in numbered]
    return [a for a in found if a]


def import_questions(
    db: Database,
    path: str | Path,
    *,
    origin: str = "imported",
    run_id: str | None = None,
    replace: bool = False,
) -> dict[str, Any]:
    """Import a question set; all-or-nothing. Returns counts of inserted, updated, unchanged rows.

    A stored question with the same id and other content is updated only while nothing hangs on
    it (answers, judgments, disputes); otherwise the import is refused unless ``replace`` is
    given, and even then refused when people labelled it (human judgments, reviews, dispute
    resolutions). ``orphaned`` in the result counts what a replacement left pointing at the new
    text. From :data:`STAGE_ABOVE` new questions on, they are staged first (no lock held:
    :mod:`core.store.row_stage`) and copied in by the one short transaction.
    """
    path = Path(path)
    records = read_records(path, ["question", "document_id"])
    known = set(document_ids(db))
    rows: list[Question] = []
    seen: dict[str, int] = {}
    now = utcnow()
    for line, rec in records:
        question = require_text(rec, "question", path, line)
        doc_id, context_id = _documents(rec, known, path, line)
        qid = (
            optional_text(rec, "id", path, line)
            or "q-" + hashlib.sha1(f"{doc_id or ''}\x1f{question}".encode()).hexdigest()[:16]
        )
        qid = check_name(qid, "question id", path=str(path), line=line, column="id")
        if qid in seen:
            raise InputError(
                f"duplicate id {qid!r} (first on line {seen[qid]})",
                path=str(path),
                line=line,
                column="id",
            )
        seen[qid] = line
        rows.append(
            Question(
                id=qid,
                document_id=doc_id,
                context_document_id=context_id,
                context_kind=(
                    "none" if doc_id is None else "story" if context_id == doc_id else "other"
                ),
                question=question,
                answers=_answers(rec, path, line),
                origin=QuestionOrigin(origin),
                split=optional_text(rec, "split", path, line),
                qtype=optional_text(rec, "qtype", path, line),
                language=optional_text(rec, "language", path, line) or "en",
                provenance={"source": "file", "file": path.name, "line": line},
                metadata={"evidence": ev} if (ev := _evidence(rec, path, line)) else {},
                run_id=run_id,
                created_at=now,
                updated_at=now,
            )
        )
    for _ in range(RACE_ATTEMPTS):
        counts = _write(db, rows, _plan(db, rows, path, replace))
        if counts is not None:
            return counts
    raise StoreError(
        f"{path.name}: other imports kept storing the same question ids meanwhile; nothing was "
        "imported by this one: run it again"
    )


def _write(
    db: Database, rows: list[Question], plan: list[tuple[str, dict[str, int]]]
) -> dict[str, Any] | None:
    """Store ``rows`` as ``plan`` says, in one transaction; None (nothing written) when another
    import stored one of the new ids after the plan was made (the caller plans again)."""
    counts: dict[str, Any] = {"inserted": 0, "updated": 0, "unchanged": 0}
    orphaned = {"answers": 0, "judgments": 0, "disputes": 0}
    new = [row for row, (action, _) in zip(rows, plan) if action == "inserted"]
    with staged_or_direct(
        db,
        lambda: stage_rows(db, "questions", [q.to_row() for q in new]),
        lambda: insert_questions(db, new),
        len(new),
        STAGE_ABOVE,
    ) as write_new:
        try:
            with transaction(db):
                hold_name(db, "import", "questions")  # PostgreSQL: one question import at a time
                if new and questions_by_id(db, [q.id for q in new]):
                    raise _PlanChanged
                for row, (action, hanging) in zip(rows, plan):
                    counts[action] += 1
                    if action == "updated":
                        upsert_question(db, row)
                        for key in orphaned:
                            orphaned[key] += hanging[key]
                write_new()
        except _PlanChanged:
            return None
    if any(orphaned.values()):
        counts["orphaned"] = orphaned
    return counts


class _PlanChanged(Exception):
    """Another import stored one of the planned new ids first (rolls the transaction back)."""


def _plan(
    db: Database, rows: list[Question], path: Path, replace: bool
) -> list[tuple[str, dict[str, int]]]:
    """For every row: inserted, updated or unchanged, and what hangs on the stored question."""
    plan: list[tuple[str, dict[str, int]]] = []
    for row in rows:
        stored = get_question(db, row.id)
        if stored is None:
            plan.append(("inserted", {}))
            continue
        line = row.provenance["line"]
        foreign = _foreign(stored, row)
        if foreign and not replace:
            raise InputError(
                f"question id {row.id!r} is already a question from {foreign}; nothing "
                "imported (give --replace to replace it anyway, or use another id)",
                path=str(path),
                line=line,
                column="id",
            )
        if _content(stored) == _content(row) and not foreign:
            plan.append(("unchanged", {}))
            continue
        hanging = _hanging(db, row.id)
        if any(hanging.values()) and not replace:
            raise InputError(
                f"question id {row.id!r} exists with other content and has "
                f"{_describe(hanging)}; nothing imported (give --replace to replace it anyway)",
                path=str(path),
                line=line,
                column="id",
            )
        labels = _human_labels(db, row.id)
        if labels:
            raise InputError(
                f"question id {row.id!r} exists with other content and people labelled it "
                f"({labels}); it cannot be replaced: import it under a new id",
                path=str(path),
                line=line,
                column="id",
            )
        plan.append(("updated", hanging))
    return plan


def _content(question: Question) -> tuple[Any, ...]:
    """What an import may change: the :data:`CONTENT` columns."""
    return tuple(getattr(question, c) for c in CONTENT)


def _foreign(stored: Question, row: Question) -> str:
    """Where a stored question of the same id comes from when that is another origin or source
    than the imported row's ("" when the same): an id collision, not an update."""
    source = stored.provenance.get("source", "")
    if stored.origin != row.origin:
        return f"origin {str(stored.origin)!r}"
    if source != "file":
        return f"source {source or 'unknown'!r}"
    return ""


def _hanging(db: Database, qid: str) -> dict[str, int]:
    return {
        "answers": question_answer_count(db, qid),
        "judgments": question_judgment_count(db, qid),
        "disputes": len(question_disputes(db, qid)),
    }


def _describe(counts: dict[str, int]) -> str:
    return ", ".join(f"{n} {table if n != 1 else table[:-1]}" for table, n in counts.items() if n)


def _human_labels(db: Database, qid: str) -> str:
    found = {
        "human judgments": question_judgment_count(db, qid, human_only=True),
        "reviews": review_count(db, qid),
        "dispute resolutions": question_resolution_count(db, qid),
    }
    return ", ".join(f"{n} {what}" for what, n in found.items() if n)
