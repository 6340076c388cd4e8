"""Table ``reviews``: the only module with SQL on it (question reviews by people).

Reviews are append-only (triggers abort UPDATE and DELETE): a changed review is a new row whose
``supersedes`` names the annotator's previous one, and :func:`effective_reviews` is the one
reader of the reviews no later row supersedes. Besides reviews (decision accept / reject /
edit) the table holds an annotator's *skip* (``decision = 'skipped'``, :data:`SKIPPED`) and an
*undo* (``decision = 'withdrawn'``, :data:`WITHDRAWN`, superseding the review or skip it takes
back). Neither is a review: every reader of reviews here leaves them out; skips are read by
:func:`skipped_reviews` only. Rows come back decoded (``checklist`` as a dict) by
:func:`core.store.connection.rows`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Self

from core.store.connection import dumps, rows, utcnow
from core.store.label_rows import SKIPPED, WITHDRAWN, label_marks, last_row, own_row
from core.store.schema import not_superseded

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


#: Rows of alias ``r`` that are reviews (not skips, not withdrawals).
_REVIEW = f"r.decision not in ('{SKIPPED}', '{WITHDRAWN}')"
#: Effective rows of alias ``r`` that are reviews.
_OPEN = f"{not_superseded('reviews', 'r')} and {_REVIEW}"


def insert_review(db: Database, new: NewReview) -> int:
    """Append one review row; returns its id."""
    row = {f.name: getattr(new, f.name) for f in fields(NewReview)}
    row.update(decision=str(new.decision), checklist=dumps(new.checklist))
    return int(db.table("reviews").insert(row).last_pk or 0)


def effective_reviews_sql(condition: str) -> str:
    """The query of the effective reviews (alias ``r``) that also meet ``condition``."""
    return f"select r.* from reviews r where {_OPEN} and {condition} order by r.id"


def effective_reviews(
    db: Database, question_id: str | None = None, *, origin: str | None = None
) -> list[Review]:
    """The effective (not superseded) reviews, oldest first: of one question when
    ``question_id`` is given, of the questions of ``origin`` when that is given. Skips and
    withdrawals are no reviews and are left out."""
    where: list[str] = [_OPEN]
    params: list[Any] = []
    if question_id is not None:
        where.append("r.question_id = ?")
        params.append(question_id)
    if origin is not None:
        where.append("r.question_id in (select id from questions where origin = ?)")
        params.append(origin)
    sql = f"select r.* from reviews r where {' and '.join(where)} order by r.id"
    return [Review.from_row(r) for r in rows(db, sql, params)]


def question_reviews(db: Database, question_id: str) -> list[Review]:
    """The reviews of a question, superseded ones too (the history), by id: skips,
    withdrawals and the reviews withdrawn by an undo left out (a withdrawn review is no label)."""
    found = rows(
        db,
        f"select * from reviews r where r.question_id = ? and {_REVIEW} and not exists "
        f"(select 1 from reviews s where s.supersedes = r.id and s.decision = '{WITHDRAWN}') "
        "order by r.id",
        [question_id],
    )
    return [Review.from_row(r) for r in found]


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


def skipped_reviews(db: Database) -> list[Review]:
    """Every effective skip (a row with decision ``skipped`` no later row supersedes), oldest
    first."""
    found = rows(
        db,
        f"select * from reviews r where {not_superseded('reviews', 'r')} "
        f"and r.decision = '{SKIPPED}' order by r.id",
    )
    return [Review.from_row(r) for r in found]


def ever_reviewed(db: Database, question_id: str) -> bool:
    """Whether the question has any review row (superseded or withdrawn too; skips aside)."""
    return (
        db.execute(
            f"select 1 from reviews r where r.question_id = ? and {_REVIEW} limit 1",
            [question_id],
        ).fetchone()
        is not None
    )


def review_marks(db: Database) -> dict[str, dict[str, set[str]]]:
    """Who marked which question, from the effective rows (withdrawals left out):
    ``{"ok": {question id: annotators with a review}, "skipped": {question id: annotators
    whose row is a skip}}`` (:func:`core.store.label_rows.label_marks`)."""
    return label_marks(db, "reviews")


def review_count(db: Database, question_id: str) -> int:
    """How many rows (superseded ones, skips and withdrawals too) a question has in
    ``reviews``."""
    return int(
        db.execute("select count(*) from reviews where question_id = ?", [question_id]).fetchone()[
            0
        ]
    )
