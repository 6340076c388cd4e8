"""What the NarrativeQA disputes page shows: one dispute with both raters' evidence, the tally of
resolutions, and the corrected reference answers."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NotRequired, TypedDict

import pandas as pd

from core.annotation.disputes import RESOLUTIONS, dispute_items, group_disputes, same_answer
from core.pipeline.grounding import list_disputes
from core.stats.significance import wilson_ci
from core.store.answers import get_answer
from core.store.disputes import get_dispute, question_dispute_answers
from core.store.judgments import get_judgment
from core.store.questions import get_question
from core.store.resolutions import DisputeResolution, effective_resolutions
from core.views.review_records import QuestionRecord, question_record
from core.views.row_records import DisputeRow, ResolutionRow, dispute_row, resolution_row

if TYPE_CHECKING:
    from core.store.engine import Database

RESOLUTION_LABELS = {
    "reference_wrong": "Reference answer wrong",
    "model_wrong": "Model answer wrong",
    "both_acceptable": "Both acceptable",
    "ambiguous": "Question ambiguous",
}


class GroupMember(TypedDict):
    """A dispute of a group: the systems that gave the same answer text (:func:`dispute_groups`)."""

    id: int
    system: str


def dispute_groups(db: Database) -> dict[int, list[GroupMember]]:
    """One dispute per (question, answer text): the lowest dispute id of each group -> every
    dispute of the group ``{id, system}`` (:func:`core.annotation.disputes.group_disputes`)."""
    return {
        first: [{"id": int(m["id"]), "system": str(m["system"])} for m in members]
        for first, members in group_disputes(list_disputes(db)).items()
    }


def dispute_ids(db: Database) -> list[int]:
    """One dispute id per (question, answer text) where the ground-truth rater and the context
    rater disagree (:func:`core.annotation.disputes.dispute_items`)."""
    return dispute_items(db)


def dispute_choices(db: Database) -> dict[int, str]:
    """Dispute id -> a picker label with the question text (not a bare id)."""
    out: dict[int, str] = {}
    for d in list_disputes(db):
        out.setdefault(int(d["id"]), f"{d['question']} ({d['question_id']})")
    return {i: out[i] for i in dispute_ids(db)}


class JudgmentShown(TypedDict):
    """One rater's judgment beside a dispute."""

    id: int
    rater: str
    verdict: str | None
    status: str
    evidence: list[dict[str, Any]]  # the stored evidence quotes (JSON), as stored
    rationale: str
    raw: str  # the reply as received
    context_kind: str


class AnswerShown(TypedDict):
    """The disputed model answer (``id`` left out when the answer row is gone)."""

    id: NotRequired[int]
    system: str
    text: str


def _judgment(db: Database, jid: int) -> JudgmentShown | None:
    j = get_judgment(db, jid)
    if j is None:
        return None
    return {
        "id": j.id,
        "rater": j.rater,
        "verdict": j.verdict,
        "status": j.status,
        "evidence": j.evidence,
        "rationale": j.rationale,
        "raw": j.raw,
        "context_kind": j.context_kind,
    }


class DisputeDetail(TypedDict):
    """One dispute as its page shows it (:func:`dispute_detail`)."""

    dispute: DisputeRow
    question: QuestionRecord
    references: list[str]  # the reference answers
    answer: AnswerShown
    gt: JudgmentShown | None  # the judgment against the references
    ctx: JudgmentShown | None  # the judgment against the context
    resolutions: list[ResolutionRow]  # the effective resolutions
    systems: list[str]  # the systems that gave this answer text


def dispute_detail(db: Database, dispute_id: int) -> DisputeDetail | None:
    """Question, reference answers, model answer, both raters' verdicts with evidence, and the
    effective resolutions."""
    d = get_dispute(db, dispute_id)
    if d is None:
        return None
    found = get_question(db, d.question_id)
    if found is None:  # gone since (the data replaced): as a dispute that is gone
        return None
    q = question_record(found)
    stored = get_answer(db, d.answer_id)
    answer: AnswerShown | None = (
        {"id": stored.id, "system": stored.system, "text": stored.text} if stored else None
    )
    text = same_answer(stored.text) if stored else None
    systems = sorted(
        {
            system
            for system, answer_text in question_dispute_answers(db, d.question_id)
            if same_answer(answer_text) == text
        }
        or {d.system}
    )
    resolutions = [resolution_row(r) for r in effective_resolutions(db, dispute_id=dispute_id)]
    return {
        "dispute": dispute_row(d),
        "question": q,
        "references": q.get("answers") or [],
        "answer": answer or {"text": "", "system": d.system},
        "gt": _judgment(db, d.gt_judgment_id),
        "ctx": _judgment(db, d.ctx_judgment_id),
        "resolutions": resolutions,
        "systems": systems,
    }


class DisputeTally(TypedDict):
    """The resolutions' tally (:func:`dispute_tally`); no share and no interval without one."""

    n_disputes: int
    n_resolutions: int
    counts: dict[str, int]  # resolution -> how often chosen
    reference_wrong_share: float | None
    ci: tuple[float, float, float] | None  # (low, high, level) of the share


def dispute_tally(db: Database) -> DisputeTally:
    """How often each resolution was chosen over the effective resolutions (one per annotator and
    dispute), and the share where the reference answer was wrong with a 95% Wilson interval."""
    res = effective_resolutions(db)
    counts: dict[str, int] = {k: 0 for k in RESOLUTIONS}
    for r in res:
        counts[r.resolution] += 1
    n = len(res)
    out: DisputeTally = {
        "n_disputes": len(dispute_ids(db)),
        "n_resolutions": n,
        "counts": counts,
        "reference_wrong_share": None,
        "ci": None,
    }
    if n:
        ci = wilson_ci(counts["reference_wrong"], n)
        out["reference_wrong_share"] = counts["reference_wrong"] / n
        out["ci"] = (float(ci.low), float(ci.high), float(ci.level))
    return out


def corrected_references(db: Database) -> pd.DataFrame:
    """The corrected reference answers (resolutions ``reference_wrong`` with a correction)."""
    out = [
        {
            "question_id": r.question_id,
            "question": r.question,
            "original_answers": r.answers,
            "corrected_answer": r.corrected_answer,
            "annotator": r.annotator,
            "note": r.note,
            "created_at": r.created_at,
        }
        for r in effective_resolutions(db)
        if r.resolution == DisputeResolution.REFERENCE_WRONG and r.corrected_answer
    ]
    return pd.DataFrame(
        out,
        columns=[
            "question_id",
            "question",
            "original_answers",
            "corrected_answer",
            "annotator",
            "note",
            "created_at",
        ],
    )
