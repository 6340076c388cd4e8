"""Generic question sets in CSV or JSONL.

Columns: ``question`` and ``document_id`` (required; the document must already be imported),
answers as ``answers`` (a JSON list, or text with ``|`` between answers), ``answer``, or
``answer1`` ... ``answerN``; optional ``id``, ``qtype``, ``split``, ``language``,
``context_document_id``. Without ``id`` the id is a hash of document and question.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.corpus.tabular import read_records, require_text
from core.errors import InputError
from core.store.connection import dumps, transaction, utcnow
from core.store.questions import upsert_question

if TYPE_CHECKING:  # sqlite_utils imports pandas: loaded only when a database is opened
    import sqlite_utils


def _answers(record: dict[str, Any], path: Path, line: int) -> list[str]:
    value = record.get("answers")
    if isinstance(value, list):
        return [str(a).strip() for a in value if str(a).strip()]
    if isinstance(value, str) and value.strip():
        text = value.strip()
        if text.startswith("["):
            try:
                parsed = json.loads(text)
            except json.JSONDecodeError:
                raise InputError(
                    "answers is not a valid JSON list", path=str(path), line=line, column="answers"
                ) from None
            return [str(a).strip() for a in parsed if str(a).strip()]
        return [a.strip() for a in text.split("|") if a.strip()]
    found = []
    if str(record.get("answer") or "").strip():
        found.append(str(record["answer"]).strip())
    numbered = sorted(
        (k for k in record if k.startswith("answer") and k[6:].isdigit()), key=lambda k: int(k[6:])
    )
    found += [str(record[k]).strip() for k in numbered if str(record[k] or "").strip()]
    return found


def import_questions(
    db: sqlite_utils.Database,
    path: str | Path,
    *,
    origin: str = "imported",
    run_id: str | None = None,
) -> dict[str, int]:
    """Import a question set; all-or-nothing. Returns counts of inserted and updated rows."""
    path = Path(path)
    records = read_records(path, ["question", "document_id"])
    known = {r[0] for r in db.execute("select id from documents")}
    rows, seen = [], {}
    for line, rec in records:
        question = require_text(rec, "question", path, line)
        doc_id = require_text(rec, "document_id", path, line)
        if doc_id not in known:
            raise InputError(
                f"unknown document_id {doc_id!r}: import the document first",
                path=str(path),
                line=line,
                column="document_id",
            )
        context_id = str(rec.get("context_document_id") or doc_id)
        if context_id not in known:
            raise InputError(
                f"unknown context_document_id {context_id!r}",
                path=str(path),
                line=line,
                column="context_document_id",
            )
        qid = (
            str(rec.get("id") or "").strip()
            or "q-" + hashlib.sha1(f"{doc_id}\x1f{question}".encode()).hexdigest()[:16]
        )
        if qid in seen:
            raise InputError(
                f"duplicate id {qid!r} (first on line {seen[qid]})",
                path=str(path),
                line=line,
                column="id",
            )
        seen[qid] = line
        rows.append(
            {
                "id": qid,
                "document_id": doc_id,
                "context_document_id": context_id,
                "context_kind": "story" if context_id == doc_id else "other",
                "question": question,
                "answers": dumps(_answers(rec, path, line)),
                "origin": origin,
                "split": str(rec.get("split") or ""),
                "qtype": str(rec.get("qtype") or ""),
                "language": str(rec.get("language") or "en"),
                "provenance": dumps({"source": "file", "file": path.name, "line": line}),
                "run_id": run_id,
            }
        )
    counts = {"inserted": 0, "updated": 0}
    now = utcnow()
    with transaction(db):
        for row in rows:
            inserted = upsert_question(db, {**row, "updated_at": now}, {"created_at": now})
            counts["inserted" if inserted else "updated"] += 1
    return counts
