"""``submit_review``: a test's short way to store a review through the one write path,
:func:`core.annotation.reviews.record_review` (the decision as the fourth argument; returns the
new review's id)."""

from __future__ import annotations

from typing import Any

from core.annotation.base import UNCHECKED
from core.annotation.identity import Annotator
from core.annotation.reviews import record_review
from core.store.engine import Database


def submit_review(
    db: Database,
    question_id: str,
    who: Annotator,
    decision: str | None = None,
    *,
    checklist: dict[str, Any] | None = None,
    edited_question: str | None = None,
    edited_answer: str | None = None,
    note: str = "",
    expected_last_id: int | None = UNCHECKED,
) -> int:
    """:func:`record_review` with ``decision`` given; the new review's id."""
    return record_review(
        db,
        question_id,
        who,
        checklist,
        decision=decision,
        edited_question=edited_question,
        edited_answer=edited_answer,
        note=note,
        expected_last_id=expected_last_id,
    ).review_id
