"""Tables ``exam_runs`` and ``exam_grades``: the SQL of an EXAM grading run, which stores each
grade in its own short transaction as its reply arrives (:mod:`core.exam.grading`). SQLAlchemy
Core over :mod:`core.store.tables_exam` (issue 33)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import sqlalchemy as sa

from core.store.connection import dumps, transaction
from core.store.statements import all_rows, insert, upsert
from core.store.statements import run as run_sql  # ``run`` is the run record here
from core.store.tables_exam import exam_grades, exam_runs

if TYPE_CHECKING:
    from core.store.engine import Database

#: The key a grade collides on: one grade per run, article and question.
_GRADE_KEY = ("run_id", "article_id", "question_id")


def open_exam_run(db: Database, run: dict[str, Any]) -> bool:
    """Upsert the ``exam_runs`` row ``run`` (``config`` a dict) before its grades are stored.

    When the stored run has another configuration its grades are deleted (the run is graded
    afresh); grades of the same configuration are kept, so a rerun grades only what is missing.
    Returns True when grades were deleted.
    """
    with transaction(db):
        query = sa.select(exam_runs.c.config).where(exam_runs.c.id == run["id"])
        stored = all_rows(db, query)
        reset = bool(stored) and stored[0]["config"] != run["config"]
        if reset:
            run_sql(db, sa.delete(exam_grades).where(exam_grades.c.run_id == run["id"]))
        run_sql(db, upsert(db, exam_runs, {**run, "config": dumps(run["config"])}))
    return reset


def get_exam_run(db: Database, run_id: str) -> dict[str, Any] | None:
    """The stored ``exam_runs`` row ``run_id`` (decoded), or None."""
    found = all_rows(db, sa.select(exam_runs).where(exam_runs.c.id == run_id))
    return found[0] if found else None


def graded_pairs(db: Database, run_id: str) -> set[tuple[int, str]]:
    """``(article_id, question_id)`` of the run's grades stored without a provider error."""
    g = exam_grades.c
    query = sa.select(g.article_id, g.question_id).where(g.run_id == run_id, g.status != "error")
    return {(r[0], r[1]) for r in run_sql(db, query)}


def save_grade(db: Database, grade: dict[str, Any]) -> None:
    """Insert one grade, replacing the run's earlier (error) grade of the same pair (its other
    given columns overwritten, its id kept; each dialect's ``on_conflict_do_update``)."""
    new = insert(db, exam_grades).values(**grade)
    sets = {name: new.excluded[name] for name in grade if name not in (*_GRADE_KEY, "id")}
    with transaction(db):
        run_sql(db, new.on_conflict_do_update(index_elements=list(_GRADE_KEY), set_=sets))


def unrated_grades(db: Database, run_id: str) -> list[dict[str, Any]]:
    """The run's answered (``ok``) grades that no model rater has rated yet."""
    g = exam_grades.c
    query = sa.select(g.id, g.question_id, g.answer).where(
        g.run_id == run_id, g.status == "ok", g.rater == ""
    )
    return all_rows(db, query.order_by(g.id))


def rate_grade(
    db: Database,
    grade_id: int,
    *,
    rater: str,
    correct: int | None,
    status: str,
    raw: str | None = None,
) -> None:
    """Record a model rater's verdict on a grade (``raw`` replaced only when given)."""
    g = exam_grades.c
    change = sa.update(exam_grades).where(g.id == grade_id)
    sets = {"rater": rater, "correct": correct, "status": status}
    with transaction(db):
        run_sql(db, change.values(**sets, raw=sa.func.coalesce(raw, g.raw)))
