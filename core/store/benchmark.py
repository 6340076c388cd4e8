"""What ``export benchmark`` reads (read-only): the questions of some review statuses and
documents, and of those questions their effective reviews, answers, effective verdicts and
evidence passages. Each read takes the chosen question ids and reads them in chunks."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Self

from core.store.answers import Answer
from core.store.connection import placeholders, rows
from core.store.judgments import Judgment, effective_query
from core.store.questions import Question
from core.store.reviews import Review, effective_reviews_sql

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
    where = [f"status in ({placeholders(statuses)})"]
    params: list[Any] = list(statuses)
    if documents is not None:
        where.append(f"document_id in ({placeholders(documents)})")
        params.extend(documents)
    sql = f"select * from questions where {' and '.join(where)} order by document_id, id"
    return [Question.from_row(r) for r in rows(db, sql, params)]


def reviews_of(db: Database, question_ids: Sequence[str]) -> list[Review]:
    """The effective reviews (not superseded, no skips or withdrawals) of the questions, by id."""
    out: list[Review] = []
    for chunk in _chunks(question_ids):
        sql = effective_reviews_sql(f"r.question_id in ({placeholders(chunk)})")
        out.extend(Review.from_row(r) for r in rows(db, sql, chunk))
    return sorted(out, key=lambda r: r.id)


def answers_of(db: Database, question_ids: Sequence[str]) -> list[Answer]:
    """Every stored answer to the questions, by question and system."""
    out: list[Answer] = []
    for chunk in _chunks(question_ids):
        sql = f"select * from answers where question_id in ({placeholders(chunk)})"
        out.extend(Answer.from_row(r) for r in rows(db, sql, chunk))
    return sorted(out, key=lambda a: (a.question_id, a.system))


def verdicts_of(db: Database, question_ids: Sequence[str]) -> list[Judgment]:
    """The effective parsed verdicts on the questions (what ``rank`` and ``agreement`` count:
    status ok, a verdict, not superseded or withdrawn), by id."""
    base, params = effective_query(None, status="ok", with_verdict=True, ordered=False)
    out: list[Judgment] = []
    for chunk in _chunks(question_ids):
        sql = f"{base} and j.question_id in ({placeholders(chunk)})"
        out.extend(Judgment.from_row(r) for r in rows(db, sql, [*params, *chunk]))
    return sorted(out, key=lambda j: j.id)


def passages_of(db: Database, keys: Sequence[tuple[str, int]]) -> list[EvidencePassage]:
    """The passages at ``(document id, passage index)`` (those that exist), in book order."""
    by_doc: dict[str, list[int]] = {}
    for doc_id, idx in keys:
        by_doc.setdefault(doc_id, []).append(idx)
    out: list[EvidencePassage] = []
    for doc_id, idxs in sorted(by_doc.items()):
        for chunk in _chunks(sorted(set(idxs))):
            sql = (
                'select id, document_id, idx, start, "end", text, n_tokens from passages '
                f"where document_id = ? and idx in ({placeholders(chunk)}) order by idx"
            )
            out.extend(EvidencePassage.from_row(r) for r in db.query(sql, [doc_id, *chunk]))
    return out


def status_counts(db: Database, documents: Sequence[str] | None = None) -> dict[str, int]:
    """Questions per review status (of ``documents`` when given), for the card's review figures."""
    where, params = "", list(documents or [])
    if documents is not None:
        where = f" where document_id in ({placeholders(documents)})"
    sql = f"select status, count(*) from questions{where} group by status order by status"
    return {str(r[0]): int(r[1]) for r in db.execute(sql, params)}
