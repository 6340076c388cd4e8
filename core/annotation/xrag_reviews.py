"""XRAG's reviews on top of the one review path: applying a checklist, current reviews, label counts."""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import TYPE_CHECKING, Any

from core.annotation.guideline import CHECKLIST_FIELDS
from core.annotation.identity import Annotator
from core.annotation.reviews import record_review
from core.errors import InputError
from core.store.connection import dumps
from core.store.questions import (
    Question,
    QuestionOrigin,
    QuestionStatus,
    get_question,
    root_questions,
)
from core.store.reviews import Review, effective_reviews

if TYPE_CHECKING:
    from core.store.engine import Database


def _question(db: Database, question_id: str) -> Question:
    found = get_question(db, question_id)
    if found is None or found.origin != QuestionOrigin.XRAG:
        raise InputError(f"unknown XRAG question {question_id!r}")
    return found


def current_reviews(db: Database, question_id: str | None = None) -> list[Review]:
    """The latest review of each (question, annotator) on XRAG questions (of one question when
    ``question_id`` is given), oldest first."""
    return effective_reviews(db, question_id or None, origin="xrag")


def apply_review(
    db: Database,
    question_id: str,
    who: Annotator,
    checklist: dict[str, Any],
    note: str = "",
    decision: str | None = None,
) -> dict[str, Any]:
    """Review an XRAG question through :func:`core.annotation.reviews.record_review` (the decision
    given, or derived from the checklist when None). Returns ``{"review_id", "status",
    "reason"}``."""
    _question(db, question_id)
    out = record_review(db, question_id, who, checklist, decision=decision, note=note)
    return {"review_id": out.review_id, "status": out.status, "reason": out.reason}


def label_distribution(db: Database) -> dict[str, Any]:
    """Counts of every checklist value over the current reviews of English XRAG questions.

    ``{"n_reviews", "n_questions", "fields": {field: {value: count}}, "status": {status: n},
    "discarded_sufficient": n}``; booleans are counted as "yes"/"no".
    """
    current = [r for r in current_reviews(db) if "support_a" in r.checklist]
    fields: dict[str, Counter[str]] = defaultdict(Counter)
    for r in current:
        for f in CHECKLIST_FIELDS:
            if f["type"] == "text":
                continue
            v = r.checklist.get(f["name"])
            if v is not None:
                fields[f["name"]]["yes" if v is True else "no" if v is False else v] += 1
        fields["either_sufficient"][
            "yes"
            if "Sufficient" in (r.checklist.get("support_a"), r.checklist.get("support_b"))
            else "no"
        ] += 1
    english = root_questions(db, QuestionOrigin.XRAG)
    status = Counter(str(q.status) for q in english)
    # a discarded question whose stored reasons mention Sufficient (any case, as SQL LIKE does)
    discarded = sum(
        q.status == QuestionStatus.DISCARDED and "sufficient" in dumps(q.metadata).lower()
        for q in english
    )
    return {
        "n_reviews": len(current),
        "n_questions": len({r.question_id for r in current}),
        "fields": {k: dict(v) for k, v in fields.items()},
        "status": dict(status),
        "discarded_sufficient": discarded,
    }
