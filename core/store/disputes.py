"""Table ``disputes``: the only module with SQL on it (resolutions are labels: see
:mod:`core.annotation.disputes`).

A dispute is an answer on which the ground-truth rater (reference answers) and the context rater
(the story) gave different verdicts; it points at both judgments. Rows come back decoded by
:func:`core.store.connection.rows`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from core.store.connection import decode_row, placeholders, rows

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


def add_dispute(db: Database, row: dict[str, Any]) -> bool:
    """Store a dispute unless one for the same two judgments exists; True when added."""
    cur = db.execute(
        f"insert or ignore into disputes ({', '.join(_COLUMNS)}) "
        f"values ({', '.join('?' * len(_COLUMNS))})",
        [row.get(c) for c in _COLUMNS],
    )
    return cur.rowcount > 0


def get_dispute(db: Database, dispute_id: int) -> dict[str, Any] | None:
    """One dispute by id (or None)."""
    found = rows(db, "select * from disputes where id = ?", [dispute_id])
    return found[0] if found else None


def question_disputes(db: Database, question_id: str) -> list[dict[str, Any]]:
    """The disputes of one question, by id."""
    return rows(db, "select * from disputes where question_id = ? order by id", [question_id])


def dispute_records(db: Database) -> list[dict[str, Any]]:
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
    return [decode_row(r, ("references", "gt_evidence", "ctx_evidence")) for r in found]


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


def question_dispute_answers(db: Database, question_id: str) -> list[dict[str, Any]]:
    """``system`` and answer ``text`` of every dispute of a question, by dispute id."""
    return rows(
        db,
        "select d.system, a.text from disputes d join answers a on a.id = d.answer_id "
        "where d.question_id = ? order by d.id",
        [question_id],
    )
