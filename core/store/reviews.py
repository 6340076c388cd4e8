"""Table ``reviews``: the only module with SQL on it (question reviews by people).

Reviews are append-only (triggers abort UPDATE and DELETE): a changed review is a new row whose
``supersedes`` names the annotator's previous one, and :func:`effective_reviews` is the one
reader of the rows no later row supersedes. Rows come back decoded (``checklist`` as a dict) by
:func:`core.store.connection.rows`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from core.store.connection import rows
from core.store.schema import not_superseded

if TYPE_CHECKING:  # sqlite_utils imports pandas: load it only when a database is opened
    import sqlite_utils


def insert_review(db: sqlite_utils.Database, row: dict[str, Any]) -> int:
    """Append one review row (``checklist`` already JSON text); returns its id."""
    return int(db.table("reviews").insert(row).last_pk or 0)


def effective_reviews(
    db: sqlite_utils.Database, question_id: str | None = None, *, origin: str | None = None
) -> list[dict[str, Any]]:
    """The effective (not superseded) reviews, oldest first: of one question when
    ``question_id`` is given, of the questions of ``origin`` when that is given."""
    where: list[str] = [not_superseded("reviews", "r")]
    params: list[Any] = []
    if question_id is not None:
        where.append("r.question_id = ?")
        params.append(question_id)
    if origin is not None:
        where.append("r.question_id in (select id from questions where origin = ?)")
        params.append(origin)
    return rows(db, f"select r.* from reviews r where {' and '.join(where)} order by r.id", params)


def question_reviews(db: sqlite_utils.Database, question_id: str) -> list[dict[str, Any]]:
    """Every review of a question, superseded ones too (the history), by id."""
    return rows(db, "select * from reviews where question_id = ? order by id", [question_id])


def reviewers(db: sqlite_utils.Database) -> dict[str, set[str]]:
    """Question id -> the annotators with an effective review of it."""
    who: dict[str, set[str]] = {}
    for qid, annotator in db.execute(
        f"select question_id, annotator from reviews r where {not_superseded('reviews', 'r')}"
    ):
        who.setdefault(qid, set()).add(annotator)
    return who


def review_count(db: sqlite_utils.Database, question_id: str) -> int:
    """How many review rows (superseded ones too) a question has."""
    return int(
        db.execute("select count(*) from reviews where question_id = ?", [question_id]).fetchone()[
            0
        ]
    )
