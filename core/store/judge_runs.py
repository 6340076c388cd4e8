"""What auto-raters' runs stored in table ``judgments`` (SQL on it besides
:mod:`core.store.judgments`): what a judge already judged, the failed row a retry supersedes,
the calls stored per question, a run's rows, the latest verdict per answer. SQLAlchemy Core over
:mod:`core.store.tables` (issue 33)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import sqlalchemy as sa

from core.store.judgments import Judgment, JudgmentKind, JudgmentStatus
from core.store.statements import all_rows, run
from core.store.tables import judgments as j

if TYPE_CHECKING:
    from core.store.engine import Database


def judged_answer_ids(db: Database, rater: str) -> set[int]:
    """Answer ids ``rater`` judged (absolute) without an error."""
    return {
        int(r[0])
        for r in run(
            db,
            sa.select(j.c.answer_id).where(
                j.c.rater == rater,
                j.c.kind == JudgmentKind.ABSOLUTE,
                j.c.status != JudgmentStatus.ERROR,
            ),
        )
    }


def judged_pairs(db: Database, rater: str) -> set[tuple[str, str, str]]:
    """(question id, system A, system B) ``rater`` judged side by side without an error."""
    return {
        (r[0], r[1], r[2])
        for r in run(
            db,
            sa.select(j.c.question_id, j.c.system_a, j.c.system_b).where(
                j.c.rater == rater,
                j.c.kind == JudgmentKind.PAIRWISE,
                j.c.status != JudgmentStatus.ERROR,
            ),
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
    where: list[sa.ColumnElement[bool]]
    if pair is not None:
        question, a, b = pair
        where = [j.c.question_id == question, j.c.system_a == a, j.c.system_b == b]
    else:
        where = [j.c.answer_id == answer_id]
    query = sa.select(sa.func.max(j.c.id)).where(
        j.c.rater == rater, j.c.status == JudgmentStatus.ERROR, *where
    )
    found = run(db, query).fetchone()[0]
    return None if found is None else int(found)


def stored_call_counts(
    db: Database, rater: str, kind: str, systems: Sequence[str]
) -> dict[str, int]:
    """Per question: ``rater``'s judgments of ``kind`` stored without error on ``systems``
    (pairwise: both systems among them)."""
    names = list(systems)
    if kind == JudgmentKind.PAIRWISE:
        cond = [j.c.system_a.in_(names), j.c.system_b.in_(names)]
    else:
        cond = [j.c.system.in_(names)]
    query = (
        sa.select(j.c.question_id, sa.func.count())
        .where(j.c.rater == rater, j.c.kind == kind, j.c.status != JudgmentStatus.ERROR, *cond)
        .group_by(j.c.question_id)
    )
    return {r[0]: int(r[1]) for r in run(db, query)}


def run_judgments(db: Database, rater: str, run_id: str, kind: str) -> list[Judgment]:
    """Every judgment of ``kind`` that ``rater`` stored in run ``run_id`` (superseded ones and
    errors too), by id."""
    query = sa.select(j).where(j.c.rater == rater, j.c.run_id == run_id, j.c.kind == kind)
    found = all_rows(db, query.order_by(j.c.id))
    return [Judgment.from_row(r) for r in found]


def latest_verdicts(
    db: Database, criterion: str, *, rater: str | None = None, rater_prefix: str = ""
) -> dict[tuple[str, str], str]:
    """(question id, system) -> the latest non-null verdict on ``criterion`` by ``rater`` (or by
    any rater whose name starts with ``rater_prefix``)."""
    if rater is not None:
        cond = j.c.rater == rater
    else:
        cond = sa.func.substr(j.c.rater, 1, len(rater_prefix)) == rater_prefix
    got: dict[tuple[str, str], str] = {}
    query = sa.select(j.c.question_id, j.c.system, j.c.verdict).where(
        j.c.criterion == criterion, j.c.verdict.is_not(None), cond
    )
    for r in run(db, query.order_by(j.c.id)):
        got[(r[0], r[1])] = r[2]
    return got
