"""Table ``reviews``: the only module with SQL on it (question reviews by people).

Reviews are append-only (triggers abort UPDATE and DELETE): a changed review is a new row whose
``supersedes`` names the annotator's previous one, and :func:`effective_reviews` is the one
reader of the reviews no later row supersedes. Besides reviews (decision accept / reject /
edit) the table holds an annotator's *skip* (``decision = 'skipped'``, :data:`SKIPPED`) and an
*undo* (``decision = 'withdrawn'``, :data:`WITHDRAWN`, superseding the review or skip it takes
back). Neither is a review: every reader of reviews here leaves them out; skips are read by
:func:`skipped_reviews` only. Rows come back decoded (``checklist`` as a dict). SQLAlchemy Core
over :mod:`core.store.tables_more`, each statement built once (:mod:`core.store.prepared`; issue
33): nothing here is translated for PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from enum import StrEnum
from functools import cache
from typing import TYPE_CHECKING, Any, Self

import sqlalchemy as sa

from core.store.connection import dumps, utcnow
from core.store.label_rows import SKIPPED, WITHDRAWN, label_marks, last_row, own_row
from core.store.prepared import bound_rows, run_bound, scalar
from core.store.statements import not_superseded
from core.store.tables import questions
from core.store.tables_more import reviews

if TYPE_CHECKING:
    from core.store.engine import Database


class ReviewDecision(StrEnum):
    """A row's decision: a review (accept, reject, edit), a skip or an undo."""

    ACCEPT = "accept"
    REJECT = "reject"
    EDIT = "edit"
    SKIPPED = SKIPPED
    WITHDRAWN = WITHDRAWN


@dataclass(frozen=True, slots=True, kw_only=True)
class NewReview:
    """A review row to append (``checklist``: item -> answer; edits only with ``edit``)."""

    question_id: str
    annotator: str
    decision: ReviewDecision
    checklist: dict[str, Any] = field(default_factory=dict)
    edited_question: str | None = None
    edited_answer: str | None = None
    note: str = ""
    supersedes: int | None = None
    created_at: str = field(default_factory=utcnow)


@dataclass(frozen=True, slots=True, kw_only=True)
class Review(NewReview):
    """A stored row of ``reviews``."""

    id: int

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> Self:
        """The record of a decoded ``reviews`` row."""
        checklist = row["checklist"]
        return cls(
            id=int(row["id"]),
            question_id=row["question_id"],
            annotator=row["annotator"],
            decision=ReviewDecision(row["decision"]),
            checklist=checklist if isinstance(checklist, dict) else {},
            edited_question=row["edited_question"],
            edited_answer=row["edited_answer"],
            note=row["note"],
            supersedes=row["supersedes"],
            created_at=row["created_at"],
        )


#: The alias ``r`` of the readers.
_R = reviews.alias("r")
#: Rows of alias ``r`` that are reviews (not skips, not withdrawals).
_IS_REVIEW = _R.c.decision.not_in([SKIPPED, WITHDRAWN])
_INSERT = (
    sa.insert(reviews)
    .values({f.name: sa.bindparam(f.name) for f in fields(NewReview)})
    .returning(reviews.c.id)
)


def insert_review(db: Database, new: NewReview) -> int:
    """Append one review row; returns its id."""
    row = {f.name: getattr(new, f.name) for f in fields(NewReview)}
    row.update(decision=str(new.decision), checklist=dumps(new.checklist))
    return int(scalar(db, _INSERT, row) or 0)


@cache
def _effective(of_question: bool, of_origin: bool) -> sa.Select[Any]:
    """The effective reviews (of the bound ``question_id`` / questions of ``origin``)."""
    where = [not_superseded(reviews, _R), _IS_REVIEW]
    if of_question:
        where.append(_R.c.question_id == sa.bindparam("question_id"))
    if of_origin:
        of = sa.select(questions.c.id).where(questions.c.origin == sa.bindparam("origin"))
        where.append(_R.c.question_id.in_(of))
    return sa.select(_R).where(*where).order_by(_R.c.id)


def effective_reviews(
    db: Database, question_id: str | None = None, *, origin: str | None = None
) -> list[Review]:
    """The effective (not superseded) reviews, oldest first: of one question when
    ``question_id`` is given, of the questions of ``origin`` when that is given. Skips and
    withdrawals are no reviews and are left out."""
    query = _effective(question_id is not None, origin is not None)
    found = bound_rows(db, query, {"question_id": question_id, "origin": origin})
    return [Review.from_row(r) for r in found]


_LATER = reviews.alias("s")
_HISTORY = (
    sa.select(_R)
    .where(
        _R.c.question_id == sa.bindparam("question_id"),
        _IS_REVIEW,
        ~sa.exists(
            sa.select(sa.literal_column("1")).where(
                _LATER.c.supersedes == _R.c.id, _LATER.c.decision == WITHDRAWN
            )
        ),
    )
    .order_by(_R.c.id)
)


def question_reviews(db: Database, question_id: str) -> list[Review]:
    """The reviews of a question, superseded ones too (the history), by id: skips,
    withdrawals and the reviews withdrawn by an undo left out (a withdrawn review is no label)."""
    return [Review.from_row(r) for r in bound_rows(db, _HISTORY, {"question_id": question_id})]


def own_review(db: Database, question_id: str, annotator: str) -> Review | None:
    """``annotator``'s effective row on a question (a skip or a withdrawal too): the row their
    next one supersedes; None when they have none."""
    found = own_row(db, "reviews", question_id, annotator)
    return None if found is None else Review.from_row(found)


def last_review(db: Database, annotator: str) -> Review | None:
    """``annotator``'s latest effective review or skip (withdrawals left out): what an undo
    takes back; None when there is none."""
    found = last_row(db, "reviews", annotator)
    return None if found is None else Review.from_row(found)


_SKIPS = (
    sa.select(_R).where(not_superseded(reviews, _R), _R.c.decision == SKIPPED).order_by(_R.c.id)
)


def skipped_reviews(db: Database) -> list[Review]:
    """Every effective skip (a row with decision ``skipped`` no later row supersedes), oldest
    first."""
    return [Review.from_row(r) for r in bound_rows(db, _SKIPS)]


_EVER = (
    sa.select(sa.literal(1))
    .where(_R.c.question_id == sa.bindparam("question_id"), _IS_REVIEW)
    .limit(1)
)


def ever_reviewed(db: Database, question_id: str) -> bool:
    """Whether the question has any review row (superseded or withdrawn too; skips aside)."""
    return run_bound(db, _EVER, {"question_id": question_id}).fetchone() is not None


def review_marks(db: Database) -> dict[str, dict[str, set[str]]]:
    """Who marked which question, from the effective rows (withdrawals left out):
    ``{"ok": {question id: annotators with a review}, "skipped": {question id: annotators
    whose row is a skip}}`` (:func:`core.store.label_rows.label_marks`)."""
    return label_marks(db, "reviews")


_COUNT = sa.select(sa.func.count()).where(reviews.c.question_id == sa.bindparam("question_id"))


def review_count(db: Database, question_id: str) -> int:
    """How many rows (superseded ones, skips and withdrawals too) a question has in
    ``reviews``."""
    return int(scalar(db, _COUNT, {"question_id": question_id}))
