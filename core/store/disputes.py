"""Table ``disputes``: the only module with SQL on it (resolutions are labels: see
:mod:`core.annotation.disputes`).

A dispute is an answer on which the ground-truth rater (reference answers) and the context rater
(the story) gave different verdicts; it points at both judgments. A dispute is a :class:`Dispute`; :func:`dispute_records` adds
what an auditor reads (:class:`DisputeRecord`). SQLAlchemy Core over :mod:`core.store.tables`
(issue 33): nothing here is translated for PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Self

import sqlalchemy as sa

from core.store.connection import utcnow
from core.store.statements import all_rows, insert, run
from core.store.tables import answers, disputes, judgments, questions

if TYPE_CHECKING:
    from core.store.engine import Database

_COLUMNS = (
    "question_id",
    "answer_id",
    "system",
    "gt_judgment_id",
    "ctx_judgment_id",
    "gt_verdict",
    "ctx_verdict",
    "run_id",
    "created_at",
)


@dataclass(frozen=True, slots=True, kw_only=True)
class NewDispute:
    """An answer on which the ground-truth judgment (``gt_*``, reference answers) and the context
    judgment (``ctx_*``, the story) disagree, to store."""

    question_id: str
    answer_id: int
    system: str
    gt_judgment_id: int
    ctx_judgment_id: int
    gt_verdict: str
    ctx_verdict: str
    run_id: str | None = None
    created_at: str = field(default_factory=utcnow)


@dataclass(frozen=True, slots=True, kw_only=True)
class Dispute(NewDispute):
    """A stored row of ``disputes``."""

    id: int

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> Self:
        """The record of a ``disputes`` row."""
        return cls(id=int(row["id"]), **{c: row[c] for c in _COLUMNS})


@dataclass(frozen=True, slots=True, kw_only=True)
class DisputeRecord:
    """A dispute with what an auditor reads: the question, its ``references``, the ``answer``
    text and both raters' names, rationales and evidence (``ctx_context``: the context kind)."""

    id: int
    question_id: str
    answer_id: int
    system: str
    gt_verdict: str
    ctx_verdict: str
    run_id: str | None
    created_at: str
    question: str
    references: list[str]
    document_id: str
    answer: str
    gt_rater: str
    gt_evidence: list[dict[str, Any]]
    gt_rationale: str
    ctx_rater: str
    ctx_evidence: list[dict[str, Any]]
    ctx_rationale: str
    ctx_context: str

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> Self:
        """The record of a decoded row of :func:`dispute_records`' query."""
        values: dict[str, Any] = {k: (list(v or []) if k in _LISTS else v) for k, v in row.items()}
        return cls(**values)


_LISTS = ("references", "gt_evidence", "ctx_evidence")


def add_dispute(db: Database, new: NewDispute) -> bool:
    """Store a dispute unless one for the same two judgments exists; True when added."""
    row = {c: getattr(new, c) for c in _COLUMNS}
    return run(db, insert(db, disputes).values(**row).on_conflict_do_nothing()).rowcount > 0


def get_dispute(db: Database, dispute_id: int) -> Dispute | None:
    """One dispute by id (or None)."""
    found = all_rows(db, sa.select(disputes).where(disputes.c.id == dispute_id))
    return Dispute.from_row(found[0]) if found else None


def question_disputes(db: Database, question_id: str) -> list[Dispute]:
    """The disputes of one question, by id."""
    query = sa.select(disputes).where(disputes.c.question_id == question_id)
    return [Dispute.from_row(r) for r in all_rows(db, query.order_by(disputes.c.id))]


def dispute_records(db: Database) -> list[DisputeRecord]:
    """Every dispute with its question, references, answer text and both raters' names,
    rationales and evidence (``references``, ``gt_evidence``, ``ctx_evidence`` decoded), by id."""
    d, q, a = disputes, questions, answers
    g, c = judgments.alias("g"), judgments.alias("c")
    query = (
        sa.select(
            d.c.id,
            d.c.question_id,
            d.c.answer_id,
            d.c.system,
            d.c.gt_verdict,
            d.c.ctx_verdict,
            d.c.run_id,
            d.c.created_at,
            q.c.question,
            q.c.answers.label("references"),
            q.c.document_id,
            a.c.text.label("answer"),
            g.c.rater.label("gt_rater"),
            g.c.evidence.label("gt_evidence"),
            g.c.rationale.label("gt_rationale"),
            c.c.rater.label("ctx_rater"),
            c.c.evidence.label("ctx_evidence"),
            c.c.rationale.label("ctx_rationale"),
            c.c.context_kind.label("ctx_context"),
        )
        .join(q, q.c.id == d.c.question_id)
        .join(a, a.c.id == d.c.answer_id)
        .join(g, g.c.id == d.c.gt_judgment_id)
        .join(c, c.c.id == d.c.ctx_judgment_id)
        .order_by(d.c.id)
    )
    return [DisputeRecord.from_row(r) for r in all_rows(db, query, also=_LISTS)]


def all_dispute_ids(db: Database) -> list[int]:
    """Every dispute id, ascending."""
    return [int(r[0]) for r in run(db, sa.select(disputes.c.id).order_by(disputes.c.id))]


def dispute_question_ids(db: Database, ids: Sequence[int]) -> dict[int, str]:
    """Dispute id -> its question id, for ``ids`` (unknown ids are absent)."""
    if not ids:
        return {}
    query = sa.select(disputes.c.id, disputes.c.question_id).where(disputes.c.id.in_(list(ids)))
    return {int(r[0]): r[1] for r in run(db, query).fetchall()}


def question_dispute_answers(db: Database, question_id: str) -> list[tuple[str, str]]:
    """(system, answer text) of every dispute of a question, by dispute id."""
    query = (
        sa.select(disputes.c.system, answers.c.text)
        .join(answers, answers.c.id == disputes.c.answer_id)
        .where(disputes.c.question_id == question_id)
        .order_by(disputes.c.id)
    )
    return [(r[0], r[1]) for r in run(db, query).fetchall()]
