"""Question reviews: the one write path (:func:`record_review`), skips (:func:`skip_review`),
undo (:func:`withdraw_last_review`), the queue, progress (the effective reviews are read by
:func:`core.store.reviews.effective_reviews`).

A skip is a row with decision ``skipped``; an undo a row with decision ``withdrawn``
superseding the annotator's latest review or skip. Neither is a review: the question's status,
agreement, exports and gold see only reviews. A skipped question stays in the annotator's
queue, at its end, and is not counted as done."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from core.annotation import guideline as guideline
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
from core.store.adjudications import item_adjudication
from core.store.connection import retry_when_busy, transaction, utcnow
from core.store.questions import (
    Question,
    QuestionOrigin,
    QuestionStatus,
    QuestionUpdate,
    child_questions,
    get_question,
    update_question,
)
from core.store.reviews import (
    NewReview,
    Review,
    ReviewDecision,
    effective_reviews,
    ever_reviewed,
    insert_review,
    last_review,
    own_review,
    review_marks,
)
from core.store.row_locks import hold_item, hold_label, hold_person

if TYPE_CHECKING:
    from core.store.engine import Database

REVIEW_DECISIONS = (ReviewDecision.ACCEPT, ReviewDecision.REJECT, ReviewDecision.EDIT)
#: The name of this task (:mod:`core.annotation.label_tasks.review`).
REVIEW_TASK = TaskName.REVIEW.value
#: A question's status while its reviews tie (e.g. one accept, one reject): adjudication settles it.
DISPUTED = QuestionStatus.DISPUTED
_STATUS_OF_DECISION = {
    "accept": QuestionStatus.ACCEPTED,
    "reject": QuestionStatus.REJECTED,
    "edit": QuestionStatus.EDITED,
}
#: Metadata key: the question's status before its first review (an undo of all returns to it).
_BEFORE = "status_before_review"
#: Metadata key of a translation: its status before its English question was discarded.
_BEFORE_DISCARD = "status_before_discard"


@dataclass(frozen=True)
class ReviewResult:
    """A stored review: its id, its decision, and the question's new status with the reason."""

    review_id: int
    decision: str
    status: str
    reason: str


@retry_when_busy
def record_review(
    db: Database,
    question_id: str,
    who: Annotator,
    checklist: dict[str, Any] | None = None,
    *,
    decision: str | None = None,
    edited_question: str | None = None,
    edited_answer: str | None = None,
    note: str = "",
    expected_last_id: int | None = UNCHECKED,
) -> ReviewResult:
    """The one write path of question reviews (the Review page, the XRAG review, scripts).

    The checklist is validated against :func:`core.annotation.guideline.checklist_fields` of the question
    (complete when ``decision`` is None and the decision is derived from it; it may be partial
    next to an explicit ``decision``) and stored as given, keyed by field name. An explicit
    ``decision`` (Accept / Reject / Save edit) is stored as chosen after
    :func:`core.annotation.guideline.decision_problem` (a refused decision raises InputError and writes
    nothing). The outcome follows :func:`core.annotation.guideline.review_outcome` (the Sufficient filter
    discards a cross-document question and its translations, whatever the decision). The
    question's ``status`` becomes ``discarded`` or the majority decision of the effective reviews
    (a tie: ``disputed``, until an adjudicator settles it; a settled decision is the status).
    Edits (decision ``edit`` only) of an XRAG question replace its text (the
    original kept in ``metadata``); other questions keep the edited texts in the review only.
    Appends one row under the signed-in ``who`` (:func:`core.annotation.identity.authorise`),
    superseding their previous review, all in one transaction. ``expected_last_id``: the id of
    ``who``'s own row on the question (review, skip or undo; None: none) when the page loaded it
    (:func:`own_review_id`); when it changed since (another tab or window), nothing is stored
    and :class:`core.annotation.base.StaleLabelError` says what is stored now.
    """
    if decision is not None and decision not in REVIEW_DECISIONS:
        raise InputError(f"decision must be one of {', '.join(REVIEW_DECISIONS)}")
    edited_question = (edited_question or "").strip() or None
    edited_answer = (edited_answer or "").strip() or None
    with transaction(db):
        annotator = authorise(db, who).name
        # the person's other tabs and every write on the question (its status follows all its
        # reviews and its adjudication) wait until this commits: core.store.row_locks
        hold_label(db, REVIEW_TASK, annotator, question_id)
        q = get_question(db, question_id)
        if q is None:
            raise InputError(f"unknown question {question_id!r}")
        c = guideline.validate_checklist(
            guideline.checklist_fields(q), checklist or {}, partial=decision is not None
        )
        mine = own_review(db, question_id, annotator)
        refuse_stale(expected_last_id, mine.id if mine else None, _stored(mine))
        others = [r for r in effective_reviews(db, question_id) if r.annotator != annotator]
        out = guideline.review_outcome(
            q, c, [r.checklist or {} for r in others], decision, edited_question, edited_answer
        )
        now = utcnow()
        first = not ever_reviewed(db, question_id)
        new_id = insert_review(
            db,
            NewReview(
                question_id=question_id,
                annotator=annotator,
                decision=ReviewDecision(out.decision),
                checklist=c,
                edited_question=out.edited_question,
                edited_answer=out.edited_answer,
                note=note or "",
                supersedes=mine.id if mine else None,
                created_at=now,
            ),
        )
        if out.discarded:
            status = QuestionStatus.DISCARDED
        else:
            status = _majority_status(
                [out.decision, *[r.decision for r in others]], _settled(db, question_id)
            )
        meta = dict(q.metadata, status_reason=out.reason)
        if status == DISPUTED:
            meta["status_reason"] = "the reviews tie: waiting for an adjudicator"
        if first:
            meta.setdefault(_BEFORE, str(q.status))  # what an undo of every review returns to
        changes: QuestionUpdate = {"status": status, "updated_at": now, "metadata": meta}
        if q.origin == QuestionOrigin.XRAG and out.edited_question:
            meta.setdefault("original_question", q.question)
            changes["question"] = out.edited_question
        if q.origin == QuestionOrigin.XRAG and out.edited_answer:
            meta.setdefault("original_answers", q.answers)
            changes["answers"] = [out.edited_answer]
        update_question(db, question_id, **changes)
        if status == QuestionStatus.DISCARDED:
            for child in child_questions(db, question_id):
                cm = dict(child.metadata, status_reason=f"English question discarded: {out.reason}")
                if child.status != QuestionStatus.DISCARDED:
                    cm[_BEFORE_DISCARD] = str(child.status)
                update_question(
                    db, child.id, status=QuestionStatus.DISCARDED, metadata=cm, updated_at=now
                )
    return ReviewResult(new_id, out.decision, status, out.reason)


@retry_when_busy
def skip_review(
    db: Database,
    question_id: str,
    who: Annotator,
    *,
    expected_last_id: int | None = UNCHECKED,
) -> int:
    """Record that the signed-in ``who`` skipped the question: a row with decision ``skipped``
    superseding their previous row on it (a review of theirs is taken back, the status
    recomputed). The question goes to the end of their queue; a skip is not counted as done.
    ``expected_last_id`` as in :func:`record_review`. Returns the new row's id."""
    with transaction(db):
        annotator = authorise(db, who).name
        hold_label(db, REVIEW_TASK, annotator, question_id)  # as in record_review
        q = get_question(db, question_id)
        if q is None:
            raise InputError(f"unknown question {question_id!r}")
        mine = own_review(db, question_id, annotator)
        refuse_stale(expected_last_id, mine.id if mine else None, _stored(mine))
        new_id = insert_review(db, _marker(question_id, annotator, ReviewDecision.SKIPPED, mine))
        if mine is not None and mine.decision in REVIEW_DECISIONS:
            _recompute_status(db, q)
    return new_id


@retry_when_busy
def withdraw_last_review(db: Database, who: Annotator) -> Withdrawal | None:
    """Undo: withdraw the signed-in ``who``'s latest effective review or skip. Never deletes:
    appends a row with decision ``withdrawn`` superseding it, so the question returns to the
    queue; a withdrawn review is no label anywhere and the question's status is recomputed from
    the remaining reviews (:func:`_recompute_status`). None when there is nothing to undo."""
    with transaction(db):
        annotator = authorise(db, who).name
        hold_person(db, REVIEW_TASK, annotator)  # the latest row stays the latest until commit
        last = last_review(db, annotator)
        if last is None:
            return None
        qid = last.question_id
        hold_item(db, REVIEW_TASK, qid)
        new_id = insert_review(db, _marker(qid, annotator, ReviewDecision.WITHDRAWN, last))
        q = get_question(db, qid)
        status: str = q.status if q else ""
        if last.decision in REVIEW_DECISIONS and q:
            status = _recompute_status(db, q)
    return Withdrawal(new_id, qid, last.decision, status)


def own_review_id(db: Database, question_id: str, annotator: str) -> int | None:
    """The id of ``annotator``'s (a name) own effective row on the question (a review, a skip
    or an undo), None when they have none: what a page passes back as ``expected_last_id``."""
    mine = own_review(db, question_id, annotator)
    return mine.id if mine else None


def _stored(mine: Review | None) -> str:
    """What an own row is, for a stale page's refusal (:func:`refuse_stale`)."""
    if mine is None:
        return "no review"
    shown = {"accept": "Accept", "reject": "Reject", "edit": "Save edit"}
    if mine.decision in shown:
        return f"your review '{shown[mine.decision]}'"
    return marker_text(mine.decision)


def _marker(
    question_id: str, annotator: str, decision: ReviewDecision, old: Review | None
) -> NewReview:
    """A skip or withdrawal row superseding ``old``."""
    return NewReview(
        question_id=question_id,
        annotator=annotator,
        decision=decision,
        note="undo" if decision == ReviewDecision.WITHDRAWN else "",
        supersedes=old.id if old else None,
    )


def _majority_status(decisions: list[str], settled: str | None = None) -> QuestionStatus:
    """The question status of the most frequent of ``decisions``; a tie between different
    decisions (one accept, one reject) is :data:`DISPUTED` (it waits for adjudication), and an
    adjudicator's ``settled`` decision, when there is one, is the status whatever the counts."""
    if settled in _STATUS_OF_DECISION:
        return _STATUS_OF_DECISION[settled]
    counts = {d: decisions.count(d) for d in decisions}
    top = [d for d, n in counts.items() if n == max(counts.values())]
    return _STATUS_OF_DECISION[top[0]] if len(top) == 1 else DISPUTED


def _settled(db: Database, question_id: str) -> str | None:
    """The adjudicator's settled decision of the question's review, or None."""
    row = item_adjudication(db, REVIEW_TASK, question_id)
    return row.label if row else None


def settle_status(db: Database, question_id: str) -> str:
    """Recompute the question's status after an adjudication of its reviews (the settled
    decision); returns it. Part of the caller's transaction."""
    q = get_question(db, question_id)
    return _recompute_status(db, q) if q else ""


def _recompute_status(db: Database, q: Question) -> QuestionStatus:
    """Set the question's status from its effective reviews, as :func:`record_review` does:
    ``discarded`` when a remaining checklist of a cross-document question says Sufficient, else
    the majority decision (:func:`_majority_status`: a tie is ``disputed``, a settled decision
    wins); with no review left, the status it had before its
    first review. An XRAG question's texts follow the latest remaining edit (else the
    originals); translations discarded with it get their earlier status back when it is no
    longer discarded. Returns the new status."""
    qid, now = q.id, utcnow()
    remaining = effective_reviews(db, qid)
    meta = dict(q.metadata)
    why = guideline.sufficient_reason([r.checklist or {} for r in remaining])
    if remaining and guideline.is_cross_document(q) and why:
        status, reason = QuestionStatus.DISCARDED, why
    elif remaining:
        settled = _settled(db, qid)
        status = _majority_status([r.decision for r in remaining], settled)
        reason = (
            f"settled by adjudication: {settled}"
            if settled
            else f"majority of {len(remaining)} review(s) after an undo"
        )
    else:
        status = QuestionStatus(meta.get(_BEFORE, QuestionStatus.PENDING))
        reason = "every review withdrawn"
    meta["status_reason"] = reason
    changes: QuestionUpdate = {"status": status, "updated_at": now, "metadata": meta}
    if q.origin == QuestionOrigin.XRAG:
        edits = [r for r in remaining if r.decision == ReviewDecision.EDIT]
        if "original_question" in meta:
            eq = next((r.edited_question for r in reversed(edits) if r.edited_question), None)
            changes["question"] = eq or meta["original_question"]
        if "original_answers" in meta:
            ea = next((r.edited_answer for r in reversed(edits) if r.edited_answer), None)
            changes["answers"] = [ea] if ea else meta["original_answers"]
    update_question(db, qid, **changes)
    if status != QuestionStatus.DISCARDED:
        for child in child_questions(db, qid):
            cm = dict(child.metadata)
            if child.status == QuestionStatus.DISCARDED and _BEFORE_DISCARD in cm:
                back = QuestionStatus(cm.pop(_BEFORE_DISCARD))
                cm["status_reason"] = "English question no longer discarded"
                update_question(db, child.id, status=back, metadata=cm, updated_at=now)
    return status


def review_queue(
    db: Database, annotator: str, question_ids: list[str], k: int | None = None
) -> list[str]:
    """Of ``question_ids``, those ``annotator`` (a name) has not reviewed that still need a
    review, in the order of :func:`core.annotation.base.team_queue`; the questions they skipped
    come last (in the same order)."""
    k = k or required_annotations(db)
    marks = team_only(review_marks(db), team_names(db))  # only the team's labels count towards k
    queue = team_queue(
        question_ids,
        marks["ok"],
        annotator,
        k=k,
        seed=queue_seed(db),
        calibration=calibration_size(db),
        personal=personal_order(db),
        skipped=marks["skipped"],
    )
    return mix_attention(db, REVIEW_TASK, annotator, queue, question_ids, marks)


def review_progress(
    db: Database,
    annotator: str,
    question_ids: list[str],
    queue: list[str] | None = None,
) -> Progress:
    """This annotator's progress on their own review queue
    (:func:`core.annotation.base.queue_progress`; ``queue``: their :func:`review_queue`,
    computed when not given)."""
    queue = review_queue(db, annotator, question_ids) if queue is None else queue
    return queue_progress(question_ids, review_marks(db), annotator, queue)
