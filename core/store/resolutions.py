"""Table ``dispute_resolutions``: the only module with SQL on it (people's resolutions of
ground-truth disputes).

Resolutions are append-only (triggers abort UPDATE and DELETE): a changed resolution is a new row
whose ``supersedes`` names the annotator's previous one, and an undo is a row with
``resolution = 'withdrawn'`` (:data:`WITHDRAWN`) superseding the resolution or skip it takes
back; a skip is a row with ``resolution = 'skipped'`` (:data:`SKIPPED`). Neither is a
resolution: every reader of resolutions here leaves them out; skips are read by
:func:`skipped_resolutions` only. The
"not superseded" condition is :func:`core.store.statements.not_superseded`; rows come back decoded by
:func:`core.store.statements.all_rows`. SQLAlchemy Core over :mod:`core.store.tables_more`
(issue 33).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Self

import sqlalchemy as sa

from core.store.connection import utcnow
from core.store.label_rows import SKIPPED, WITHDRAWN, label_marks, last_row, own_row
from core.store.statements import all_rows, not_superseded, run
from core.store.tables import disputes, questions
from core.store.tables_more import dispute_resolutions

if TYPE_CHECKING:
    from core.store.engine import Database


class DisputeResolution(StrEnum):
    """A row's resolution of a dispute: who was wrong, a skip or an undo."""

    REFERENCE_WRONG = "reference_wrong"
    MODEL_WRONG = "model_wrong"
    BOTH_ACCEPTABLE = "both_acceptable"
    AMBIGUOUS = "ambiguous"
    SKIPPED = SKIPPED
    WITHDRAWN = WITHDRAWN


@dataclass(frozen=True, slots=True, kw_only=True)
class NewResolution:
    """A resolution row to append (``corrected_answer``: the reference it should have been)."""

    dispute_id: int
    annotator: str
    resolution: DisputeResolution
    corrected_answer: str | None = None
    note: str = ""
    supersedes: int | None = None
    created_at: str = field(default_factory=utcnow)


@dataclass(frozen=True, slots=True, kw_only=True)
class Resolution(NewResolution):
    """A stored row of ``dispute_resolutions``."""

    id: int

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> Self:
        """The record of a ``dispute_resolutions`` row."""
        return cls(
            id=int(row["id"]),
            dispute_id=int(row["dispute_id"]),
            annotator=row["annotator"],
            resolution=DisputeResolution(row["resolution"]),
            corrected_answer=row["corrected_answer"],
            note=row["note"],
            supersedes=row["supersedes"],
            created_at=row["created_at"],
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class ResolvedDispute(Resolution):
    """An effective resolution with its dispute's question, system, question text and
    reference answers."""

    question_id: str
    system: str
    question: str
    answers: list[str]

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> Self:
        """The record of a resolution row joined with its dispute and question."""
        base = Resolution.from_row(row)
        return cls(
            **{f.name: getattr(base, f.name) for f in fields(Resolution)},
            question_id=row["question_id"],
            system=row["system"],
            question=row["question"],
            answers=list(row["answers"] or []),
        )


#: The resolution rows (alias ``r``) and their disputes (``d``).
_R, _D = dispute_resolutions.alias("r"), disputes.alias("d")
#: Effective rows of ``r`` that are resolutions (not withdrawals, not skips).
_OPEN = sa.and_(
    not_superseded(dispute_resolutions, _R), _R.c.resolution.not_in([WITHDRAWN, SKIPPED])
)


def insert_resolution(db: Database, new: NewResolution) -> int:
    """Append one resolution row; returns its id."""
    row = {f.name: getattr(new, f.name) for f in fields(NewResolution)}
    row["resolution"] = str(new.resolution)
    new_id = sa.insert(dispute_resolutions).values(**row).returning(dispute_resolutions.c.id)
    return int(run(db, new_id).fetchone()[0])


def own_resolution(db: Database, dispute_id: int, annotator: str) -> Resolution | None:
    """``annotator``'s effective row on a dispute (a withdrawal too), the row their next one
    supersedes; None when they have none."""
    found = own_row(db, "dispute_resolutions", dispute_id, annotator)
    return None if found is None else Resolution.from_row(found)


def last_resolution(db: Database, annotator: str) -> Resolution | None:
    """``annotator``'s latest effective resolution or skip (withdrawals left out): what an undo
    takes back; None when there is none."""
    found = last_row(db, "dispute_resolutions", annotator)
    return None if found is None else Resolution.from_row(found)


def skipped_resolutions(db: Database) -> list[tuple[Resolution, str]]:
    """Every effective skip of a dispute with its dispute's question id, oldest first."""
    query = (
        sa.select(_R, _D.c.question_id)
        .join_from(_R, _D, _D.c.id == _R.c.dispute_id)
        .where(not_superseded(dispute_resolutions, _R), _R.c.resolution == SKIPPED)
    )
    found = all_rows(db, query.order_by(_R.c.id))
    return [(Resolution.from_row(r), r["question_id"]) for r in found]


def resolution_marks(db: Database) -> dict[str, dict[int, set[str]]]:
    """Who marked which dispute, from the effective rows (withdrawals left out):
    ``{"ok": {dispute id: annotators with a resolution}, "skipped": {dispute id: annotators
    whose row is a skip}}`` (:func:`core.store.label_rows.label_marks`)."""
    return label_marks(db, "dispute_resolutions")


def effective_resolutions(
    db: Database, *, dispute_id: int | None = None, question_id: str | None = None
) -> list[ResolvedDispute]:
    """The effective resolutions (withdrawals left out), oldest first, optionally of one dispute
    or of one question's disputes. Each row also carries its dispute's ``question_id`` and
    ``system`` and the question's text (``question``) and reference ``answers`` (decoded)."""
    where: list[sa.ColumnElement[bool]] = [_OPEN]
    if dispute_id is not None:
        where.append(_R.c.dispute_id == dispute_id)
    if question_id is not None:
        where.append(_D.c.question_id == question_id)
    q = questions.alias("q")
    query = (
        sa.select(_R, _D.c.question_id, _D.c.system, q.c.question, q.c.answers)
        .join_from(_R, _D, _D.c.id == _R.c.dispute_id)
        .join(q, q.c.id == _D.c.question_id)
        .where(*where)
    )
    found = all_rows(db, query.order_by(_R.c.id))
    return [ResolvedDispute.from_row(r) for r in found]


def question_resolution_count(db: Database, question_id: str) -> int:
    """How many resolution rows (superseded and withdrawals too) the disputes of a question
    have."""
    of_question = sa.select(disputes.c.id).where(disputes.c.question_id == question_id)
    query = sa.select(sa.func.count()).where(dispute_resolutions.c.dispute_id.in_(of_question))
    return int(run(db, query).fetchone()[0])


def resolved_dispute_count(db: Database, dispute_ids: Sequence[int]) -> int:
    """How many of ``dispute_ids`` have an effective resolution (withdrawals and skips aside)."""
    if not dispute_ids:
        return 0
    ids = [int(d) for d in dispute_ids]
    listed: sa.BindParameter[list[int]] = sa.bindparam("listed", ids, literal_execute=True)
    query = sa.select(sa.func.count(sa.distinct(_R.c.dispute_id))).where(
        _OPEN, _R.c.dispute_id.in_(listed)
    )  # ints written into the statement (literal_execute): no bound-variable limit
    return int(run(db, query).fetchone()[0])
