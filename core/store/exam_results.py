"""Reads of EXAM grades joined with their articles and questions (leaderboards, per-question
tables), and the ``exam_book_correlations`` table (EXAM against Bradley-Terry on one book).
SQLAlchemy Core over :mod:`core.store.tables_exam` (issue 33)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Self

import sqlalchemy as sa

from core.store.connection import dumps, transaction
from core.store.statements import all_rows, run
from core.store.tables import documents
from core.store.tables_exam import (
    exam_articles,
    exam_book_correlations,
    exam_grades,
    exam_questions,
    exam_runs,
)

if TYPE_CHECKING:
    from core.store.engine import Database


@dataclass(frozen=True, slots=True)
class ExamGrade:
    """One grade of an EXAM run with its article's system and query: ``correct`` 1 answered,
    0 not, None unparsed or failed (``status`` says which)."""

    system: str
    query_id: str
    question_id: str
    correct: int | None
    status: str
    self_rating: int | None

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> Self:
        """A grade from the joined row."""
        return cls(
            system=row["system"],
            query_id=row["query_id"],
            question_id=row["question_id"],
            correct=row["correct"],
            status=row["status"],
            self_rating=row["self_rating"],
        )


def run_grades(db: Database, run_id: str, query_id: str | None = None) -> list[ExamGrade]:
    """Every grade of ``run_id`` (of ``query_id``'s articles when given)."""
    g, a = exam_grades.alias("g"), exam_articles.alias("a")
    query = (
        sa.select(a.c.system, a.c.query_id, g.c.question_id, g.c.correct, g.c.status,
                  g.c.self_rating)
        .join_from(g, a, a.c.id == g.c.article_id)
        .where(g.c.run_id == run_id)
    )  # fmt: skip
    if query_id is not None:
        query = query.where(a.c.query_id == query_id)
    return [ExamGrade.from_row(r) for r in all_rows(db, query)]


def run_systems(db: Database, run_id: str) -> list[str]:
    """The systems with a grade in ``run_id``, sorted."""
    g, a = exam_grades.alias("g"), exam_articles.alias("a")
    query = (
        sa.select(a.c.system)
        .distinct()
        .join_from(g, a, a.c.id == g.c.article_id)
        .where(g.c.run_id == run_id)
        .order_by(a.c.system)
    )
    return [r[0] for r in run(db, query)]


def run_questions_of_query(db: Database, run_id: str, query_id: str) -> int:
    """How many questions of ``query_id`` the bank of ``run_id`` has."""
    x, r = exam_questions.alias("x"), exam_runs.alias("r")
    query = (
        sa.select(sa.func.count())
        .select_from(x)
        .join(r, r.c.bank_id == x.c.bank_id)
        .where(r.c.id == run_id, x.c.query_id == query_id)
    )
    return int(run(db, query).fetchone()[0])


def exam_runs_overview(db: Database) -> list[dict[str, Any]]:
    """Every EXAM run, newest first: ``run_id, bank_id, qa_model, verification, threshold,
    graded`` (number of grades), ``created_at``."""
    r, g = exam_runs.alias("r"), exam_grades.alias("g")
    graded = sa.select(sa.func.count()).where(g.c.run_id == r.c.id).scalar_subquery()
    query = sa.select(
        r.c.id.label("run_id"), r.c.bank_id, r.c.qa_model, r.c.verification, r.c.threshold,
        graded.label("graded"), r.c.created_at,
    )  # fmt: skip
    return all_rows(db, query.order_by(r.c.created_at.desc()))


@dataclass(frozen=True, slots=True)
class BookCorrelation:
    """An ``exam_book_correlations`` row: EXAM against Bradley-Terry on one book for one EXAM
    run and side-by-side rater; ``systems`` the per-system figures."""

    document_id: str
    exam_run_id: str
    experiment: str
    rater: str
    n_systems: int
    n_questions: int
    spearman: float | None
    kendall: float | None
    spearman_ties: float | None = None
    kendall_ties: float | None = None
    repeats: int | None = None
    seed: int | None = None
    n_judgments: int | None = None
    n_decisive: int | None = None
    bt_estimate: str = ""
    systems: list[dict[str, Any]] = field(default_factory=list)
    created_at: str = ""


def replace_book_correlation(db: Database, corr: BookCorrelation) -> None:
    """Insert or replace the stored correlation of (book, EXAM run, rater)."""
    with transaction(db):
        c = exam_book_correlations.c
        run(
            db,
            sa.delete(exam_book_correlations).where(
                c.document_id == corr.document_id,
                c.exam_run_id == corr.exam_run_id,
                c.rater == corr.rater,
            ),
        )
        row = {**asdict(corr), "systems": dumps(corr.systems)}
        run(db, sa.insert(exam_book_correlations).values(**row))


def book_correlations(db: Database, document_id: str | None = None) -> list[dict[str, Any]]:
    """Stored book correlations (of ``document_id`` when given) with the book's title, newest
    first (without the per-system figures)."""
    c, d = exam_book_correlations.alias("c"), documents.alias("d")
    query = sa.select(
        c.c.document_id, d.c.title, c.c.exam_run_id, c.c.experiment, c.c.rater, c.c.n_systems,
        c.c.n_questions, c.c.n_judgments, c.c.n_decisive, c.c.spearman, c.c.kendall,
        c.c.spearman_ties, c.c.kendall_ties, c.c.repeats, c.c.bt_estimate, c.c.created_at,
    ).join_from(c, d, d.c.id == c.c.document_id, isouter=True)  # fmt: skip
    if document_id:
        query = query.where(c.c.document_id == document_id)
    return all_rows(db, query.order_by(c.c.created_at.desc(), c.c.id.desc()))


def latest_book_systems(
    db: Database, document_id: str | None = None
) -> list[dict[str, Any]] | None:
    """The per-system figures of the newest stored correlation (of ``document_id`` when
    given), or None when none is stored."""
    c = exam_book_correlations.c
    query = sa.select(c.systems).order_by(c.created_at.desc(), c.id.desc()).limit(1)
    if document_id:
        query = query.where(c.document_id == document_id)
    found = run(db, query).fetchone()
    if found is None:
        return None
    systems: list[dict[str, Any]] = json.loads(found[0] or "[]")
    return systems
