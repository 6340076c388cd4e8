"""Resolutions of NarrativeQA ground-truth disputes: the write path, the queue, progress."""

from __future__ import annotations

import sqlite_utils

from core.annotation.base import (
    Progress,
    calibration_size,
    labellers,
    own_latest,
    progress_of,
    queue_seed,
    required_annotations,
    team_queue,
)
from core.annotation.identity import Annotator, authorise
from core.errors import InputError
from core.store.connection import transaction, utcnow

RESOLUTIONS = ("reference_wrong", "model_wrong", "both_acceptable", "ambiguous")


def resolve_dispute(
    db: sqlite_utils.Database,
    dispute_id: int,
    who: Annotator,
    resolution: str,
    *,
    corrected_answer: str | None = None,
    note: str = "",
) -> int:
    """Append a resolution of a ground-truth dispute (superseding this annotator's previous one).

    ``reference_wrong`` should come with the corrected reference answer. Stored under the
    signed-in ``who`` (:func:`core.annotation.identity.authorise`).
    """
    if not resolution:
        raise InputError("choose a resolution first; nothing was stored")
    if resolution not in RESOLUTIONS:
        raise InputError(f"resolution must be one of {', '.join(RESOLUTIONS)}")
    with transaction(db):
        annotator = authorise(db, who).name
        if not db.execute("select 1 from disputes where id = ?", [dispute_id]).fetchone():
            raise InputError(f"unknown dispute {dispute_id}")
        old = own_latest(
            db, "dispute_resolutions", "t.dispute_id = ?", [dispute_id], "annotator", annotator
        )
        new_id = (
            db["dispute_resolutions"]
            .insert(
                {
                    "dispute_id": dispute_id,
                    "annotator": annotator,
                    "resolution": resolution,
                    "corrected_answer": (corrected_answer or "").strip() or None,
                    "note": note or "",
                    "supersedes": old["id"] if old else None,
                    "created_at": utcnow(),
                }
            )
            .last_pk
        )
    return int(new_id)


def dispute_queue(
    db: sqlite_utils.Database, annotator: str, dispute_ids: list[int], k: int | None = None
) -> list[int]:
    """Of ``dispute_ids``, those ``annotator`` (a name) has not resolved that still need a
    resolution, in the order of :func:`core.annotation.base.team_queue`."""
    k = k or required_annotations(db)
    who = labellers(db, "dispute_resolutions", "dispute_id")
    return team_queue(
        dispute_ids, who, annotator, k=k, seed=queue_seed(db), calibration=calibration_size(db)
    )


def dispute_progress(db: sqlite_utils.Database, annotator: str, dispute_ids: list[int]) -> Progress:
    """How many of ``dispute_ids`` this annotator has resolved."""
    return progress_of(dispute_ids, labellers(db, "dispute_resolutions", "dispute_id"), annotator)
