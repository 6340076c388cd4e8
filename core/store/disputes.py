"""Table ``disputes``: the only module with SQL on it (resolutions are labels: see
:mod:`core.annotation.disputes`).

A dispute is an answer on which the ground-truth rater (reference answers) and the context rater
(the story) gave different verdicts; it points at both judgments. A dispute is a :class:`Dispute`; :func:`dispute_records` adds
what an auditor reads (:class:`DisputeRecord`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Self

from core.store.connection import decode_row, placeholders, rows, utcnow

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
    cur = db.execute(
        f"insert or ignore into disputes ({', '.join(_COLUMNS)}) "
        f"values ({', '.join('?' * len(_COLUMNS))})",
        [getattr(new, c) for c in _COLUMNS],
    )
    return cur.rowcount > 0


def get_dispute(db: Database, dispute_id: int) -> Dispute | None:
    """One dispute by id (or None)."""
    found = rows(db, "select * from disputes where id = ?", [dispute_id])
    return Dispute.from_row(found[0]) if found else None


def question_disputes(db: Database, question_id: str) -> list[Dispute]:
    """The disputes of one question, by id."""
    found = rows(db, "select * from disputes where question_id = ? order by id", [question_id])
    return [Dispute.from_row(r) for r in found]


def dispute_records(db: Database) -> list[DisputeRecord]:
    """Every dispute with its question, references, answer text and both raters' names,
    rationales and evidence (``references``, ``gt_evidence``, ``ctx_evidence`` decoded), by id."""
    found = db.query(
        """
        select d.id, d.question_id, d.answer_id, d.system, d.gt_verdict, d.ctx_verdict,
               d.run_id, d.created_at, q.question, q.answers as "references",
               q.document_id, a.text as answer, g.rater as gt_rater, g.evidence as gt_evidence,
               g.rationale as gt_rationale, c.rater as ctx_rater, c.evidence as ctx_evidence,
               c.rationale as ctx_rationale, c.context_kind as ctx_context
        from disputes d join questions q on q.id = d.question_id
        join answers a on a.id = d.answer_id
        join judgments g on g.id = d.gt_judgment_id join judgments c on c.id = d.ctx_judgment_id
        order by d.id"""
    )
    return [DisputeRecord.from_row(decode_row(r, _LISTS)) for r in found]


def all_dispute_ids(db: Database) -> list[int]:
    """Every dispute id, ascending."""
    return [int(r[0]) for r in db.execute("select id from disputes order by id")]


def dispute_question_ids(db: Database, ids: Sequence[int]) -> dict[int, str]:
    """Dispute id -> its question id, for ``ids`` (unknown ids are absent)."""
    if not ids:
        return {}
    marks = placeholders(ids)
    return {
        int(r[0]): r[1]
        for r in db.execute(f"select id, question_id from disputes where id in ({marks})", ids)
    }


def question_dispute_answers(db: Database, question_id: str) -> list[tuple[str, str]]:
    """(system, answer text) of every dispute of a question, by dispute id."""
    return [
        (r[0], r[1])
        for r in db.execute(
            "select d.system, a.text from disputes d join answers a on a.id = d.answer_id "
            "where d.question_id = ? order by d.id",
            [question_id],
        )
    ]
