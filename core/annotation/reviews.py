"""Question reviews: the one write path (:func:`record_review`), effective reviews, the queue."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import sqlite_utils

from core.annotation import guideline as guideline
from core.annotation.base import (
    Progress,
    calibration_size,
    labellers,
    progress_of,
    queue_seed,
    required_annotations,
    team_queue,
)
from core.annotation.identity import Annotator, authorise
from core.errors import InputError
from core.store.connection import dumps, rows, transaction, utcnow
from core.store.schema import not_superseded

REVIEW_DECISIONS = ("accept", "reject", "edit")
_STATUS_OF_DECISION = {"accept": "accepted", "reject": "rejected", "edit": "edited"}


@dataclass(frozen=True)
class ReviewResult:
    """A stored review: its id, its decision, and the question's new status with the reason."""

    review_id: int
    decision: str
    status: str
    reason: str


def record_review(
    db: sqlite_utils.Database,
    question_id: str,
    who: Annotator,
    checklist: dict[str, Any] | None = None,
    *,
    decision: str | None = None,
    edited_question: str | None = None,
    edited_answer: str | None = None,
    note: str = "",
) -> ReviewResult:
    """The one write path of question reviews (the Review page, the XRAG review, scripts).

    The checklist is validated against :func:`core.annotation.guideline.checklist_fields` of the question
    (complete when ``decision`` is None and the decision is derived from it; it may be partial
    next to an explicit ``decision``) and stored as given, keyed by field name. An explicit
    ``decision`` (Accept / Reject / Save edit) is stored as chosen after
    :func:`core.annotation.guideline.decision_problem` (a refused decision raises InputError and writes
    nothing). The outcome follows :func:`core.annotation.guideline.review_outcome` (the Sufficient filter
    discards a cross-document question and its translations, whatever the decision). The
    question's ``status`` becomes ``discarded`` or the majority decision of the effective reviews
    (ties: latest). Edits (decision ``edit`` only) of an XRAG question replace its text (the
    original kept in ``metadata``); other questions keep the edited texts in the review only.
    Appends one row under the signed-in ``who`` (:func:`core.annotation.identity.authorise`),
    superseding their previous review, all in one transaction.
    """
    if decision is not None and decision not in REVIEW_DECISIONS:
        raise InputError(f"decision must be one of {', '.join(REVIEW_DECISIONS)}")
    edited_question = (edited_question or "").strip() or None
    edited_answer = (edited_answer or "").strip() or None
    with transaction(db):
        annotator = authorise(db, who).name
        found = rows(db, "select * from questions where id = ?", [question_id])
        if not found:
            raise InputError(f"unknown question {question_id!r}")
        q = found[0]
        c = guideline.validate_checklist(
            guideline.checklist_fields(q), checklist or {}, partial=decision is not None
        )
        current = effective_reviews(db, question_id)
        mine = next((r for r in current if r["annotator"] == annotator), None)
        others = [r for r in current if r["annotator"] != annotator]
        out = guideline.review_outcome(
            q, c, [r["checklist"] or {} for r in others], decision, edited_question, edited_answer
        )
        now = utcnow()
        new_id = int(
            db["reviews"]
            .insert(
                {
                    "question_id": question_id,
                    "annotator": annotator,
                    "decision": out.decision,
                    "checklist": dumps(c),
                    "edited_question": out.edited_question,
                    "edited_answer": out.edited_answer,
                    "note": note or "",
                    "supersedes": mine["id"] if mine else None,
                    "created_at": now,
                }
            )
            .last_pk
        )
        if out.discarded:
            status = "discarded"
        else:
            decisions = [out.decision, *[r["decision"] for r in reversed(others)]]
            top = max(decisions, key=lambda d: (decisions.count(d), -decisions.index(d)))
            status = _STATUS_OF_DECISION[top]
        meta = dict(q.get("metadata") or {}, status_reason=out.reason)
        updates: dict[str, Any] = {"status": status, "updated_at": now}
        if q["origin"] == "xrag" and out.edited_question:
            meta.setdefault("original_question", q["question"])
            updates["question"] = out.edited_question
        if q["origin"] == "xrag" and out.edited_answer:
            meta.setdefault("original_answers", q["answers"])
            updates["answers"] = dumps([out.edited_answer])
        updates["metadata"] = dumps(meta)
        db["questions"].update(question_id, updates)
        if status == "discarded":
            for child in rows(
                db, "select id, metadata from questions where parent_id = ?", [question_id]
            ):
                cm = dict(
                    child["metadata"] or {},
                    status_reason=f"English question discarded: {out.reason}",
                )
                db["questions"].update(
                    child["id"], {"status": "discarded", "metadata": dumps(cm), "updated_at": now}
                )
    return ReviewResult(new_id, out.decision, status, out.reason)


def submit_review(
    db: sqlite_utils.Database,
    question_id: str,
    who: Annotator,
    decision: str | None = None,
    *,
    checklist: dict[str, Any] | None = None,
    edited_question: str | None = None,
    edited_answer: str | None = None,
    note: str = "",
) -> int:
    """:func:`record_review`; return the new review's id."""
    return record_review(
        db,
        question_id,
        who,
        checklist,
        decision=decision,
        edited_question=edited_question,
        edited_answer=edited_answer,
        note=note,
    ).review_id


def effective_reviews(db: sqlite_utils.Database, question_id: str) -> list[dict]:
    """The effective reviews of a question, oldest first."""
    return rows(
        db,
        f"select * from reviews t where question_id = ? and {not_superseded('reviews')} order by id",
        [question_id],
    )


def review_queue(
    db: sqlite_utils.Database, annotator: str, question_ids: list[str], k: int | None = None
) -> list[str]:
    """Of ``question_ids``, those ``annotator`` (a name) has not reviewed that still need a
    review, in the order of :func:`core.annotation.base.team_queue`."""
    k = k or required_annotations(db)
    who = labellers(db, "reviews", "question_id")
    return team_queue(
        question_ids, who, annotator, k=k, seed=queue_seed(db), calibration=calibration_size(db)
    )


def review_progress(db: sqlite_utils.Database, annotator: str, question_ids: list[str]) -> Progress:
    """How many of ``question_ids`` this annotator has reviewed."""
    return progress_of(question_ids, labellers(db, "reviews", "question_id"), annotator)
