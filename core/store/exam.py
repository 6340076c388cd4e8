"""Tables ``exam_runs`` and ``exam_grades``: the SQL of an EXAM grading run, which stores each
grade in its own short transaction as its reply arrives (:mod:`core.exam.grading`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from core.store.connection import dumps, rows, transaction

if TYPE_CHECKING:
    from core.store.engine import Database


def open_exam_run(db: Database, run: dict[str, Any]) -> bool:
    """Upsert the ``exam_runs`` row ``run`` (``config`` a dict) before its grades are stored.

    When the stored run has another configuration its grades are deleted (the run is graded
    afresh); grades of the same configuration are kept, so a rerun grades only what is missing.
    Returns True when grades were deleted.
    """
    with transaction(db):
        stored = rows(db, "select config from exam_runs where id = ?", [run["id"]])
        reset = bool(stored) and stored[0]["config"] != run["config"]
        if reset:
            db.execute("delete from exam_grades where run_id = ?", [run["id"]])
        db.table("exam_runs").upsert({**run, "config": dumps(run["config"])}, pk="id")
    return reset


def get_exam_run(db: Database, run_id: str) -> dict[str, Any] | None:
    """The stored ``exam_runs`` row ``run_id`` (decoded), or None."""
    found = rows(db, "select * from exam_runs where id = ?", [run_id])
    return found[0] if found else None


def graded_pairs(db: Database, run_id: str) -> set[tuple[int, str]]:
    """``(article_id, question_id)`` of the run's grades stored without a provider error."""
    return {
        (r[0], r[1])
        for r in db.execute(
            "select article_id, question_id from exam_grades where run_id = ? "
            "and status != 'error'",
            [run_id],
        )
    }


def save_grade(db: Database, grade: dict[str, Any]) -> None:
    """Insert one grade, replacing the run's earlier (error) grade of the same pair."""
    with transaction(db):
        db.table("exam_grades").insert(grade, replace=True)


def unrated_grades(db: Database, run_id: str) -> list[dict[str, Any]]:
    """The run's answered (``ok``) grades that no model rater has rated yet."""
    return rows(
        db,
        "select id, question_id, answer from exam_grades "
        "where run_id = ? and status = 'ok' and rater = '' order by id",
        [run_id],
    )


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
    with transaction(db):
        db.execute(
            "update exam_grades set rater = ?, correct = ?, status = ?, raw = coalesce(?, raw) "
            "where id = ?",
            [rater, correct, status, raw, grade_id],
        )
