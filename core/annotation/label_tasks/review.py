"""Task ``review``: people accept, reject or edit generated questions (:mod:`core.annotation.reviews`).

An item is a question id; the label is the review's decision. A settled review decides the
question's status (:func:`core.annotation.reviews.settle_status`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from core.annotation.base import Progress
from core.annotation.label_task import (
    HumanLabel,
    ItemFields,
    ItemKey,
    TaskDefaults,
    human_label_rows,
    register,
)
from core.annotation.reviews import (
    REVIEW_DECISIONS,
    REVIEW_TASK,
    review_progress,
    review_queue,
    settle_status,
)
from core.store.questions import all_question_ids
from core.store.reviews import Review, effective_reviews, skipped_reviews

if TYPE_CHECKING:
    from core.store.engine import Database


class ReviewTask(TaskDefaults):
    """Question reviews: items are question ids, labels :data:`REVIEW_DECISIONS`."""

    name = REVIEW_TASK
    labels = REVIEW_DECISIONS
    position = 10

    def items(self, db: Database) -> list[ItemKey]:
        """Every question id."""
        return list[ItemKey](all_question_ids(db))

    def queue(self, db: Database, annotator: str, items: list[ItemKey]) -> list[ItemKey]:
        """:func:`core.annotation.reviews.review_queue`."""
        return list[ItemKey](review_queue(db, annotator, [str(i) for i in items]))

    def progress(
        self, db: Database, annotator: str, items: list[ItemKey], queue: list[ItemKey]
    ) -> Progress:
        """:func:`core.annotation.reviews.review_progress`."""
        ids = [str(i) for i in items]
        return review_progress(db, annotator, ids, [str(i) for i in queue])

    def human_labels(self, db: Database) -> list[HumanLabel]:
        """Effective reviews (label: the decision) and skips, by row id; the store's readers
        leave withdrawals (undo) out."""
        found: list[tuple[Review, str | None, str]] = [
            (r, r.decision, "ok") for r in effective_reviews(db)
        ]
        found += [(r, None, "skipped") for r in skipped_reviews(db)]
        found.sort(key=lambda f: f[0].id)
        return human_label_rows(
            (r.question_id, label, status, r.question_id, r.annotator, r.note, r.created_at)
            for r, label, status in found
        )

    def item_fields(self, db: Database, keys: Sequence[ItemKey]) -> list[ItemFields]:
        """The item is the question."""
        return [{"question_id": str(key)} for key in keys]

    def after_settlement(self, db: Database, item: str) -> None:
        """The settled decision becomes the question's status."""
        settle_status(db, item)


REVIEW = register(ReviewTask())
