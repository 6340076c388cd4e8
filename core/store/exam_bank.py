"""Tables ``exam_banks``, ``exam_queries``, ``exam_questions`` and ``exam_articles``: EXAM's
question banks and the articles graded against them (migration m0500). Exam questions never
enter ``questions``, so no answering system can see them. SQLAlchemy Core over :mod:`core.store.tables_people` and
:mod:`core.store.tables_exam` (issue 33): nothing here is translated for PostgreSQL."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Self

import sqlalchemy as sa

from core.store.connection import dumps, utcnow
from core.store.row_stage import RowStage, stage_rows
from core.store.statements import all_rows, run, run_many, upsert
from core.store.tables_exam import exam_articles, exam_grades, exam_questions, exam_runs
from core.store.tables_people import exam_banks, exam_queries

if TYPE_CHECKING:
    from core.store.engine import Database


def _json(value: Any, empty: Any) -> Any:
    if isinstance(value, str):
        return json.loads(value) if value else empty
    return empty if value is None else value


@dataclass(frozen=True, slots=True)
class ExamQuestion:
    """An ``exam_questions`` row: ``choices`` ``{key: text}`` for multiple choice (None for free
    text), ``answers`` the reference answers of a free-text question."""

    id: str
    bank_id: str
    query_id: str
    qid: str
    question: str
    choices: dict[str, str] | None = None
    correct_key: str | None = None
    correct: str | None = None
    answers: list[str] = field(default_factory=list)
    facet_id: str = ""
    source_question_id: str | None = None
    line: int | None = None
    metadata: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> Self:
        """A question from its row (JSON columns as text or decoded)."""
        return cls(
            id=row["id"],
            bank_id=row["bank_id"],
            query_id=row["query_id"],
            qid=row["qid"],
            question=row["question"],
            choices=_json(row["choices"], None) or None,
            correct_key=row["correct_key"],
            correct=row["correct"],
            answers=list(_json(row["answers"], [])),
            facet_id=row["facet_id"] or "",
            source_question_id=row["source_question_id"],
            line=row["line"],
            metadata=dict(_json(row["metadata"], {})),
        )


@dataclass(frozen=True, slots=True)
class ExamBank:
    """An ``exam_banks`` row (counts filled in by the importer)."""

    id: str
    name: str
    source: str
    path: str
    document_id: str | None
    n_queries: int
    n_questions: int


@dataclass(frozen=True, slots=True)
class ExamArticle:
    """An article to store for a (bank, query, system)."""

    bank_id: str
    query_id: str
    system: str
    kind: str
    text: str
    n_tokens: int
    metadata: dict[str, Any] = field(default_factory=dict)
    run_id: str | None = None


_Q = exam_questions.c
_A = exam_articles.c


def bank_exists(db: Database, bank_id: str) -> bool:
    """Whether the exam bank ``bank_id`` is stored."""
    query = sa.select(exam_banks.c.id).where(exam_banks.c.id == bank_id)
    return run(db, query).fetchone() is not None


def query_exists(db: Database, bank_id: str, query_id: str) -> bool:
    """Whether ``query_id`` is a query of ``bank_id``."""
    c = exam_queries.c
    query = sa.select(c.query_id).where(c.bank_id == bank_id, c.query_id == query_id)
    return run(db, query).fetchone() is not None


def replace_bank(
    db: Database,
    bank: ExamBank,
    queries: Mapping[str, str],
    query_documents: Mapping[str, str] | None = None,
) -> None:
    """(Re)create the bank row and its queries (``{query_id: text}``); old questions and grades
    of the bank go. Call inside a transaction."""
    if bank_exists(db, bank.id):
        of_bank = sa.select(_Q.id).where(_Q.bank_id == bank.id)
        run(db, sa.delete(exam_grades).where(exam_grades.c.question_id.in_(of_bank)))
        run(db, sa.delete(exam_questions).where(_Q.bank_id == bank.id))
    run(db, upsert(db, exam_banks, {**asdict(bank), "metadata": "{}", "created_at": utcnow()}))
    for qid, text in queries.items():
        row = {
            "bank_id": bank.id,
            "query_id": qid,
            "query_text": text,
            "document_id": (query_documents or {}).get(qid),
        }
        run(db, upsert(db, exam_queries, row))


def insert_exam_questions(db: Database, questions: Iterable[ExamQuestion]) -> None:
    """Insert the questions of a bank (after :func:`replace_bank`, in its transaction; 500 per
    ``executemany``)."""
    new = [_question_row(q) for q in questions]
    for start in range(0, len(new), 500):
        run_many(db, sa.insert(exam_questions), new[start : start + 500])


def stage_exam_questions(db: Database, questions: Sequence[ExamQuestion]) -> RowStage:
    """Stage the questions of a bank outside any transaction (:mod:`core.store.row_stage`: no
    lock held); :func:`core.store.row_stage.switch_rows` copies them in after
    :func:`replace_bank`, :func:`core.store.row_stage.drop_rows_stage` removes the stage."""
    return stage_rows(db, "exam_questions", [_question_row(q) for q in questions])


def _question_row(q: ExamQuestion) -> dict[str, Any]:
    return {
        **asdict(q),
        "choices": None if q.choices is None else dumps(q.choices),
        "answers": dumps(q.answers),
        "metadata": dumps(q.metadata),
    }


def bank_questions(db: Database, bank_id: str) -> list[ExamQuestion]:
    """Every question of a bank, ordered by query and qid."""
    query = sa.select(exam_questions).where(_Q.bank_id == bank_id).order_by(_Q.query_id, _Q.qid)
    cursor = run(db, query)
    names = [d[0] for d in cursor.description]
    return [ExamQuestion.from_row(dict(zip(names, r, strict=True))) for r in cursor.fetchall()]


def bank_queries(db: Database, bank_id: str) -> list[dict[str, Any]]:
    """The queries of a bank with their question counts (``query_id, query_text, document_id,
    n_questions``)."""
    q, x = exam_queries.alias("q"), exam_questions.alias("x")
    query = (
        sa.select(
            q.c.query_id,
            q.c.query_text,
            q.c.document_id,
            sa.func.count(x.c.id).label("n_questions"),
        )
        .select_from(
            q.outerjoin(x, sa.and_(x.c.bank_id == q.c.bank_id, x.c.query_id == q.c.query_id))
        )
        .where(q.c.bank_id == bank_id)
        .group_by(q.c.bank_id, q.c.query_id)
        .order_by(q.c.query_id)
    )
    return all_rows(db, query)


def count_bank_questions(db: Database, bank_id: str, query_id: str | None = None) -> int:
    """How many questions the bank has (of ``query_id`` when given)."""
    query = sa.select(sa.func.count()).select_from(exam_questions).where(_Q.bank_id == bank_id)
    if query_id is not None:
        query = query.where(_Q.query_id == query_id)
    return int(run(db, query).fetchone()[0])


def questions_per_query(db: Database, bank_id: str) -> dict[str, int]:
    """``{query_id: number of questions}`` of a bank."""
    query = (
        sa.select(_Q.query_id, sa.func.count()).where(_Q.bank_id == bank_id).group_by(_Q.query_id)
    )
    return {r[0]: int(r[1]) for r in run(db, query)}


def run_query_ids(db: Database, run_id: str) -> list[str]:
    """The query ids of an EXAM run's bank, sorted."""
    q = exam_queries.c
    query = (
        sa.select(q.query_id)
        .join(exam_runs, exam_runs.c.bank_id == q.bank_id)
        .where(exam_runs.c.id == run_id)
        .order_by(q.query_id)
    )
    return [r[0] for r in run(db, query)]


def replace_article(db: Database, article: ExamArticle) -> int:
    """Insert the article of (bank, query, system), replacing the stored one (its grades go by
    cascade) unless it is the same (kept with its grades: nothing written); returns its id.
    Call inside a transaction."""
    key = sa.and_(
        _A.bank_id == article.bank_id, _A.query_id == article.query_id, _A.system == article.system
    )
    found = all_rows(db, sa.select(exam_articles).where(key))
    if found and all(found[0][k] == v for k, v in asdict(article).items()):
        return int(found[0]["id"])
    run(db, sa.delete(exam_articles).where(key))
    row = {**asdict(article), "metadata": dumps(article.metadata), "created_at": utcnow()}
    added = run(db, sa.insert(exam_articles).values(**row).returning(_A.id))
    return int(added.fetchone()[0])


def delete_bank_articles(db: Database, bank_id: str, keep: Sequence[int] = ()) -> None:
    """Remove every article of a bank but those of ids ``keep`` (their grades go by cascade)."""
    run(
        db,
        sa.delete(exam_articles).where(_A.bank_id == bank_id, _A.id.not_in(list(keep))),
    )


def bank_articles(db: Database, bank_id: str) -> list[dict[str, Any]]:
    """Stored articles of a bank (``metadata`` decoded), by system and query."""
    query = sa.select(exam_articles).where(_A.bank_id == bank_id).order_by(_A.system, _A.query_id)
    return all_rows(db, query)
