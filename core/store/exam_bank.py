"""Tables ``exam_banks``, ``exam_queries``, ``exam_questions`` and ``exam_articles``: EXAM's
question banks and the articles graded against them (migration m0500). Exam questions never
enter ``questions``, so no answering system can see them."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Self

from core.store.connection import dumps, placeholders, rows, utcnow
from core.store.row_stage import RowStage, stage_rows

if TYPE_CHECKING:
    from core.store.engine import Database


def _json(value: Any, empty: Any) -> Any:
    if isinstance(value, str):
        return json.loads(value) if value else empty
    return empty if value is None else value


@dataclass(frozen=True, slots=True)
class ExamQuestion:
    """An ``exam_questions`` row: ``choices`` ``{key: text}`` for multiple choice (None for free
    text), ``answers`` the reference answers of a free-text question."""

    id: str
    bank_id: str
    query_id: str
    qid: str
    question: str
    choices: dict[str, str] | None = None
    correct_key: str | None = None
    correct: str | None = None
    answers: list[str] = field(default_factory=list)
    facet_id: str = ""
    source_question_id: str | None = None
    line: int | None = None
    metadata: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> Self:
        """A question from its row (JSON columns as text or decoded)."""
        return cls(
            id=row["id"],
            bank_id=row["bank_id"],
            query_id=row["query_id"],
            qid=row["qid"],
            question=row["question"],
            choices=_json(row["choices"], None) or None,
            correct_key=row["correct_key"],
            correct=row["correct"],
            answers=list(_json(row["answers"], [])),
            facet_id=row["facet_id"] or "",
            source_question_id=row["source_question_id"],
            line=row["line"],
            metadata=dict(_json(row["metadata"], {})),
        )


@dataclass(frozen=True, slots=True)
class ExamBank:
    """An ``exam_banks`` row (counts filled in by the importer)."""

    id: str
    name: str
    source: str
    path: str
    document_id: str | None
    n_queries: int
    n_questions: int


@dataclass(frozen=True, slots=True)
class ExamArticle:
    """An article to store for a (bank, query, system)."""

    bank_id: str
    query_id: str
    system: str
    kind: str
    text: str
    n_tokens: int
    metadata: dict[str, Any] = field(default_factory=dict)
    run_id: str | None = None


def bank_exists(db: Database, bank_id: str) -> bool:
    """Whether the exam bank ``bank_id`` is stored."""
    return db.execute("select 1 from exam_banks where id = ?", [bank_id]).fetchone() is not None


def query_exists(db: Database, bank_id: str, query_id: str) -> bool:
    """Whether ``query_id`` is a query of ``bank_id``."""
    found = db.execute(
        "select 1 from exam_queries where bank_id = ? and query_id = ?", [bank_id, query_id]
    ).fetchone()
    return found is not None


def replace_bank(
    db: Database,
    bank: ExamBank,
    queries: Mapping[str, str],
    query_documents: Mapping[str, str] | None = None,
) -> None:
    """(Re)create the bank row and its queries (``{query_id: text}``); old questions and grades
    of the bank go. Call inside a transaction."""
    if bank_exists(db, bank.id):
        db.execute(
            "delete from exam_grades where question_id in "
            "(select id from exam_questions where bank_id = ?)",
            [bank.id],
        )
        db.execute("delete from exam_questions where bank_id = ?", [bank.id])
    db.table("exam_banks").upsert(
        {**asdict(bank), "metadata": "{}", "created_at": utcnow()},
        pk="id",
    )
    for qid, text in queries.items():
        db.table("exam_queries").upsert(
            {
                "bank_id": bank.id,
                "query_id": qid,
                "query_text": text,
                "document_id": (query_documents or {}).get(qid),
            },
            pk=("bank_id", "query_id"),
        )


def insert_exam_questions(db: Database, questions: Iterable[ExamQuestion]) -> None:
    """Insert the questions of a bank (after :func:`replace_bank`, in its transaction)."""
    db.table("exam_questions").insert_all((_question_row(q) for q in questions), batch_size=500)


def stage_exam_questions(db: Database, questions: Sequence[ExamQuestion]) -> RowStage:
    """Stage the questions of a bank outside any transaction (:mod:`core.store.row_stage`: no
    lock held); :func:`core.store.row_stage.switch_rows` copies them in after
    :func:`replace_bank`, :func:`core.store.row_stage.drop_rows_stage` removes the stage."""
    return stage_rows(db, "exam_questions", [_question_row(q) for q in questions])


def _question_row(q: ExamQuestion) -> dict[str, Any]:
    return {
        **asdict(q),
        "choices": None if q.choices is None else dumps(q.choices),
        "answers": dumps(q.answers),
        "metadata": dumps(q.metadata),
    }


def bank_questions(db: Database, bank_id: str) -> list[ExamQuestion]:
    """Every question of a bank, ordered by query and qid."""
    return [
        ExamQuestion.from_row(r)
        for r in db.query(
            "select * from exam_questions where bank_id = ? order by query_id, qid", [bank_id]
        )
    ]


def bank_queries(db: Database, bank_id: str) -> list[dict[str, Any]]:
    """The queries of a bank with their question counts (``query_id, query_text, document_id,
    n_questions``)."""
    return rows(
        db,
        "select q.query_id, q.query_text, q.document_id, count(x.id) as n_questions "
        "from exam_queries q left join exam_questions x on x.bank_id = q.bank_id "
        "and x.query_id = q.query_id where q.bank_id = ? group by q.bank_id, q.query_id "
        "order by q.query_id",
        [bank_id],
    )


def count_bank_questions(db: Database, bank_id: str, query_id: str | None = None) -> int:
    """How many questions the bank has (of ``query_id`` when given)."""
    sql, params = "select count(*) from exam_questions where bank_id = ?", [bank_id]
    if query_id is not None:
        sql, params = sql + " and query_id = ?", [bank_id, query_id]
    n: int = db.execute(sql, params).fetchone()[0]
    return n


def questions_per_query(db: Database, bank_id: str) -> dict[str, int]:
    """``{query_id: number of questions}`` of a bank."""
    return {
        r[0]: r[1]
        for r in db.execute(
            "select query_id, count(*) from exam_questions where bank_id = ? group by query_id",
            [bank_id],
        )
    }


def run_query_ids(db: Database, run_id: str) -> list[str]:
    """The query ids of an EXAM run's bank, sorted."""
    return [
        r[0]
        for r in db.execute(
            "select q.query_id from exam_queries q join exam_runs r on r.bank_id = q.bank_id "
            "where r.id = ? order by q.query_id",
            [run_id],
        )
    ]


def replace_article(db: Database, article: ExamArticle) -> int:
    """Insert the article of (bank, query, system), replacing the stored one (its grades go by
    cascade) unless it is the same (kept with its grades: nothing written); returns its id.
    Call inside a transaction."""
    key = [article.bank_id, article.query_id, article.system]
    where = "where bank_id = ? and query_id = ? and system = ?"
    found = rows(db, f"select * from exam_articles {where}", key)
    if found and all(found[0][k] == v for k, v in asdict(article).items()):
        return int(found[0]["id"])
    db.execute(f"delete from exam_articles {where}", key)
    row = {**asdict(article), "metadata": dumps(article.metadata), "created_at": utcnow()}
    new_id = db.table("exam_articles").insert(row).last_pk
    return int(new_id or 0)


def delete_bank_articles(db: Database, bank_id: str, keep: Sequence[int] = ()) -> None:
    """Remove every article of a bank but those of ids ``keep`` (their grades go by cascade)."""
    db.execute(
        f"delete from exam_articles where bank_id = ? and id not in ({placeholders(keep)})",
        [bank_id, *keep],
    )


def bank_articles(db: Database, bank_id: str) -> list[dict[str, Any]]:
    """Stored articles of a bank (``metadata`` decoded), by system and query."""
    return rows(
        db, "select * from exam_articles where bank_id = ? order by system, query_id", [bank_id]
    )
