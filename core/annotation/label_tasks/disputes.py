"""Task ``disputes``: people resolve NarrativeQA ground-truth disputes (:mod:`core.annotation.disputes`).

An item is a dispute id, one per (question, answer text); the label is the resolution.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from core.annotation.base import Progress
from core.annotation.disputes import (
    DISPUTES_TASK,
    RESOLUTIONS,
    dispute_items,
    dispute_progress,
    dispute_queue,
)
from core.annotation.label_task import (
    HumanLabel,
    ItemFields,
    ItemKey,
    TaskDefaults,
    human_label_rows,
    register,
)
from core.store.answers import get_answer
from core.store.disputes import dispute_question_ids, get_dispute
from core.store.resolutions import Resolution, effective_resolutions, skipped_resolutions

if TYPE_CHECKING:
    from core.store.engine import Database


class DisputesTask(TaskDefaults):
    """Dispute resolutions: items are dispute ids, labels :data:`RESOLUTIONS`."""

    name = DISPUTES_TASK
    labels = RESOLUTIONS
    position = 20

    def items(self, db: Database) -> list[ItemKey]:
        """One dispute id per (question, answer text): what people resolve."""
        return list[ItemKey](dispute_items(db))

    def queue(self, db: Database, annotator: str, items: list[ItemKey]) -> list[ItemKey]:
        """:func:`core.annotation.disputes.dispute_queue`."""
        return list[ItemKey](dispute_queue(db, annotator, [int(i) for i in items]))

    def progress(
        self, db: Database, annotator: str, items: list[ItemKey], queue: list[ItemKey]
    ) -> Progress:
        """:func:`core.annotation.disputes.dispute_progress`."""
        ids = [int(i) for i in items]
        return dispute_progress(db, annotator, ids, [int(i) for i in queue])

    def human_labels(self, db: Database) -> list[HumanLabel]:
        """Effective resolutions (label: the resolution) and skips, by row id; the store's
        readers leave withdrawals (undo) out."""
        found: list[tuple[Resolution, str | None, str, str]] = [
            (r, r.resolution, "ok", r.question_id) for r in effective_resolutions(db)
        ]
        found += [(r, None, "skipped", qid) for r, qid in skipped_resolutions(db)]
        found.sort(key=lambda f: f[0].id)
        return human_label_rows(
            (str(r.dispute_id), label, status, qid, r.annotator, r.note, r.created_at)
            for r, label, status, qid in found
        )

    def item_fields(self, db: Database, keys: Sequence[ItemKey]) -> list[ItemFields]:
        """The dispute's question."""
        question_of = dispute_question_ids(db, [int(key) for key in keys])
        return [{"question_id": question_of.get(int(key), str(key))} for key in keys]

    def places(self, db: Database, items: Sequence[str]) -> dict[str, str]:
        """ "dispute ID"."""
        return {item: f"dispute {item}" for item in items}

    def texts(self, db: Database, item: str, question_id: str) -> list[tuple[str, str]]:
        """The reference answers and the disputed model answer."""
        texts = super().texts(db, item, question_id)
        dispute = get_dispute(db, int(item))
        answer = get_answer(db, dispute.answer_id) if dispute else None
        texts.append(("Model answer", answer.text if answer else ""))
        return texts


DISPUTES = register(DisputesTask())
