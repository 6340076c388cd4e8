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
#: The ``resolution`` of a row that withdraws the annotator's previous resolution (undo).
WITHDRAWN = "withdrawn"
#: SQL condition on alias ``t``: the row is a resolution, not a withdrawal.
NOT_WITHDRAWN = f"t.resolution != '{WITHDRAWN}'"


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
    who = labellers(db, "dispute_resolutions", "dispute_id", NOT_WITHDRAWN)
    return team_queue(
        dispute_ids, who, annotator, k=k, seed=queue_seed(db), calibration=calibration_size(db)
    )


def dispute_progress(db: sqlite_utils.Database, annotator: str, dispute_ids: list[int]) -> Progress:
    """How many of ``dispute_ids`` this annotator has resolved."""
    who = labellers(db, "dispute_resolutions", "dispute_id", NOT_WITHDRAWN)
    return progress_of(dispute_ids, who, annotator)


def withdraw_last_resolution(db: sqlite_utils.Database, who: Annotator) -> int | None:
    """Undo: withdraw the signed-in ``who``'s latest effective resolution. Never deletes: appends
    a row with ``resolution='withdrawn'`` superseding it, so the dispute returns to the queue.
    Returns the new row's id, or None when there is nothing to undo."""
    with transaction(db):
        annotator = authorise(db, who).name
        last = db.execute(
            "select id, dispute_id from dispute_resolutions t where annotator = ? and "
            f"{NOT_WITHDRAWN} and not exists (select 1 from dispute_resolutions s "
            "where s.supersedes = t.id) order by id desc limit 1",
            [annotator],
        ).fetchone()
        if last is None:
            return None
        return int(
            db["dispute_resolutions"]
            .insert(
                {
                    "dispute_id": last[1],
                    "annotator": annotator,
                    "resolution": WITHDRAWN,
                    "corrected_answer": None,
                    "note": "undo",
                    "supersedes": last[0],
                    "created_at": utcnow(),
                }
            )
            .last_pk
        )
