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

from typing import TYPE_CHECKING, Any

from core.store.connection import rows
from core.store.label_rows import SKIPPED, WITHDRAWN, label_marks, last_row, own_row
from core.store.schema import not_superseded

if TYPE_CHECKING:
    from core.store.engine import Database


#: Rows of alias ``r`` that are reviews (not skips, not withdrawals).
_REVIEW = f"r.decision not in ('{SKIPPED}', '{WITHDRAWN}')"
#: Effective rows of alias ``r`` that are reviews.
_OPEN = f"{not_superseded('reviews', 'r')} and {_REVIEW}"


def insert_review(db: Database, row: dict[str, Any]) -> int:
    """Append one review row (``checklist`` already JSON text); returns its id."""
    return int(db.table("reviews").insert(row).last_pk or 0)


def effective_reviews(
    db: Database, question_id: str | None = None, *, origin: str | None = None
) -> list[dict[str, Any]]:
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
    return rows(db, f"select r.* from reviews r where {' and '.join(where)} order by r.id", params)


def question_reviews(db: Database, question_id: str) -> list[dict[str, Any]]:
    """The reviews of a question, superseded ones too (the history), by id: skips,
    withdrawals and the reviews withdrawn by an undo left out (a withdrawn review is no label)."""
    return rows(
        db,
        f"select * from reviews r where r.question_id = ? and {_REVIEW} and not exists "
        f"(select 1 from reviews s where s.supersedes = r.id and s.decision = '{WITHDRAWN}') "
        "order by r.id",
        [question_id],
    )


def own_review(db: Database, question_id: str, annotator: str) -> dict[str, Any] | None:
    """``annotator``'s effective row on a question (a skip or a withdrawal too): the row their
    next one supersedes; None when they have none."""
    return own_row(db, "reviews", question_id, annotator)


def last_review(db: Database, annotator: str) -> dict[str, Any] | None:
    """``annotator``'s latest effective review or skip (withdrawals left out): what an undo
    takes back; None when there is none."""
    return last_row(db, "reviews", annotator)


def skipped_reviews(db: Database) -> list[dict[str, Any]]:
    """Every effective skip (a row with decision ``skipped`` no later row supersedes), oldest
    first."""
    return rows(
        db,
        f"select * from reviews r where {not_superseded('reviews', 'r')} "
        f"and r.decision = '{SKIPPED}' order by r.id",
    )


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
