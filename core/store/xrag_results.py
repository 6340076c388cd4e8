"""Table ``xrag_results``: the SQL of an XRAG evaluation run, which stores each answer as its
reply arrives (``panel_status = 'pending'``) and then each panel vote, and finishes a result
when its panel is complete (:mod:`core.xrag.evaluate`). SQLAlchemy Core over
:mod:`core.store.tables_more` (issue 33)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa

from core.store.answers import AnswerStatus
from core.store.connection import dumps, transaction
from core.store.engine import NotFoundError
from core.store.statements import all_rows, run
from core.store.tables_more import xrag_results

#: The columns of ``xrag_results``.
_X = xrag_results.c

if TYPE_CHECKING:
    from core.store.engine import Database

#: ``panel_status`` of a result whose answer is stored and whose panel has not voted yet.
PENDING = "pending"
#: The criterion of every verdict on an XRAG answer (the panel's, each judge's, people's): the
#: answer gives the key information of the reference. Defined here, below both
#: :mod:`core.xrag` (which writes the verdicts) and :mod:`core.annotation` (the ``xrag`` task).
XRAG_CRITERION = "xrag-key-info"


def answered_cases(db: Database, model: str, panel: str) -> set[tuple[str, str]]:
    """``(question_id, setting)`` answered without a provider error by ``model`` for ``panel``."""
    return {
        (r[0], r[1])
        for r in run(
            db,
            sa.select(_X.question_id, _X.setting).where(
                _X.model == model, _X.judge_panel == panel, _X.answer_status == AnswerStatus.OK
            ),
        )
    }


def insert_answer(db: Database, row: dict[str, Any]) -> None:
    """Store an answer awaiting its panel (``votes`` empty, status pending), replacing an earlier
    failed answer of the same question, setting, model and panel."""
    with transaction(db):
        failed = sa.delete(xrag_results).where(
            _X.question_id == row["question_id"],
            _X.setting == row["setting"],
            _X.model == row["model"],
            _X.judge_panel == row["judge_panel"],
            _X.answer_status == AnswerStatus.ERROR,
        )
        run(db, failed)
        new = {**row, "documents": dumps(row["documents"]), "votes": "[]", "panel_status": PENDING}
        run(db, sa.insert(xrag_results).values(**new))


def pending_results(db: Database, model: str, panel: str) -> list[dict[str, Any]]:
    """Results of ``model`` and ``panel`` still waiting for votes (``votes`` decoded), by id."""
    query = sa.select(xrag_results).where(
        _X.model == model, _X.judge_panel == panel, _X.panel_status == PENDING
    )
    return all_rows(db, query.order_by(_X.id), also=("votes", "documents"))


def add_vote(db: Database, result_id: int, vote: dict[str, Any]) -> list[Any]:
    """Append one judge's vote to a pending result; return all its votes so far."""
    with transaction(db):
        query = sa.select(_X.id, _X.votes).where(_X.id == result_id)
        found = all_rows(db, query, also=("votes",))
        votes = list(found[0]["votes"]) if found else []
        votes.append(vote)
        change = sa.update(xrag_results).where(_X.id == result_id)
        run(db, change.values(votes=dumps(votes)))
    return votes


def finish_result(db: Database, result_id: int, fields: dict[str, Any]) -> None:
    """Write the panel's outcome (``votes``, ``content_verdict``, ``panel_status``, ``verdict``,
    ``run_id``) on a result (``NotFoundError`` when it is not stored)."""
    change = sa.update(xrag_results).where(_X.id == result_id)
    with transaction(db):
        done = run(db, change.values(**{**fields, "votes": dumps(fields["votes"])}))
        if done.rowcount == 0:
            raise NotFoundError(f"xrag_results has no row {result_id!r}")


def finished_results(db: Database, model: str | None = None) -> list[dict[str, Any]]:
    """Results whose panel has voted (of ``model``, or of every model), by id; an interrupted
    evaluation's answers awaiting the panel are left out."""
    query = sa.select(xrag_results).where(_X.panel_status != PENDING)
    if model:
        query = query.where(_X.model == model)
    return all_rows(db, query.order_by(_X.id))


def get_result(db: Database, result_id: int) -> dict[str, Any] | None:
    """The stored result ``result_id`` (decoded), or None."""
    found = all_rows(db, sa.select(xrag_results).where(_X.id == result_id))
    return found[0] if found else None


def result_ids(db: Database) -> list[int]:
    """The id of every stored result (any panel or answer status), in id order."""
    return [int(r[0]) for r in run(db, sa.select(_X.id).order_by(_X.id))]


def first_result_ids(db: Database) -> dict[tuple[str, str], int]:
    """``(question_id, "MODEL@SETTING")`` -> the lowest result id of that question, model and
    setting (the key a verdict judgment carries; results of other judge panels share it)."""
    found = run(
        db,
        sa.select(_X.question_id, _X.model, _X.setting, sa.func.min(_X.id)).group_by(
            _X.question_id, _X.model, _X.setting
        ),
    )
    return {(str(q), f"{m}@{s}"): int(i) for q, m, s, i in found}


def result_question_ids(db: Database, ids: Sequence[int]) -> dict[int, str]:
    """Result id -> the question it answers, for those of ``ids`` that are stored."""
    if not ids:
        return {}
    found = run(db, sa.select(_X.id, _X.question_id).where(_X.id.in_(list(ids))))
    return {int(i): str(q) for i, q in found}
