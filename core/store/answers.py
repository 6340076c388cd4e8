"""Table ``answers``: the only module with SQL on it (one row per question and system;
rows come back decoded by :func:`core.store.connection.rows`)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from core.store.connection import placeholders, rows

if TYPE_CHECKING:
    from core.store.engine import Database

_COLUMN = re.compile(r"^[a-z_]+$")


def _columns(columns: Sequence[str] | None) -> str:
    if columns is None:
        return "*"
    for c in columns:
        if not _COLUMN.match(c):
            raise ValueError(f"not an answers column: {c!r}")
    return ", ".join(columns)


def get_answer(
    db: Database, answer_id: int, columns: Sequence[str] | None = None
) -> dict[str, Any] | None:
    """One answer by id (or None)."""
    found = rows(db, f"select {_columns(columns)} from answers where id = ?", [answer_id])
    return found[0] if found else None


def question_answers(
    db: Database, question_id: str, columns: Sequence[str] | None = None
) -> list[dict[str, Any]]:
    """Every system's answer to a question, by system."""
    return rows(
        db,
        f"select {_columns(columns)} from answers where question_id = ? order by system",
        [question_id],
    )


def answered(db: Database, systems: Sequence[str]) -> set[tuple[str, str]]:
    """(question id, system) of the answers of ``systems`` stored without error."""
    if not systems:
        return set()
    marks = placeholders(systems)
    return {
        (r[0], r[1])
        for r in db.execute(
            "select question_id, system from answers where status != 'error' and "
            f"system in ({marks})",
            list(systems),
        )
    }


def save_answer(db: Database, row: dict[str, Any]) -> int:
    """Store a system's answer to a question: insert it, or replace the stored row of the same
    (question, system). Returns the answer id."""
    old = db.execute(
        "select id from answers where question_id = ? and system = ?",
        [row["question_id"], row["system"]],
    ).fetchone()
    if old is None:
        return int(db.table("answers").insert(row).last_pk or 0)
    db.table("answers").update(old[0], row)
    return int(old[0])


def max_answer_id(db: Database) -> int:
    """The largest answer id (0 when empty)."""
    return int(db.execute("select coalesce(max(id), 0) from answers").fetchone()[0])


def answers_version(db: Database) -> tuple[Any, ...]:
    """A cheap fingerprint of the answers table (changes when an answer is added or rewritten)."""
    return tuple(
        db.execute(
            "select coalesce(max(id), 0), count(*), total(length(text)), total(status = 'ok') "
            "from answers"
        ).fetchone()
    )


def answer_pairs(db: Database) -> list[dict[str, Any]]:
    """Every pair of systems with an ok answer to the same question: ``question_id``,
    ``system_1`` < ``system_2`` and their ``text_1`` / ``text_2``, by question and systems."""
    return rows(
        db,
        "select a.question_id, a.system as system_1, a.text as text_1, b.system as system_2, "
        "b.text as text_2 from answers a join answers b on a.question_id = b.question_id and "
        "a.system < b.system where a.status = 'ok' and b.status = 'ok' "
        "order by a.question_id, a.system, b.system",
    )


def question_answer_count(db: Database, question_id: str) -> int:
    """How many answers a question has (any status)."""
    return int(
        db.execute("select count(*) from answers where question_id = ?", [question_id]).fetchone()[
            0
        ]
    )


def answers_of_systems(db: Database, systems: Sequence[str]) -> list[dict[str, Any]]:
    """Every answer of ``systems`` (decoded), by id."""
    if not systems:
        return []
    marks = placeholders(systems)
    return rows(db, f"select * from answers where system in ({marks}) order by id", list(systems))


def answer_ids(db: Database) -> dict[tuple[str, str], int]:
    """(question id, system) -> answer id, of every stored answer."""
    return {
        (r[0], r[1]): int(r[2]) for r in db.execute("select question_id, system, id from answers")
    }


def answer_texts(db: Database) -> dict[tuple[str, str], tuple[int, str]]:
    """(question id, system) -> (answer id, text), of every stored answer."""
    return {
        (r[0], r[1]): (int(r[2]), r[3])
        for r in db.execute("select question_id, system, id, text from answers")
    }


def set_answer_text(db: Database, answer_id: int, text: str) -> None:
    """Replace the text of answer ``answer_id`` and mark it ``ok``."""
    db.execute("update answers set text = ?, status = 'ok' where id = ?", [text, answer_id])


def insert_answers(db: Database, new: Sequence[dict[str, Any]]) -> None:
    """Insert answer rows (one batch statement per chunk)."""
    if new:
        db.table("answers").insert_all(new)


def imported_answer_counts(db: Database) -> dict[str, int]:
    """Per source file named in ``metadata.imported_from``: the answers imported from it."""
    return {
        r[0]: int(r[1])
        for r in db.execute(
            "select json_extract(metadata, '$.imported_from'), count(*) from answers "
            "where json_valid(metadata) and json_extract(metadata, '$.imported_from') is not null "
            "group by 1"
        )
    }
