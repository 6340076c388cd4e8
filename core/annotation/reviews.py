"""Question reviews: the one write path (:func:`record_review`), the queue, progress (the
effective reviews are read by :func:`core.store.reviews.effective_reviews`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from core.annotation import guideline as guideline
from core.annotation.base import (
    Progress,
    calibration_size,
    progress_of,
    queue_seed,
    required_annotations,
    team_queue,
)
from core.annotation.identity import Annotator, authorise
from core.errors import InputError
from core.store.connection import dumps, transaction, utcnow
from core.store.questions import child_questions, get_question, update_question
from core.store.reviews import effective_reviews, insert_review, reviewers

if TYPE_CHECKING:  # sqlite_utils imports pandas: loaded only when a database is opened
    import sqlite_utils

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
        q = get_question(db, question_id)
        if q is None:
            raise InputError(f"unknown question {question_id!r}")
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
        new_id = insert_review(
            db,
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
            },
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
        update_question(db, question_id, updates)
        if status == "discarded":
            for child in child_questions(db, question_id, ["id", "metadata"]):
                cm = dict(
                    child["metadata"] or {},
                    status_reason=f"English question discarded: {out.reason}",
                )
                update_question(
                    db,
                    child["id"],
                    {"status": "discarded", "metadata": dumps(cm), "updated_at": now},
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


def review_queue(
    db: sqlite_utils.Database, annotator: str, question_ids: list[str], k: int | None = None
) -> list[str]:
    """Of ``question_ids``, those ``annotator`` (a name) has not reviewed that still need a
    review, in the order of :func:`core.annotation.base.team_queue`."""
    k = k or required_annotations(db)
    return team_queue(
        question_ids,
        reviewers(db),
        annotator,
        k=k,
        seed=queue_seed(db),
        calibration=calibration_size(db),
    )


def review_progress(db: sqlite_utils.Database, annotator: str, question_ids: list[str]) -> Progress:
    """How many of ``question_ids`` this annotator has reviewed."""
    return progress_of(question_ids, reviewers(db), annotator)
