"""Table ``questions``: the only module with SQL on it, and its record :class:`Question`.

Readers return :class:`Question` records (``answers``, ``provenance``, ``metadata`` decoded);
writers take records or typed keyword arguments and encode the JSON columns themselves.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Self, TypedDict, Unpack

from core.store.connection import dumps, placeholders, rows
from core.store.stored_enums import stored_enum

if TYPE_CHECKING:
    from core.store.engine import Database

_COLUMN = re.compile(r"^[a-z_]+$")
#: Columns :func:`find_question_ids` may filter on by equality.
FILTER_COLUMNS = ("document_id", "entity_id", "qtype", "status", "origin")
#: The JSON columns of ``questions``.
_JSON = ("answers", "provenance", "metadata")
#: Columns :func:`upsert_question` keeps on a stored question.
_KEPT = ("id", "created_at", "status", "metadata", "entity_id", "parent_id")


class QuestionStatus(StrEnum):
    """Where a question stands in review (``needs_review``: an entity edit put it back)."""

    PENDING = "pending"
    ACCEPTED = "accepted"
    EDITED = "edited"
    REJECTED = "rejected"
    DISCARDED = "discarded"
    NEEDS_REVIEW = "needs_review"
    DISPUTED = "disputed"


class QuestionOrigin(StrEnum):
    """Where a question comes from."""

    GENERATED = "generated"
    NARRATIVEQA = "narrativeqa"
    IMPORTED = "imported"
    EXAM = "exam"
    XRAG = "xrag"


@dataclass(frozen=True, slots=True)
class Question:
    """One ``questions`` row; ``answers`` are the reference answers."""

    id: str
    question: str
    origin: QuestionOrigin
    created_at: str
    updated_at: str
    document_id: str | None = None
    context_document_id: str | None = None
    context_kind: str = "story"
    answers: list[Any] = field(default_factory=list)
    split: str = ""
    qtype: str = ""
    entity_id: int | None = None
    language: str = "en"
    parent_id: str | None = None
    status: QuestionStatus = QuestionStatus.PENDING
    provenance: dict[str, Any] = field(default_factory=dict)
    metadata: dict[str, Any] = field(default_factory=dict)
    run_id: str | None = None

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> Self:
        """The record of a decoded row (:func:`core.store.connection.rows`)."""
        return cls(
            **{
                **row,
                "origin": stored_enum(QuestionOrigin, row["origin"], "origin", row["id"]),
                "status": stored_enum(QuestionStatus, row["status"], "status", row["id"]),
                "answers": list(row["answers"] or []),
                "provenance": dict(row["provenance"] or {}),
                "metadata": dict(row["metadata"] or {}),
            }
        )

    def as_dict(self) -> dict[str, Any]:
        """Every column with plain values (enums as their text), e.g. for display."""
        return {**asdict(self), "origin": str(self.origin), "status": str(self.status)}

    def to_row(self) -> dict[str, Any]:
        """The row to store (JSON columns encoded, enums as their text). Read field by field
        (``asdict`` deep-copies the JSON columns: 40% of importing 26,919 arena battles), names
        from the class (``fields()`` per row cost too)."""
        out = {name: getattr(self, name) for name in self.__dataclass_fields__}
        out["origin"], out["status"] = str(self.origin), str(self.status)
        return {**out, **{k: dumps(out[k]) for k in _JSON}}


class QuestionUpdate(TypedDict, total=False):
    """Columns :func:`update_question` may set (JSON columns as Python values)."""

    question: str
    answers: list[Any]
    status: QuestionStatus
    metadata: dict[str, Any]
    updated_at: str


def _read(db: Database, sql: str, params: Sequence[Any] = ()) -> list[Question]:
    return [Question.from_row(r) for r in rows(db, sql, params)]


def _column(column: str) -> str:
    if not _COLUMN.match(column):
        raise ValueError(f"not a questions column: {column!r}")
    return column


def get_question(db: Database, question_id: str) -> Question | None:
    """One question by id (or None)."""
    found = _read(db, "select * from questions where id = ?", [question_id])
    return found[0] if found else None


def questions_by_id(db: Database, ids: Sequence[str]) -> dict[str, Question]:
    """The questions with these ids, keyed by id (unknown ids are absent; any number of ids)."""
    ids = list(ids)
    out: dict[str, Question] = {}
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        sql = f"select * from questions where id in ({placeholders(chunk)})"
        out.update((q.id, q) for q in _read(db, sql, chunk))
    return out


def document_questions(
    db: Database,
    document_id: str,
    *,
    origin: QuestionOrigin | None = None,
    statuses: Sequence[QuestionStatus] | None = None,
    exclude_status: QuestionStatus | None = None,
    order: str = "id",
) -> list[Question]:
    """A document's questions, optionally of one ``origin`` and with a status in ``statuses``
    (or other than ``exclude_status``), ordered by ``id`` or ``created`` (creation time, id)."""
    where, params = ["document_id = ?"], [document_id]
    if origin is not None:
        where.append("origin = ?")
        params.append(origin)
    if statuses is not None:
        where.append(f"status in ({placeholders(statuses)})")
        params.extend(statuses)
    if exclude_status is not None:
        where.append("status != ?")
        params.append(exclude_status)
    by = {"id": "id", "created": "created_at, id"}[order]
    return _read(db, f"select * from questions where {' and '.join(where)} order by {by}", params)


def origin_questions(db: Database, origin: QuestionOrigin) -> list[Question]:
    """Every question of ``origin``, by id."""
    return _read(db, "select * from questions where origin = ? order by id", [origin])


def find_question_ids(db: Database, filters: dict[str, Any], search: str = "") -> list[str]:
    """Ids of the questions equal on every given filter (:data:`FILTER_COLUMNS`; ``None`` / ``""``
    ignored) whose text contains ``search``, case ignored (or whose id is ``search``)."""
    where, params = ["1 = 1"], []
    for col, value in filters.items():
        if col not in FILTER_COLUMNS:
            raise ValueError(f"not a question filter: {col!r}")
        if value not in (None, ""):
            where.append(f"{col} = ?")
            params.append(value)
    if search.strip():
        # lower() on both sides: SQLite's like ignores (ASCII) case, PostgreSQL's does not
        where.append("(lower(question) like lower(?) or id = ?)")
        params += [f"%{search.strip()}%", search.strip()]
    sql = f"select id from questions where {' and '.join(where)} order by id"
    return [r[0] for r in db.execute(sql, params)]


def distinct_values(db: Database, column: str) -> list[Any]:
    """The distinct non-empty values of a filter column (:data:`FILTER_COLUMNS`), sorted."""
    if column not in FILTER_COLUMNS:
        raise ValueError(f"not a question filter: {column!r}")
    return [
        r[0]
        for r in db.execute(
            f"select distinct {column} from questions where {column} is not null and "
            f"{column} != '' order by 1"
        )
    ]


def question_documents(db: Database) -> list[dict[str, Any]]:
    """(id, title) of the documents that have questions, by title."""
    return rows(
        db,
        "select distinct d.id, d.title from documents d join questions q "
        "on q.document_id = d.id order by d.title, d.id",
    )


def question_entities(db: Database) -> list[dict[str, Any]]:
    """(id, name) of the entities that have questions, by name."""
    return rows(
        db,
        "select distinct e.id, e.name from entities e join questions q on q.entity_id = e.id "
        "order by e.name",
    )


def referenced_entity_ids(db: Database) -> set[int]:
    """Entity ids some question is about."""
    return {
        int(r[0])
        for r in db.execute("select distinct entity_id from questions where entity_id is not null")
    }


def question_exists(db: Database, question_id: str) -> bool:
    """Whether a question with this id is stored."""
    return db.execute("select 1 from questions where id = ?", [question_id]).fetchone() is not None


def insert_question(db: Database, question: Question) -> None:
    """Insert one question."""
    db.table("questions").insert(question.to_row())


def upsert_question(db: Database, question: Question) -> str:
    """Insert ``question`` or, when its id is stored with other content, replace its content and
    provenance but keep its review and derivation (:data:`_KEPT`). Returns ``inserted``,
    ``updated`` or ``unchanged`` (the same content: nothing written, ``updated_at`` kept)."""
    stored, row = get_question(db, question.id), question.to_row()
    if stored is None:
        db.table("questions").insert(row)
        return "inserted"
    same = ("updated_at", "run_id", *_KEPT)  # when and by which run, not what it is
    if all(getattr(stored, k) == getattr(question, k) for k in row if k not in same):
        return "unchanged"
    db.table("questions").update(question.id, {k: row[k] for k in row if k not in _KEPT})
    return "updated"


def generated_exists(
    db: Database, document_id: str, entity_id: int, model: str, prompt_hash: str
) -> bool:
    """Whether questions were generated on this document and entity by ``model`` with the prompt
    of ``prompt_hash``."""
    found = db.execute(
        "select 1 from questions where document_id = ? and entity_id = ? and origin = "
        "'generated' and json_extract(provenance, '$.model') = ? and "
        "json_extract(provenance, '$.prompt_hash') = ? limit 1",
        [document_id, entity_id, model, prompt_hash],
    ).fetchone()
    return found is not None


def counts_by_origin(db: Database) -> dict[str, int]:
    """Number of questions per origin."""
    return {
        r[0]: int(r[1])
        for r in db.execute("select origin, count(*) from questions group by origin order by 1")
    }


def review_summary_by_origin(db: Database) -> list[dict[str, Any]]:
    """Per origin: questions, pending, accepted (or edited) and rejected."""
    return rows(
        db,
        "select origin, count(*) questions, sum(status = 'pending') pending, "
        "sum(status in ('accepted', 'edited')) accepted, sum(status = 'rejected') rejected "
        "from questions group by origin order by origin",
    )


def pending_review_count(db: Database) -> int:
    """Questions waiting for a human review (NarrativeQA's own questions need none)."""
    return int(
        db.execute(
            "select count(*) from questions where status = 'pending' and origin != 'narrativeqa'"
        ).fetchone()[0]
    )


def question_counts_by_document(
    db: Database, origin: str, statuses: Sequence[str], document_kinds: Sequence[str]
) -> dict[str, int]:
    """Per document of one of ``document_kinds``: its questions of ``origin`` with a status in
    ``statuses``."""
    sql = (
        "select q.document_id, count(*) from questions q join documents d on d.id = q.document_id "
        f"where q.origin = ? and q.status in ({placeholders(statuses)}) and d.kind in "
        f"({placeholders(document_kinds)}) group by q.document_id"
    )
    return {r[0]: int(r[1]) for r in db.execute(sql, [origin, *statuses, *document_kinds])}


def generator_models(db: Database) -> set[str]:
    """Model ids named in the questions' provenance."""
    return {
        r[0]
        for r in db.execute("select distinct json_extract(provenance, '$.model') from questions")
        if r[0]
    }


def all_question_ids(db: Database) -> list[str]:
    """Every question id, sorted."""
    return [r[0] for r in db.execute("select id from questions order by id")]


def question_texts(db: Database, ids: Sequence[str]) -> dict[str, str]:
    """Question id -> its text, for ``ids`` (unknown ids are absent; any number of ids)."""
    return {qid: q.question for qid, q in questions_by_id(db, ids).items()}


def child_questions(
    db: Database, parent_id: str, *, origin: QuestionOrigin | None = None
) -> list[Question]:
    """The questions derived from ``parent_id`` (e.g. an XRAG question's translations, its
    other-language versions), optionally only of ``origin``, by id."""
    where, params = ["parent_id = ?"], [parent_id]
    if origin is not None:
        where.append("origin = ?")
        params.append(origin)
    return _read(db, f"select * from questions where {' and '.join(where)} order by id", params)


def root_questions(db: Database, origin: QuestionOrigin) -> list[Question]:
    """The questions of ``origin`` that derive from no other (``parent_id`` null), by id."""
    return _read(
        db, "select * from questions where origin = ? and parent_id is null order by id", [origin]
    )


def update_question(db: Database, question_id: str, **changes: Unpack[QuestionUpdate]) -> None:
    """Set ``changes`` (column -> value; JSON columns as Python values) on ``question_id``."""
    row: dict[str, Any] = dict(changes)
    row.update({k: dumps(row[k]) for k in _JSON if k in row})
    db.table("questions").update(question_id, row)


def sample_question_ids(
    db: Database,
    equal: dict[str, Any] | None = None,
    any_of: dict[str, Sequence[Any]] | None = None,
) -> list[str]:
    """Ids (sorted) of the questions whose column equals each ``equal`` value and lies in each
    ``any_of`` list (empty values and lists are no filter): an experiment's ``[data]`` pool."""
    where, params = ["1 = 1"], []
    for col, value in (equal or {}).items():
        if value:
            where.append(f"{_column(col)} = ?")
            params.append(value)
    for col, values in (any_of or {}).items():
        if values:
            where.append(f"{_column(col)} in ({placeholders(values)})")
            params.extend(values)
    sql = f"select id from questions where {' and '.join(where)} order by id"
    return [r[0] for r in db.execute(sql, params)]


def all_question_texts(db: Database) -> dict[str, str]:
    """Every question's text, keyed by id."""
    return dict(db.execute("select id, question from questions").fetchall())


def set_question_text(db: Database, question_id: str, text: str, updated_at: str) -> None:
    """Replace the text of question ``question_id``."""
    db.execute(
        "update questions set question = ?, updated_at = ? where id = ?",
        [text, updated_at, question_id],
    )


def insert_questions(db: Database, new: Sequence[Question]) -> None:
    """Insert questions (one batch statement per chunk)."""
    if new:
        db.table("questions").insert_all([q.to_row() for q in new])


def document_dependents(db: Database, document_id: str) -> dict[str, int]:
    """How many questions are about ``document_id`` (as their document or their context), and how
    many answers and judgments those questions have: what replacing its text would orphan."""
    about = "select id from questions where document_id = ? or context_document_id = ?"
    found = {}
    for what, sql in (
        ("questions", f"select count(*) from ({about}) q"),  # alias: PostgreSQL
        ("answers", f"select count(*) from answers where question_id in ({about})"),
        ("judgments", f"select count(*) from judgments where question_id in ({about})"),
    ):
        found[what] = int(db.execute(sql, [document_id, document_id]).fetchone()[0])
    return found
