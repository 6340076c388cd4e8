"""Table ``answers``: the only module with SQL on it (one row per question and system), and its
record :class:`Answer` (``metadata`` decoded). SQLAlchemy Core over :mod:`core.store.tables`
(issue 33): nothing here is translated for PostgreSQL."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Self

import sqlalchemy as sa

from core.store.connection import dumps, transaction
from core.store.prepared import bound_rows, rows_later, run_bound
from core.store.sql_functions import text_size
from core.store.statements import all_rows, json_text, run, run_many
from core.store.stored_enums import stored_enum
from core.store.tables import answers

if TYPE_CHECKING:
    from core.store.engine import Database

#: Answers per insert statement (:func:`insert_answers`).
_CHUNK = 500


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


def _read(db: Database, query: sa.Select[Any]) -> list[Answer]:
    return [Answer.from_row(r) for r in all_rows(db, query)]


_ALL = sa.select(answers)


def get_answer(db: Database, answer_id: int) -> Answer | None:
    """One answer by id (or None)."""
    found = _read(db, _ALL.where(answers.c.id == answer_id))
    return found[0] if found else None


#: A question's answers by system (built once: every Side by side item reads them, issue 37).
_OF_QUESTION = _ALL.where(answers.c.question_id == sa.bindparam("question_id")).order_by(
    answers.c.system
)


def question_answers(db: Database, question_id: str) -> list[Answer]:
    """Every system's answer to a question, by system."""
    found = bound_rows(db, _OF_QUESTION, {"question_id": question_id})
    return [Answer.from_row(r) for r in found]


def answered(db: Database, systems: Sequence[str]) -> set[tuple[str, str]]:
    """(question id, system) of the answers of ``systems`` stored without error."""
    if not systems:
        return set()
    query = sa.select(answers.c.question_id, answers.c.system).where(
        answers.c.status != AnswerStatus.ERROR, answers.c.system.in_(list(systems))
    )
    return {(r[0], r[1]) for r in run(db, query).fetchall()}


def save_answer(db: Database, answer: Answer) -> int:
    """Store a system's answer to a question: insert it, or replace the stored row of the same
    (question, system). Returns the answer id."""
    row = answer.to_row()
    old = run(
        db,
        sa.select(answers.c.id).where(
            answers.c.question_id == answer.question_id, answers.c.system == answer.system
        ),
    ).fetchone()
    if old is None:
        new = run(db, sa.insert(answers).values(**row).returning(answers.c.id)).fetchone()
        return int(new[0] if new else 0)
    run(db, sa.update(answers).where(answers.c.id == old[0]).values(**row))
    return int(old[0])


def max_answer_id(db: Database) -> int:
    """The largest answer id (0 when empty)."""
    return int(run(db, sa.select(sa.func.coalesce(sa.func.max(answers.c.id), 0))).fetchone()[0])


_VERSION = sa.select(
    sa.func.coalesce(sa.func.max(answers.c.id), 0),
    sa.func.count(),
    sa.func.coalesce(sa.func.sum(text_size(answers.c.text)), 0),
    sa.func.count(sa.case((answers.c.status == AnswerStatus.OK, 1))),
)


def answers_version(db: Database) -> tuple[Any, ...]:
    """A cheap fingerprint of the answers table (changes when an answer is added or rewritten)."""
    return tuple(run_bound(db, _VERSION).fetchone())


def answers_version_later(db: Database) -> Callable[[], tuple[Any, ...]]:
    """:func:`answers_version`, sent with the connection's next statement on PostgreSQL
    (:func:`core.store.prepared.rows_later`; issue 33: a Side by side run sends it with the
    team marks' read); call the result for the value."""
    rows = rows_later(db, _VERSION)
    return lambda: tuple(rows()[0])


def answer_pairs(db: Database) -> list[dict[str, Any]]:
    """Every pair of systems with an ok answer to the same question: ``question_id``,
    ``system_1`` < ``system_2`` and their ``text_1`` / ``text_2``, by question and systems."""
    a, b = answers.alias("a"), answers.alias("b")
    query = (
        sa.select(
            a.c.question_id,
            a.c.system.label("system_1"),
            a.c.text.label("text_1"),
            b.c.system.label("system_2"),
            b.c.text.label("text_2"),
        )
        .join_from(a, b, sa.and_(a.c.question_id == b.c.question_id, a.c.system < b.c.system))
        .where(a.c.status == AnswerStatus.OK, b.c.status == AnswerStatus.OK)
        .order_by(a.c.question_id, a.c.system, b.c.system)
    )
    return all_rows(db, query)


def question_answer_count(db: Database, question_id: str) -> int:
    """How many answers a question has (any status)."""
    query = sa.select(sa.func.count()).where(answers.c.question_id == question_id)
    return int(run(db, query).fetchone()[0])


def answers_of_systems(db: Database, systems: Sequence[str]) -> list[Answer]:
    """Every answer of ``systems``, by id."""
    if not systems:
        return []
    return _read(db, _ALL.where(answers.c.system.in_(list(systems))).order_by(answers.c.id))


def answer_ids(db: Database) -> dict[tuple[str, str], int]:
    """(question id, system) -> answer id, of every stored answer."""
    query = sa.select(answers.c.question_id, answers.c.system, answers.c.id)
    return {(r[0], r[1]): int(r[2]) for r in run(db, query).fetchall()}


def answer_texts(db: Database) -> dict[tuple[str, str], tuple[int, str]]:
    """(question id, system) -> (answer id, text), of every stored answer."""
    query = sa.select(answers.c.question_id, answers.c.system, answers.c.id, answers.c.text)
    return {(r[0], r[1]): (int(r[2]), r[3]) for r in run(db, query).fetchall()}


def set_answer_text(db: Database, answer_id: int, text: str) -> None:
    """Replace the text of answer ``answer_id`` and mark it ``ok``."""
    run(db, sa.update(answers).where(answers.c.id == answer_id).values(text=text, status="ok"))


def insert_answers(db: Database, new: Sequence[Answer]) -> None:
    """Insert answers (one ``executemany`` per chunk of :data:`_CHUNK`, each chunk atomic; the
    answers with an id apart from those without)."""
    for i in range(0, len(new), _CHUNK):
        chunk = [a.to_row() for a in new[i : i + _CHUNK]]
        with transaction(db):
            for keyed in (True, False):
                batch = [r for r in chunk if ("id" in r) is keyed]
                run_many(db, sa.insert(answers), batch)


def imported_answer_counts(db: Database) -> dict[str, int]:
    """Per source file named in ``metadata.imported_from``: the answers imported from it."""
    source = json_text(answers.c.metadata, "imported_from")
    query = (
        sa.select(source, sa.func.count())
        .where(sa.func.json_valid(answers.c.metadata), source.is_not(None))
        .group_by(source)
    )
    return {r[0]: int(r[1]) for r in run(db, query).fetchall()}


def systems_by_question(db: Database) -> dict[str, list[str]]:
    """Question id -> the systems that answered it (any status), sorted."""
    query = sa.select(answers.c.question_id, answers.c.system).order_by(
        answers.c.question_id, answers.c.system
    )
    out: dict[str, list[str]] = {}
    for qid, system in run(db, query).fetchall():
        out.setdefault(str(qid), []).append(str(system))
    return out
