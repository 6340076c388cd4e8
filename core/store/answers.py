"""Table ``answers``: the only module with SQL on it (one row per question and system), and its
record :class:`Answer` (``metadata`` decoded)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Self

from core.store.connection import dumps, placeholders, rows
from core.store.stored_enums import stored_enum

if TYPE_CHECKING:
    from core.store.engine import Database


class AnswerStatus(StrEnum):
    """How an answer ended: text given, the model declined, or the call failed."""

    OK = "ok"
    ABSTAINED = "abstained"
    ERROR = "error"


@dataclass(frozen=True, slots=True)
class Answer:
    """One ``answers`` row: a system's answer to a question (``id`` 0 until stored)."""

    question_id: str
    system: str
    created_at: str
    text: str = ""
    status: AnswerStatus = AnswerStatus.OK
    error: str = ""
    context_tokens: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    cache_key: str | None = None
    run_id: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    id: int = 0

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> Self:
        """The record of a decoded row (:func:`core.store.connection.rows`)."""
        metadata = row["metadata"]
        return cls(
            **{
                **row,
                "status": stored_enum(AnswerStatus, row["status"], "status", row["id"]),
                "metadata": dict(metadata) if isinstance(metadata, dict) else {},
            }
        )

    def to_row(self) -> dict[str, Any]:
        """The row to store (``metadata`` encoded; no ``id`` while it is 0)."""
        out = asdict(self)
        out.update(metadata=dumps(self.metadata), status=str(self.status))
        if not self.id:
            del out["id"]
        return out


def _read(db: Database, sql: str, params: Sequence[Any] = ()) -> list[Answer]:
    return [Answer.from_row(r) for r in rows(db, sql, params)]


def get_answer(db: Database, answer_id: int) -> Answer | None:
    """One answer by id (or None)."""
    found = _read(db, "select * from answers where id = ?", [answer_id])
    return found[0] if found else None


def question_answers(db: Database, question_id: str) -> list[Answer]:
    """Every system's answer to a question, by system."""
    return _read(db, "select * from answers where question_id = ? order by system", [question_id])


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


def save_answer(db: Database, answer: Answer) -> int:
    """Store a system's answer to a question: insert it, or replace the stored row of the same
    (question, system). Returns the answer id."""
    row = answer.to_row()
    old = db.execute(
        "select id from answers where question_id = ? and system = ?",
        [answer.question_id, answer.system],
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
            "select coalesce(max(id), 0), count(*), coalesce(sum(length(text)), 0), "
            "coalesce(sum(status = 'ok'), 0) from answers"  # total() is SQLite's only
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


def answers_of_systems(db: Database, systems: Sequence[str]) -> list[Answer]:
    """Every answer of ``systems``, by id."""
    if not systems:
        return []
    marks = placeholders(systems)
    return _read(db, f"select * from answers where system in ({marks}) order by id", list(systems))


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


def insert_answers(db: Database, new: Sequence[Answer]) -> None:
    """Insert answers (one batch statement per chunk)."""
    if new:
        db.table("answers").insert_all([a.to_row() for a in new])


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
