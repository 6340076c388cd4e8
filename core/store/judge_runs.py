"""What auto-raters' runs stored in table ``judgments`` (SQL on it besides
:mod:`core.store.judgments`): what a judge already judged, the failed row a retry supersedes,
the calls stored per question, a run's rows, the latest verdict per answer."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from core.store.connection import placeholders, rows
from core.store.judgments import Judgment

if TYPE_CHECKING:
    from core.store.engine import Database


def judged_answer_ids(db: Database, rater: str) -> set[int]:
    """Answer ids ``rater`` judged (absolute) without an error."""
    return {
        int(r[0])
        for r in db.execute(
            "select answer_id from judgments where rater = ? and kind = 'absolute' "
            "and status != 'error'",
            [rater],
        )
    }


def judged_pairs(db: Database, rater: str) -> set[tuple[str, str, str]]:
    """(question id, system A, system B) ``rater`` judged side by side without an error."""
    return {
        (r[0], r[1], r[2])
        for r in db.execute(
            "select question_id, system_a, system_b from judgments where rater = ? "
            "and kind = 'pairwise' and status != 'error'",
            [rater],
        )
    }


def last_error_id(
    db: Database,
    rater: str,
    *,
    answer_id: int | None = None,
    pair: tuple[str, str, str] | None = None,
) -> int | None:
    """Id of ``rater``'s latest failed judgment of an answer (or of a (question, A, B) pair):
    the row a retry supersedes."""
    params: list[Any]
    if pair is not None:
        where, params = "question_id = ? and system_a = ? and system_b = ?", list(pair)
    else:
        where, params = "answer_id = ?", [answer_id]
    found = db.execute(
        f"select max(id) from judgments where rater = ? and status = 'error' and {where}",
        [rater, *params],
    ).fetchone()[0]
    return None if found is None else int(found)


def stored_call_counts(
    db: Database, rater: str, kind: str, systems: Sequence[str]
) -> dict[str, int]:
    """Per question: ``rater``'s judgments of ``kind`` stored without error on ``systems``
    (pairwise: both systems among them)."""
    marks = placeholders(systems)
    if kind == "pairwise":
        cond = f"system_a in ({marks}) and system_b in ({marks})"
        params = [rater, kind, *systems, *systems]
    else:
        cond = f"system in ({marks})"
        params = [rater, kind, *systems]
    sql = (
        "select question_id, count(*) from judgments where rater = ? and kind = ? and "
        f"status != 'error' and {cond} group by question_id"
    )
    return {r[0]: int(r[1]) for r in db.execute(sql, params)}


def run_judgments(db: Database, rater: str, run_id: str, kind: str) -> list[Judgment]:
    """Every judgment of ``kind`` that ``rater`` stored in run ``run_id`` (superseded ones and
    errors too), by id."""
    found = rows(
        db,
        "select * from judgments where rater = ? and run_id = ? and kind = ? order by id",
        [rater, run_id, kind],
    )
    return [Judgment.from_row(r) for r in found]


def latest_verdicts(
    db: Database, criterion: str, *, rater: str | None = None, rater_prefix: str = ""
) -> dict[tuple[str, str], str]:
    """(question id, system) -> the latest non-null verdict on ``criterion`` by ``rater`` (or by
    any rater whose name starts with ``rater_prefix``)."""
    params: list[Any]
    if rater is not None:
        cond, params = "rater = ?", [rater]
    else:
        cond, params = "substr(rater, 1, ?) = ?", [len(rater_prefix), rater_prefix]
    got: dict[tuple[str, str], str] = {}
    for r in db.execute(
        "select question_id, system, verdict from judgments where criterion = ? and verdict is "
        f"not null and {cond} order by id",
        [criterion, *params],
    ):
        got[(r[0], r[1])] = r[2]
    return got
