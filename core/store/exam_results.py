"""Reads of EXAM grades joined with their articles and questions (leaderboards, per-question
tables), and the ``exam_book_correlations`` table (EXAM against Bradley-Terry on one book)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Self

from core.store.connection import dumps, rows, transaction

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
    sql = (
        "select a.system, a.query_id, g.question_id, g.correct, g.status, g.self_rating "
        "from exam_grades g join exam_articles a on a.id = g.article_id where g.run_id = ?"
    )
    params = [run_id]
    if query_id is not None:
        sql, params = sql + " and a.query_id = ?", [run_id, query_id]
    return [ExamGrade.from_row(r) for r in db.query(sql, params)]


def run_systems(db: Database, run_id: str) -> list[str]:
    """The systems with a grade in ``run_id``, sorted."""
    return [
        r[0]
        for r in db.execute(
            "select distinct a.system from exam_grades g join exam_articles a "
            "on a.id = g.article_id where g.run_id = ? order by a.system",
            [run_id],
        )
    ]


def run_questions_of_query(db: Database, run_id: str, query_id: str) -> int:
    """How many questions of ``query_id`` the bank of ``run_id`` has."""
    n: int = db.execute(
        "select count(*) from exam_questions x join exam_runs r on "
        "r.bank_id = x.bank_id where r.id = ? and x.query_id = ?",
        [run_id, query_id],
    ).fetchone()[0]
    return n


def exam_runs_overview(db: Database) -> list[dict[str, Any]]:
    """Every EXAM run, newest first: ``run_id, bank_id, qa_model, verification, threshold,
    graded`` (number of grades), ``created_at``."""
    return rows(
        db,
        "select r.id as run_id, r.bank_id, r.qa_model, r.verification, r.threshold, "
        "(select count(*) from exam_grades g where g.run_id = r.id) as graded, "
        "r.created_at from exam_runs r order by r.created_at desc",
    )


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
        db.execute(
            "delete from exam_book_correlations where document_id = ? and exam_run_id = ? "
            "and rater = ?",
            [corr.document_id, corr.exam_run_id, corr.rater],
        )
        db.table("exam_book_correlations").insert({**asdict(corr), "systems": dumps(corr.systems)})


def book_correlations(db: Database, document_id: str | None = None) -> list[dict[str, Any]]:
    """Stored book correlations (of ``document_id`` when given) with the book's title, newest
    first (without the per-system figures)."""
    where, params = ("where c.document_id = ?", [document_id]) if document_id else ("", [])
    return rows(
        db,
        "select c.document_id, d.title, c.exam_run_id, c.experiment, c.rater, "
        "c.n_systems, c.n_questions, c.n_judgments, c.n_decisive, c.spearman, "
        "c.kendall, c.spearman_ties, c.kendall_ties, c.repeats, c.bt_estimate, "
        "c.created_at from exam_book_correlations c left join documents d on "
        f"d.id = c.document_id {where} order by c.created_at desc, c.id desc",
        params,
    )


def latest_book_systems(
    db: Database, document_id: str | None = None
) -> list[dict[str, Any]] | None:
    """The per-system figures of the newest stored correlation (of ``document_id`` when
    given), or None when none is stored."""
    where, params = ("where document_id = ?", [document_id]) if document_id else ("", [])
    found = db.execute(
        f"select systems from exam_book_correlations {where} "
        "order by created_at desc, id desc limit 1",
        params,
    ).fetchone()
    if found is None:
        return None
    systems: list[dict[str, Any]] = json.loads(found[0] or "[]")
    return systems
