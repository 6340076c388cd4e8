"""The store's row records as the views hand them to pages (issue 33): one TypedDict per store
record (:mod:`core.store.judgments`, :mod:`core.store.reviews`, ...) with the same columns, enums
as their text, built by the ``*_row`` functions here. A page reads typed keys (and a table of
them is :func:`core.views.browse_list.table_rows`), never the store's record itself."""

from __future__ import annotations

from copy import deepcopy
from typing import TYPE_CHECKING, Any, TypedDict

if TYPE_CHECKING:
    from core.store.adjudications import Adjudication
    from core.store.disputes import Dispute
    from core.store.entities import Entity
    from core.store.judgments import Judgment
    from core.store.resolutions import Resolution, ResolvedDispute
    from core.store.reviews import Review


class JudgmentRow(TypedDict):
    """A stored judgment (:class:`core.store.judgments.Judgment`) and whether a later row of
    the same rater and item superseded it."""

    id: int
    kind: str
    question_id: str
    rater: str
    rater_kind: str
    criterion: str
    system: str | None
    answer_id: int | None
    system_a: str | None
    system_b: str | None
    answer_a_id: int | None
    answer_b_id: int | None
    order_shown: str
    verdict: str | None
    status: str
    evidence: list[dict[str, Any]]  # the stored evidence quotes (JSON), as stored
    rationale: str
    raw: str
    prompt_hash: str
    context_kind: str
    run_id: str | None
    supersedes: int | None
    created_at: str
    superseded: bool


def judgment_row(j: Judgment, superseded: bool = False) -> JudgmentRow:
    """``j`` as a row (its evidence a copy: a page may not change the stored record)."""
    return {
        "id": j.id,
        "kind": str(j.kind),
        "question_id": j.question_id,
        "rater": j.rater,
        "rater_kind": str(j.rater_kind),
        "criterion": j.criterion,
        "system": j.system,
        "answer_id": j.answer_id,
        "system_a": j.system_a,
        "system_b": j.system_b,
        "answer_a_id": j.answer_a_id,
        "answer_b_id": j.answer_b_id,
        "order_shown": j.order_shown,
        "verdict": None if j.verdict is None else str(j.verdict),
        "status": str(j.status),
        "evidence": deepcopy(j.evidence),
        "rationale": j.rationale,
        "raw": j.raw,
        "prompt_hash": j.prompt_hash,
        "context_kind": j.context_kind,
        "run_id": j.run_id,
        "supersedes": j.supersedes,
        "created_at": j.created_at,
        "superseded": superseded,
    }


class ReviewRow(TypedDict):
    """A stored review (:class:`core.store.reviews.Review`)."""

    id: int
    question_id: str
    annotator: str
    decision: str
    checklist: dict[str, Any]  # checklist item -> the answer chosen, as stored (JSON)
    edited_question: str | None
    edited_answer: str | None
    note: str
    supersedes: int | None
    created_at: str


def review_row(r: Review) -> ReviewRow:
    """``r`` as a row (its checklist a copy)."""
    return {
        "id": r.id,
        "question_id": r.question_id,
        "annotator": r.annotator,
        "decision": str(r.decision),
        "checklist": deepcopy(r.checklist),
        "edited_question": r.edited_question,
        "edited_answer": r.edited_answer,
        "note": r.note,
        "supersedes": r.supersedes,
        "created_at": r.created_at,
    }


class DisputeRow(TypedDict):
    """A stored dispute (:class:`core.store.disputes.Dispute`)."""

    id: int
    question_id: str
    answer_id: int
    system: str
    gt_judgment_id: int
    ctx_judgment_id: int
    gt_verdict: str
    ctx_verdict: str
    run_id: str | None
    created_at: str


def dispute_row(d: Dispute) -> DisputeRow:
    """``d`` as a row."""
    return {
        "id": d.id,
        "question_id": d.question_id,
        "answer_id": d.answer_id,
        "system": d.system,
        "gt_judgment_id": d.gt_judgment_id,
        "ctx_judgment_id": d.ctx_judgment_id,
        "gt_verdict": d.gt_verdict,
        "ctx_verdict": d.ctx_verdict,
        "run_id": d.run_id,
        "created_at": d.created_at,
    }


class ResolutionRow(TypedDict):
    """A stored dispute resolution (:class:`core.store.resolutions.Resolution`)."""

    id: int
    dispute_id: int
    annotator: str
    resolution: str
    corrected_answer: str | None
    note: str
    supersedes: int | None
    created_at: str


def resolution_row(r: Resolution) -> ResolutionRow:
    """``r`` as a row."""
    return {
        "id": r.id,
        "dispute_id": r.dispute_id,
        "annotator": r.annotator,
        "resolution": str(r.resolution),
        "corrected_answer": r.corrected_answer,
        "note": r.note,
        "supersedes": r.supersedes,
        "created_at": r.created_at,
    }


class ResolvedRow(TypedDict):
    """An effective resolution with its dispute's system (the columns Browse shows)."""

    id: int
    dispute_id: int
    system: str
    annotator: str
    resolution: str
    corrected_answer: str | None
    note: str
    created_at: str


def resolved_row(r: ResolvedDispute) -> ResolvedRow:
    """``r`` as Browse's row."""
    return {
        "id": r.id,
        "dispute_id": r.dispute_id,
        "system": r.system,
        "annotator": r.annotator,
        "resolution": str(r.resolution),
        "corrected_answer": r.corrected_answer,
        "note": r.note,
        "created_at": r.created_at,
    }


class EntityRow(TypedDict):
    """A stored entity (:class:`core.store.entities.Entity`)."""

    id: int
    document_id: str
    name: str
    aliases: list[str]
    label: str
    n_mentions: int
    rank: int
    method: str
    run_id: str | None


def entity_row(e: Entity) -> EntityRow:
    """``e`` as a row (its aliases a copy)."""
    return {
        "id": e.id,
        "document_id": e.document_id,
        "name": e.name,
        "aliases": list(e.aliases),
        "label": e.label,
        "n_mentions": e.n_mentions,
        "rank": e.rank,
        "method": e.method,
        "run_id": e.run_id,
    }


class AdjudicationRow(TypedDict):
    """A stored adjudication (:class:`core.store.adjudications.Adjudication`): the settled
    label of an item."""

    id: int
    task: str
    item_key: str
    label: str
    adjudicator: str
    rationale: str
    supersedes: int | None
    created_at: str


def adjudication_row(a: Adjudication) -> AdjudicationRow:
    """``a`` as a row."""
    return {
        "id": a.id,
        "task": a.task,
        "item_key": a.item_key,
        "label": a.label,
        "adjudicator": a.adjudicator,
        "rationale": a.rationale,
        "supersedes": a.supersedes,
        "created_at": a.created_at,
    }
