"""Human quality control of XRAG questions (the XRAG annotation guideline) and its statistics.

The review page shows ``CHECKLIST_FIELDS`` for an English cross-document question and
``TRANSLATION_FIELDS`` for a translation, then calls :func:`apply_review`, which appends a
``reviews`` row (append-only; a re-review by the same annotator supersedes their earlier row)
and sets the question's status:

* ``discarded`` when any annotator's current review says either article alone is
  ``Sufficient`` (the question does not need both articles); its translations are discarded too;
* ``rejected`` when the question is not intelligible or not answerable from the two articles;
* ``edited`` when the answer is wrong (the correction becomes the reference answer);
* ``accepted`` otherwise.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

import sqlite_utils

from core.errors import InputError
from core.store import dumps, rows, transaction, utcnow

SUPPORT = ("Sufficient", "Some", "None")
CHECKLIST_FIELDS: list[dict[str, Any]] = [
    {"name": "intelligible", "type": "bool", "required": True,
     "label": "The question is intelligible and reads naturally"},
    {"name": "answerable", "type": "bool", "required": True,
     "label": "The question can be answered from the two articles"},
    {"name": "answer_correct", "type": "bool", "required": True,
     "label": "The reference answer is correct"},
    {"name": "correction", "type": "text", "required": False,
     "label": "Corrected answer (required when the answer is not correct)"},
    {"name": "support_a", "type": "choice", "choices": list(SUPPORT), "required": True,
     "label": "How much of the answer does article A alone give?"},
    {"name": "support_b", "type": "choice", "choices": list(SUPPORT), "required": True,
     "label": "How much of the answer does article B alone give?"},
]
TRANSLATION_FIELDS: list[dict[str, Any]] = [
    {"name": "translation_ok", "type": "bool", "required": True,
     "label": "The translation keeps the meaning of the English question and answer"},
    {"name": "edited_question", "type": "text", "required": False,
     "label": "Corrected translation of the question (optional)"},
    {"name": "edited_answer", "type": "text", "required": False,
     "label": "Corrected translation of the answer (optional)"},
]


def checklist_fields(question: dict[str, Any]) -> list[dict[str, Any]]:
    """The field spec for a question row: translation fields when it has a ``parent_id``."""
    return TRANSLATION_FIELDS if question.get("parent_id") else CHECKLIST_FIELDS


def validate_checklist(fields: list[dict[str, Any]], checklist: dict[str, Any]) -> dict[str, Any]:
    """Check names, types and required fields; return the cleaned checklist (InputError)."""
    if not isinstance(checklist, dict):
        raise InputError("checklist must be a mapping of field name to value")
    spec = {f["name"]: f for f in fields}
    unknown = sorted(set(checklist) - set(spec))
    if unknown:
        raise InputError(f"unknown checklist fields {unknown}; expected {sorted(spec)}")
    out: dict[str, Any] = {}
    for name, f in spec.items():
        value = checklist.get(name)
        if value is None or (f["type"] == "text" and not str(value).strip()):
            if f["required"]:
                raise InputError(f"checklist field {name!r} is required", column=name)
            continue
        if f["type"] == "bool" and not isinstance(value, bool):
            raise InputError(f"checklist field {name!r} must be true or false", column=name)
        if f["type"] == "choice" and value not in f["choices"]:
            raise InputError(f"checklist field {name!r} must be one of {f['choices']}",
                             column=name)
        out[name] = str(value).strip() if f["type"] == "text" else value
    return out


def _question(db: sqlite_utils.Database, question_id: str) -> dict[str, Any]:
    found = rows(db, "select * from questions where id = ? and origin = 'xrag'", [question_id])
    if not found:
        raise InputError(f"unknown XRAG question {question_id!r}")
    return found[0]


def current_reviews(db: sqlite_utils.Database, question_id: str | None = None
                    ) -> list[dict[str, Any]]:
    """The latest review of each (question, annotator) on XRAG questions."""
    where = "and r.question_id = ?" if question_id else ""
    return rows(db, "select r.* from reviews r join questions q on q.id = r.question_id "
                    "where q.origin = 'xrag' and not exists (select 1 from reviews s where "
                    f"s.supersedes = r.id) {where} order by r.id",
                [question_id] if question_id else [])


def _outcome(q: dict[str, Any], c: dict[str, Any], others: list[dict[str, Any]]
             ) -> tuple[str, str, str]:
    """(decision, new status, reason) for an English question's checklist."""
    for r in [c] + [o["checklist"] for o in others]:
        for side in ("a", "b"):
            if r.get(f"support_{side}") == "Sufficient":
                return ("reject", "discarded", f"article {side.upper()} alone answers it "
                                               "(Sufficient): both articles are not needed")
    if not c["intelligible"] or not c["answerable"]:
        return "reject", "rejected", "not intelligible or not answerable from the two articles"
    if not c["answer_correct"]:
        if "correction" not in c:
            raise InputError("answer_correct is false: give the corrected answer",
                             column="correction")
        return "edit", "edited", "answer corrected by the reviewer"
    return "accept", "accepted", ""


def apply_review(db: sqlite_utils.Database, question_id: str, annotator: str,
                 checklist: dict[str, Any], note: str = "") -> dict[str, Any]:
    """Append a review of an XRAG question and apply it (see module docstring).

    Returns ``{"review_id", "status", "reason"}``. Everything is written in one transaction.
    """
    if not annotator.strip():
        raise InputError("annotator name is empty")
    q = _question(db, question_id)
    c = validate_checklist(checklist_fields(q), checklist)
    previous = [r for r in current_reviews(db, question_id)]
    mine = next((r for r in previous if r["annotator"] == annotator), None)
    others = [r for r in previous if r["annotator"] != annotator]
    edited_q = edited_a = None
    if q["parent_id"]:
        edited_q, edited_a = c.get("edited_question"), c.get("edited_answer")
        if edited_q or edited_a:
            decision, status, reason = "edit", "edited", "translation corrected by the reviewer"
        elif c["translation_ok"]:
            decision, status, reason = "accept", "accepted", ""
        else:
            decision, status, reason = "reject", "rejected", "translation rejected"
    else:
        decision, status, reason = _outcome(q, c, others)
        edited_a = c.get("correction") if decision == "edit" else None
    now = utcnow()
    meta = dict(q["metadata"])
    meta["status_reason"] = reason
    updates: dict[str, Any] = {"status": status, "updated_at": now}
    if edited_q:
        meta.setdefault("original_question", q["question"])
        updates["question"] = edited_q
    if edited_a:
        meta.setdefault("original_answers", q["answers"])
        updates["answers"] = dumps([edited_a])
    updates["metadata"] = dumps(meta)
    with transaction(db):
        review_id = db["reviews"].insert({
            "question_id": question_id, "annotator": annotator, "decision": decision,
            "checklist": dumps(c), "edited_question": edited_q, "edited_answer": edited_a,
            "note": note, "supersedes": mine["id"] if mine else None,
            "created_at": now}).last_pk
        db["questions"].update(question_id, updates)
        if status == "discarded":
            for child in rows(db, "select id, metadata from questions where parent_id = ?",
                              [question_id]):
                cm = dict(child["metadata"], status_reason=f"English question discarded: {reason}")
                db["questions"].update(child["id"], {"status": "discarded",
                                                     "metadata": dumps(cm), "updated_at": now})
    return {"review_id": review_id, "status": status, "reason": reason}


def label_distribution(db: sqlite_utils.Database) -> dict[str, Any]:
    """Counts of every checklist value over the current reviews of English XRAG questions.

    ``{"n_reviews", "n_questions", "fields": {field: {value: count}}, "status": {status: n},
    "discarded_sufficient": n}``; booleans are counted as "yes"/"no".
    """
    current = [r for r in current_reviews(db) if "support_a" in r["checklist"]]
    fields: dict[str, Counter] = defaultdict(Counter)
    for r in current:
        for f in CHECKLIST_FIELDS:
            if f["type"] == "text":
                continue
            v = r["checklist"].get(f["name"])
            if v is not None:
                fields[f["name"]]["yes" if v is True else "no" if v is False else v] += 1
        fields["either_sufficient"]["yes" if "Sufficient" in (
            r["checklist"].get("support_a"), r["checklist"].get("support_b")) else "no"] += 1
    status = Counter(r["status"] for r in rows(
        db, "select status from questions where origin = 'xrag' and parent_id is null"))
    discarded = db.execute(
        "select count(*) from questions where origin = 'xrag' and parent_id is null and "
        "status = 'discarded' and metadata like '%Sufficient%'").fetchone()[0]
    return {"n_reviews": len(current), "n_questions": len({r["question_id"] for r in current}),
            "fields": {k: dict(v) for k, v in fields.items()}, "status": dict(status),
            "discarded_sufficient": discarded}
