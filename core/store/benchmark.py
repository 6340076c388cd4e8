"""What ``export benchmark`` reads (read-only): the questions of some review statuses and
documents, and of those questions their effective reviews, answers, effective verdicts and
evidence passages. Each read takes the chosen question ids and reads them in chunks.
SQLAlchemy Core over :mod:`core.store.tables` (issue 33): nothing here is translated for
PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Self

import sqlalchemy as sa

from core.store.answers import Answer
from core.store.judgments import Judgment, JudgmentStatus
from core.store.label_rows import SKIPPED, WITHDRAWN
from core.store.questions import Question
from core.store.reviews import Review
from core.store.statements import all_rows, not_superseded, run
from core.store.tables import answers, judgments, passages, questions
from core.store.tables_more import reviews

if TYPE_CHECKING:
    from core.store.engine import Database

#: Ids per ``in (...)`` list (well under SQLite's and PostgreSQL's parameter limits).
CHUNK = 500


@dataclass(frozen=True, slots=True)
class EvidencePassage:
    """One ``passages`` row with its id and document (``text == document.text[start:end]``)."""

    id: int
    document_id: str
    idx: int
    start: int
    end: int
    text: str
    n_tokens: int

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> Self:
        """The record of a ``passages`` row."""
        return cls(
            id=int(row["id"]),
            document_id=str(row["document_id"]),
            idx=int(row["idx"]),
            start=int(row["start"]),
            end=int(row["end"]),
            text=str(row["text"]),
            n_tokens=int(row["n_tokens"]),
        )


def _chunks(values: Sequence[Any]) -> Iterator[list[Any]]:
    for start in range(0, len(values), CHUNK):
        yield list(values[start : start + CHUNK])


def benchmark_questions(
    db: Database, statuses: Sequence[str], documents: Sequence[str] | None = None
) -> list[Question]:
    """The questions whose review status is one of ``statuses`` (and whose document is one of
    ``documents`` when given), by document and id."""
    query = sa.select(questions).where(questions.c.status.in_(list(statuses)))
    if documents is not None:
        query = query.where(questions.c.document_id.in_(list(documents)))
    query = query.order_by(questions.c.document_id, questions.c.id)
    return [Question.from_row(r) for r in all_rows(db, query)]


def reviews_of(db: Database, question_ids: Sequence[str]) -> list[Review]:
    """The effective reviews (not superseded, no skips or withdrawals) of the questions, by id."""
    r = reviews.alias("r")
    effective = sa.select(r).where(
        not_superseded(reviews, r), r.c.decision.not_in([SKIPPED, WITHDRAWN])
    )
    out: list[Review] = []
    for chunk in _chunks(question_ids):
        query = effective.where(r.c.question_id.in_(chunk))
        out.extend(Review.from_row(row) for row in all_rows(db, query))
    return sorted(out, key=lambda x: x.id)


def answers_of(db: Database, question_ids: Sequence[str]) -> list[Answer]:
    """Every stored answer to the questions, by question and system."""
    out: list[Answer] = []
    for chunk in _chunks(question_ids):
        query = sa.select(answers).where(answers.c.question_id.in_(chunk))
        out.extend(Answer.from_row(r) for r in all_rows(db, query))
    return sorted(out, key=lambda a: (a.question_id, a.system))


def verdicts_of(db: Database, question_ids: Sequence[str]) -> list[Judgment]:
    """The effective parsed verdicts on the questions (what ``rank`` and ``agreement`` count:
    status ok, a verdict, not superseded or withdrawn), by id."""
    j = judgments.alias("j")
    effective = sa.select(j).where(
        not_superseded(judgments, j), j.c.status == JudgmentStatus.OK, j.c.verdict.is_not(None)
    )
    out: list[Judgment] = []
    for chunk in _chunks(question_ids):
        query = effective.where(j.c.question_id.in_(chunk))
        out.extend(Judgment.from_row(r) for r in all_rows(db, query))
    return sorted(out, key=lambda x: x.id)


def passages_of(db: Database, keys: Sequence[tuple[str, int]]) -> list[EvidencePassage]:
    """The passages at ``(document id, passage index)`` (those that exist), in book order."""
    by_doc: dict[str, list[int]] = {}
    for doc_id, idx in keys:
        by_doc.setdefault(doc_id, []).append(idx)
    p = passages.c
    columns = sa.select(p.id, p.document_id, p.idx, p.start, p.end, p.text, p.n_tokens)
    out: list[EvidencePassage] = []
    for doc_id, idxs in sorted(by_doc.items()):
        for chunk in _chunks(sorted(set(idxs))):
            query = columns.where(p.document_id == doc_id, p.idx.in_(chunk)).order_by(p.idx)
            out.extend(EvidencePassage.from_row(r) for r in all_rows(db, query))
    return out


def status_counts(db: Database, documents: Sequence[str] | None = None) -> dict[str, int]:
    """Questions per review status (of ``documents`` when given), for the card's review figures."""
    status = questions.c.status
    query = sa.select(status, sa.func.count()).group_by(status).order_by(status)
    if documents is not None:
        query = query.where(questions.c.document_id.in_(list(documents)))
    return {str(r[0]): int(r[1]) for r in run(db, query)}
