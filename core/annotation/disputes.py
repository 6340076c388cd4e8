"""Resolutions of NarrativeQA ground-truth disputes: the write path, skips, undo, the queue,
progress.

A skip is a row with resolution ``skipped`` (the dispute goes to the end of the annotator's
queue, not counted as done); an undo a row with resolution ``withdrawn`` superseding the
annotator's latest resolution or skip. Neither is a resolution: every reader of resolutions
(:mod:`core.store.resolutions`) leaves them out."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from core.annotation.attention import mix_attention
from core.annotation.base import (
    UNCHECKED,
    Progress,
    Withdrawal,
    calibration_size,
    marker_text,
    personal_order,
    queue_progress,
    queue_seed,
    refuse_stale,
    required_annotations,
    team_names,
    team_only,
    team_queue,
)
from core.annotation.identity import Annotator, authorise
from core.annotation.task_names import TaskName
from core.errors import InputError
from core.store.connection import retry_when_busy, transaction
from core.store.disputes import dispute_records, get_dispute
from core.store.resolutions import (
    DisputeResolution,
    NewResolution,
    Resolution,
    insert_resolution,
    last_resolution,
    own_resolution,
    resolution_marks,
)
from core.store.row_locks import hold_item, hold_label, hold_person

if TYPE_CHECKING:
    from core.store.engine import Database

RESOLUTIONS = tuple(
    r
    for r in DisputeResolution
    if r not in (DisputeResolution.SKIPPED, DisputeResolution.WITHDRAWN)
)
#: The name of this task (:mod:`core.annotation.label_tasks.disputes`).
DISPUTES_TASK = TaskName.DISPUTES.value


def same_answer(text: str | None) -> str:
    """An answer text compared up to case and runs of whitespace."""
    return " ".join((text or "").split()).casefold()


def group_disputes(records: list[dict[str, Any]]) -> dict[int, list[dict[str, Any]]]:
    """One item per (question, answer text): the lowest dispute id of each group (``records``:
    ``id``, ``question_id``, ``system``, ``answer``, by id) -> every dispute of the group
    ``{id, system}`` (the systems that gave that same answer). The item is what people resolve,
    what the queues, progress, ``disputes --open`` and the Overview count."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for d in sorted(records, key=lambda r: int(r["id"])):
        key = (d["question_id"], same_answer(d["answer"]))
        groups.setdefault(key, []).append({"id": int(d["id"]), "system": d["system"]})
    return {members[0]["id"]: members for members in groups.values()}


def dispute_items(db: Database) -> list[int]:
    """The disputes people resolve: one id per (question, answer text) (:func:`group_disputes`),
    ascending."""
    found = [
        {"id": d.id, "question_id": d.question_id, "system": d.system, "answer": d.answer}
        for d in dispute_records(db)
    ]
    return sorted(group_disputes(found))


@retry_when_busy
def resolve_dispute(
    db: Database,
    dispute_id: int,
    who: Annotator,
    resolution: str,
    *,
    corrected_answer: str | None = None,
    note: str = "",
    expected_last_id: int | None = UNCHECKED,
) -> int:
    """Append a resolution of a ground-truth dispute (superseding this annotator's previous one).

    ``reference_wrong`` should come with the corrected reference answer. Stored under the
    signed-in ``who`` (:func:`core.annotation.identity.authorise`). ``expected_last_id``: the id
    of ``who``'s own row on the dispute (resolution, skip or undo; None: none) when the page
    loaded it (:func:`own_resolution_id`); when it changed since (another tab or window),
    nothing is stored and :class:`core.annotation.base.StaleLabelError` says what is stored now.
    """
    if not resolution:
        raise InputError("choose a resolution first; nothing was stored")
    if resolution not in RESOLUTIONS:
        raise InputError(f"resolution must be one of {', '.join(RESOLUTIONS)}")
    with transaction(db):
        annotator = authorise(db, who).name
        hold_label(db, DISPUTES_TASK, annotator, dispute_id)  # core.store.row_locks
        if get_dispute(db, dispute_id) is None:
            raise InputError(f"unknown dispute {dispute_id}")
        old = own_resolution(db, dispute_id, annotator)
        refuse_stale(expected_last_id, old.id if old else None, _stored(old))
        new_id = insert_resolution(
            db,
            NewResolution(
                dispute_id=dispute_id,
                annotator=annotator,
                resolution=DisputeResolution(resolution),
                corrected_answer=(corrected_answer or "").strip() or None,
                note=note or "",
                supersedes=old.id if old else None,
            ),
        )
    return new_id


def own_resolution_id(db: Database, dispute_id: int, annotator: str) -> int | None:
    """The id of ``annotator``'s (a name) own effective row on the dispute (a resolution, a
    skip or an undo), None when they have none: what a page passes back as
    ``expected_last_id``."""
    old = own_resolution(db, dispute_id, annotator)
    return old.id if old else None


def _stored(old: Resolution | None) -> str:
    """What an own row is, for a stale page's refusal (:func:`refuse_stale`)."""
    if old is None:
        return "no resolution"
    if old.resolution in RESOLUTIONS:
        return f"your resolution '{old.resolution.replace('_', ' ')}'"
    return marker_text(old.resolution)


def dispute_queue(
    db: Database, annotator: str, dispute_ids: list[int], k: int | None = None
) -> list[int]:
    """Of ``dispute_ids``, those ``annotator`` (a name) has not resolved that still need a
    resolution, in the order of :func:`core.annotation.base.team_queue`; the disputes they
    skipped come last (in the same order)."""
    k = k or required_annotations(db)
    marks = team_only(
        resolution_marks(db), team_names(db)
    )  # only the team's labels count towards k
    queue = team_queue(
        dispute_ids,
        marks["ok"],
        annotator,
        k=k,
        seed=queue_seed(db),
        calibration=calibration_size(db),
        personal=personal_order(db),
        skipped=marks["skipped"],
    )
    return mix_attention(db, DISPUTES_TASK, annotator, queue, dispute_ids, marks)


def dispute_progress(
    db: Database,
    annotator: str,
    dispute_ids: list[int],
    queue: list[int] | None = None,
) -> Progress:
    """This annotator's progress on their own dispute queue
    (:func:`core.annotation.base.queue_progress`; ``queue``: their :func:`dispute_queue`,
    computed when not given)."""
    queue = dispute_queue(db, annotator, dispute_ids) if queue is None else queue
    return queue_progress(dispute_ids, resolution_marks(db), annotator, queue)


@retry_when_busy
def skip_dispute(
    db: Database,
    dispute_id: int,
    who: Annotator,
    *,
    expected_last_id: int | None = UNCHECKED,
) -> int:
    """Record that the signed-in ``who`` skipped the dispute: a row with resolution
    ``skipped`` superseding their previous row on it (``expected_last_id`` as in
    :func:`resolve_dispute`). Returns the new row's id."""
    with transaction(db):
        annotator = authorise(db, who).name
        hold_label(db, DISPUTES_TASK, annotator, dispute_id)  # core.store.row_locks
        if get_dispute(db, dispute_id) is None:
            raise InputError(f"unknown dispute {dispute_id}")
        old = own_resolution(db, dispute_id, annotator)
        refuse_stale(expected_last_id, old.id if old else None, _stored(old))
        return insert_resolution(
            db,
            NewResolution(
                dispute_id=dispute_id,
                annotator=annotator,
                resolution=DisputeResolution.SKIPPED,
                supersedes=old.id if old else None,
            ),
        )


@retry_when_busy
def withdraw_last_resolution(db: Database, who: Annotator) -> Withdrawal | None:
    """Undo: withdraw the signed-in ``who``'s latest effective resolution or skip. Never
    deletes: appends a row with ``resolution='withdrawn'`` superseding it, so the dispute returns
    to the queue. Returns what was withdrawn (``item``: the dispute id), or None when there is
    nothing to undo."""
    with transaction(db):
        annotator = authorise(db, who).name
        hold_person(db, DISPUTES_TASK, annotator)  # the latest row stays the latest until commit
        last = last_resolution(db, annotator)
        if last is None:
            return None
        hold_item(db, DISPUTES_TASK, last.dispute_id)
        new_id = insert_resolution(
            db,
            NewResolution(
                dispute_id=last.dispute_id,
                annotator=annotator,
                resolution=DisputeResolution.WITHDRAWN,
                note="undo",
                supersedes=last.id,
            ),
        )
    return Withdrawal(new_id, last.dispute_id, last.resolution)
