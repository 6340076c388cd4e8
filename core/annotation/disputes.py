"""Resolutions of NarrativeQA ground-truth disputes: the write path, skips, undo, the queue,
progress.

A skip is a row with resolution ``skipped`` (the dispute goes to the end of the annotator's
queue, not counted as done); an undo a row with resolution ``withdrawn`` superseding the
annotator's latest resolution or skip. Neither is a resolution: every reader of resolutions
(:mod:`core.store.resolutions`) leaves them out."""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.annotation.base import (
    Progress,
    Withdrawal,
    calibration_size,
    progress_of,
    queue_seed,
    required_annotations,
    team_names,
    team_only,
    team_queue,
)
from core.annotation.identity import Annotator, authorise
from core.errors import InputError
from core.store.connection import retry_when_busy, transaction, utcnow
from core.store.disputes import get_dispute
from core.store.resolutions import (
    SKIPPED,
    WITHDRAWN,
    insert_resolution,
    last_resolution,
    own_resolution,
    resolution_marks,
)

if TYPE_CHECKING:  # sqlite_utils imports pandas: loaded only when a database is opened
    import sqlite_utils

RESOLUTIONS = ("reference_wrong", "model_wrong", "both_acceptable", "ambiguous")


@retry_when_busy
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
        if get_dispute(db, dispute_id) is None:
            raise InputError(f"unknown dispute {dispute_id}")
        old = own_resolution(db, dispute_id, annotator)
        new_id = insert_resolution(
            db,
            {
                "dispute_id": dispute_id,
                "annotator": annotator,
                "resolution": resolution,
                "corrected_answer": (corrected_answer or "").strip() or None,
                "note": note or "",
                "supersedes": old["id"] if old else None,
                "created_at": utcnow(),
            },
        )
    return new_id


def dispute_queue(
    db: sqlite_utils.Database, annotator: str, dispute_ids: list[int], k: int | None = None
) -> list[int]:
    """Of ``dispute_ids``, those ``annotator`` (a name) has not resolved that still need a
    resolution, in the order of :func:`core.annotation.base.team_queue`; the disputes they
    skipped come last (in the same order)."""
    k = k or required_annotations(db)
    marks = team_only(
        resolution_marks(db), team_names(db)
    )  # only the team's labels count towards k
    return team_queue(
        dispute_ids,
        marks["ok"],
        annotator,
        k=k,
        seed=queue_seed(db),
        calibration=calibration_size(db),
        skipped=marks["skipped"],
    )


def dispute_progress(db: sqlite_utils.Database, annotator: str, dispute_ids: list[int]) -> Progress:
    """How many of ``dispute_ids`` this annotator has resolved (``done``) and has skipped
    (``skipped``; a skip is not counted as done)."""
    return progress_of(dispute_ids, resolution_marks(db), annotator)


@retry_when_busy
def skip_dispute(db: sqlite_utils.Database, dispute_id: int, who: Annotator) -> int:
    """Record that the signed-in ``who`` skipped the dispute: a row with resolution
    ``skipped`` superseding their previous row on it. Returns the new row's id."""
    with transaction(db):
        annotator = authorise(db, who).name
        if get_dispute(db, dispute_id) is None:
            raise InputError(f"unknown dispute {dispute_id}")
        old = own_resolution(db, dispute_id, annotator)
        return insert_resolution(
            db,
            {
                "dispute_id": dispute_id,
                "annotator": annotator,
                "resolution": SKIPPED,
                "corrected_answer": None,
                "note": "",
                "supersedes": old["id"] if old else None,
                "created_at": utcnow(),
            },
        )


@retry_when_busy
def withdraw_last_resolution(db: sqlite_utils.Database, who: Annotator) -> Withdrawal | None:
    """Undo: withdraw the signed-in ``who``'s latest effective resolution or skip. Never
    deletes: appends a row with ``resolution='withdrawn'`` superseding it, so the dispute returns
    to the queue. Returns what was withdrawn (``item``: the dispute id), or None when there is
    nothing to undo."""
    with transaction(db):
        annotator = authorise(db, who).name
        last = last_resolution(db, annotator)
        if last is None:
            return None
        new_id = insert_resolution(
            db,
            {
                "dispute_id": last["dispute_id"],
                "annotator": annotator,
                "resolution": WITHDRAWN,
                "corrected_answer": None,
                "note": "undo",
                "supersedes": last["id"],
                "created_at": utcnow(),
            },
        )
    return Withdrawal(new_id, int(last["dispute_id"]), last["resolution"])
