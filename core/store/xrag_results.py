"""Table ``xrag_results``: the SQL of an XRAG evaluation run, which stores each answer as its
reply arrives (``panel_status = 'pending'``) and then each panel vote, and finishes a result
when its panel is complete (:mod:`core.xrag.evaluate`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from core.store.connection import dumps, placeholders, rows, transaction

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
        for r in db.execute(
            "select question_id, setting from xrag_results where model = ? and judge_panel = ? "
            "and answer_status = 'ok'",
            [model, panel],
        )
    }


def insert_answer(db: Database, row: dict[str, Any]) -> None:
    """Store an answer awaiting its panel (``votes`` empty, status pending), replacing an earlier
    failed answer of the same question, setting, model and panel."""
    with transaction(db):
        db.execute(
            "delete from xrag_results where question_id = ? and setting = ? and model = ? "
            "and judge_panel = ? and answer_status = 'error'",
            [row["question_id"], row["setting"], row["model"], row["judge_panel"]],
        )
        db.table("xrag_results").insert(
            {
                **row,
                "documents": dumps(row["documents"]),
                "votes": "[]",
                "panel_status": PENDING,
            }
        )


def pending_results(db: Database, model: str, panel: str) -> list[dict[str, Any]]:
    """Results of ``model`` and ``panel`` still waiting for votes (``votes`` decoded), by id."""
    return rows(
        db,
        "select * from xrag_results where model = ? and judge_panel = ? "
        "and panel_status = ? order by id",
        [model, panel, PENDING],
        also=("votes", "documents"),
    )


def add_vote(db: Database, result_id: int, vote: dict[str, Any]) -> list[Any]:
    """Append one judge's vote to a pending result; return all its votes so far."""
    with transaction(db):
        found = rows(
            db, "select id, votes from xrag_results where id = ?", [result_id], also=("votes",)
        )
        votes = list(found[0]["votes"]) if found else []
        votes.append(vote)
        db.execute("update xrag_results set votes = ? where id = ?", [dumps(votes), result_id])
    return votes


def finish_result(db: Database, result_id: int, fields: dict[str, Any]) -> None:
    """Write the panel's outcome (``votes``, ``content_verdict``, ``panel_status``, ``verdict``,
    ``run_id``) on a result."""
    with transaction(db):
        db.table("xrag_results").update(result_id, {**fields, "votes": dumps(fields["votes"])})


def finished_results(db: Database, model: str | None = None) -> list[dict[str, Any]]:
    """Results whose panel has voted (of ``model``, or of every model), by id; an interrupted
    evaluation's answers awaiting the panel are left out."""
    sql = "select * from xrag_results where panel_status != ?" + (" and model = ?" if model else "")
    return rows(db, sql + " order by id", [PENDING, model] if model else [PENDING])


def get_result(db: Database, result_id: int) -> dict[str, Any] | None:
    """The stored result ``result_id`` (decoded), or None."""
    found = rows(db, "select * from xrag_results where id = ?", [result_id])
    return found[0] if found else None


def result_ids(db: Database) -> list[int]:
    """The id of every stored result (any panel or answer status), in id order."""
    return [int(r[0]) for r in db.execute("select id from xrag_results order by id")]


def first_result_ids(db: Database) -> dict[tuple[str, str], int]:
    """``(question_id, "MODEL@SETTING")`` -> the lowest result id of that question, model and
    setting (the key a verdict judgment carries; results of other judge panels share it)."""
    found = db.execute(
        "select question_id, model, setting, min(id) from xrag_results "
        "group by question_id, model, setting"
    )
    return {(str(q), f"{m}@{s}"): int(i) for q, m, s, i in found}


def result_question_ids(db: Database, ids: Sequence[int]) -> dict[int, str]:
    """Result id -> the question it answers, for those of ``ids`` that are stored."""
    if not ids:
        return {}
    found = db.execute(
        f"select id, question_id from xrag_results where id in ({placeholders(ids)})", list(ids)
    )
    return {int(i): str(q) for i, q in found}
