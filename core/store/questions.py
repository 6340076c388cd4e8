"""Table ``questions``: the only module with SQL on it, and its record :class:`Question`.

Readers return :class:`Question` records (``answers``, ``provenance``, ``metadata`` decoded);
writers take records or typed keyword arguments and encode the JSON columns themselves. The
statements are SQLAlchemy Core, built once in :mod:`core.store.question_queries` (issue 33):
nothing here is translated for PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Self, TypedDict, Unpack

import sqlalchemy as sa

from core.store import question_queries as qq
from core.store.connection import dumps, transaction
from core.store.engine import NotFoundError
from core.store.prepared import bound_rows, bound_rows_later, run_bound, scalar
from core.store.statements import run_many
from core.store.stored_enums import stored_enum
from core.store.tables import questions
from core.vocabulary import QuestionOrigin as QuestionOrigin  # defined in the leaf: no cycle
from core.vocabulary import QuestionStatus as QuestionStatus

if TYPE_CHECKING:
    from core.store.engine import Database

#: Columns :func:`find_question_ids` may filter on by equality.
FILTER_COLUMNS = ("document_id", "entity_id", "qtype", "status", "origin")
#: The JSON columns of ``questions``.
_JSON = ("answers", "provenance", "metadata")
#: Columns :func:`upsert_question` keeps on a stored question.
_KEPT = ("id", "created_at", "status", "metadata", "entity_id", "parent_id")


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


def _read(
    db: Database, statement: sa.Executable, values: dict[str, Any] | None = None
) -> list[Question]:
    return [Question.from_row(r) for r in bound_rows(db, statement, values)]


def get_question(db: Database, question_id: str) -> Question | None:
    """One question by id (or None)."""
    found = _read(db, qq.BY_ID, {"id": question_id})
    return found[0] if found else None


def get_question_later(db: Database, question_id: str) -> Callable[[], Question | None]:
    """:func:`get_question`, its statement sent with the connection's next one on PostgreSQL
    (:func:`core.store.prepared.bound_rows_later`); call the result for the question."""
    found = bound_rows_later(db, qq.BY_ID, {"id": question_id})

    def question() -> Question | None:
        rows = found()
        return Question.from_row(rows[0]) if rows else None

    return question


def questions_by_id(db: Database, ids: Sequence[str]) -> dict[str, Question]:
    """The questions with these ids, keyed by id (unknown ids are absent; any number of ids)."""
    ids = list(ids)
    out: dict[str, Question] = {}
    for start in range(0, len(ids), 500):
        out.update((q.id, q) for q in _read(db, qq.BY_IDS, {"ids": ids[start : start + 500]}))
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
    query = qq.of_document(
        origin is not None, statuses is not None, exclude_status is not None, order
    )
    values = {"document_id": document_id, "origin": origin, "exclude": exclude_status}
    return _read(db, query, {**values, "statuses": list(statuses or [])})


def origin_questions(db: Database, origin: QuestionOrigin) -> list[Question]:
    """Every question of ``origin``, by id."""
    return _read(db, qq.OF_ORIGIN, {"origin": origin})


def find_question_ids(db: Database, filters: dict[str, Any], search: str = "") -> list[str]:
    """Ids of the questions equal on every given filter (:data:`FILTER_COLUMNS`; ``None`` / ``""``
    ignored) whose text contains ``search``, case ignored (or whose id is ``search``)."""
    for col in filters:
        if col not in FILTER_COLUMNS:
            raise ValueError(f"not a question filter: {col!r}")
    values = {c: v for c, v in filters.items() if v not in (None, "")}
    wanted = search.strip()
    if wanted:
        values.update(like=f"%{wanted}%", search=wanted)
    query = qq.matching_ids(tuple(c for c in filters if c in values), (), bool(wanted))
    return [r[0] for r in run_bound(db, query, values)]


def distinct_values(db: Database, column: str) -> list[Any]:
    """The distinct non-empty values of a filter column (:data:`FILTER_COLUMNS`), sorted."""
    if column not in FILTER_COLUMNS:
        raise ValueError(f"not a question filter: {column!r}")
    return [r[0] for r in run_bound(db, qq.distinct(column))]


def question_documents(db: Database) -> list[dict[str, Any]]:
    """(id, title) of the documents that have questions, by title."""
    return bound_rows(db, qq.DOCUMENTS)


def question_entities(db: Database) -> list[dict[str, Any]]:
    """(id, name) of the entities that have questions, by name."""
    return bound_rows(db, qq.ENTITIES)


def referenced_entity_ids(db: Database) -> set[int]:
    """Entity ids some question is about."""
    return {int(r[0]) for r in run_bound(db, qq.ENTITY_IDS)}


def question_exists(db: Database, question_id: str) -> bool:
    """Whether a question with this id is stored."""
    return run_bound(db, qq.EXISTS, {"id": question_id}).fetchone() is not None


def insert_question(db: Database, question: Question) -> None:
    """Insert one question."""
    run_bound(db, qq.INSERT, question.to_row())


def upsert_question(db: Database, question: Question) -> str:
    """Insert ``question`` or, when its id is stored with other content, replace its content and
    provenance but keep its review and derivation (:data:`_KEPT`). Returns ``inserted``,
    ``updated`` or ``unchanged`` (the same content: nothing written, ``updated_at`` kept)."""
    stored, row = get_question(db, question.id), question.to_row()
    if stored is None:
        run_bound(db, qq.INSERT, row)
        return "inserted"
    same = ("updated_at", "run_id", *_KEPT)  # when and by which run, not what it is
    if all(getattr(stored, k) == getattr(question, k) for k in row if k not in same):
        return "unchanged"
    _update(db, question.id, {k: row[k] for k in row if k not in _KEPT})
    return "updated"


def _update(db: Database, question_id: str, row: dict[str, Any]) -> None:
    """Set the columns of ``row`` on ``question_id`` (:class:`NotFoundError` when it is not
    stored, as the engine's ``Table.update``)."""
    if not row:
        if not question_exists(db, question_id):
            raise NotFoundError(f"questions has no row {question_id!r}")
        return
    values = {f"set_{k}": v for k, v in row.items()}
    if run_bound(db, qq.set_columns(tuple(row)), {**values, "key": question_id}).rowcount == 0:
        raise NotFoundError(f"questions has no row {question_id!r}")


def generated_exists(
    db: Database, document_id: str, entity_id: int, model: str, prompt_hash: str
) -> bool:
    """Whether questions were generated on this document and entity by ``model`` with the prompt
    of ``prompt_hash``."""
    values = {"document_id": document_id, "entity_id": entity_id}
    found = run_bound(db, qq.GENERATED, {**values, "model": model, "prompt_hash": prompt_hash})
    return found.fetchone() is not None


def counts_by_origin(db: Database) -> dict[str, int]:
    """Number of questions per origin."""
    return {r[0]: int(r[1]) for r in run_bound(db, qq.BY_ORIGIN)}


def review_summary_by_origin(db: Database) -> list[dict[str, Any]]:
    """Per origin: questions, pending, accepted (or edited) and rejected."""
    return bound_rows(db, qq.REVIEW_SUMMARY)


def pending_review_count(db: Database) -> int:
    """Questions waiting for a human review (NarrativeQA's own questions need none)."""
    return int(scalar(db, qq.PENDING))


def question_counts_by_document(
    db: Database, origin: str, statuses: Sequence[str], document_kinds: Sequence[str]
) -> dict[str, int]:
    """Per document of one of ``document_kinds``: its questions of ``origin`` with a status in
    ``statuses``."""
    values = {"origin": origin, "statuses": list(statuses), "kinds": list(document_kinds)}
    return {r[0]: int(r[1]) for r in run_bound(db, qq.BY_DOCUMENT, values)}


def generator_models(db: Database) -> set[str]:
    """Model ids named in the questions' provenance."""
    return {r[0] for r in run_bound(db, qq.MODELS) if r[0]}


def all_question_ids(db: Database) -> list[str]:
    """Every question id, sorted."""
    return [r[0] for r in run_bound(db, qq.IDS)]


def question_texts(db: Database, ids: Sequence[str]) -> dict[str, str]:
    """Question id -> its text, for ``ids`` (unknown ids are absent; any number of ids)."""
    return {qid: q.question for qid, q in questions_by_id(db, ids).items()}


def child_questions(
    db: Database, parent_id: str, *, origin: QuestionOrigin | None = None
) -> list[Question]:
    """The questions derived from ``parent_id`` (e.g. an XRAG question's translations, its
    other-language versions), optionally only of ``origin``, by id."""
    return _read(db, qq.children(origin is not None), {"parent_id": parent_id, "origin": origin})


def root_questions(db: Database, origin: QuestionOrigin) -> list[Question]:
    """The questions of ``origin`` that derive from no other (``parent_id`` null), by id."""
    return _read(db, qq.ROOTS, {"origin": origin})


def update_question(db: Database, question_id: str, **changes: Unpack[QuestionUpdate]) -> None:
    """Set ``changes`` (column -> value; JSON columns as Python values) on ``question_id``."""
    row: dict[str, Any] = dict(changes)
    row.update({k: dumps(row[k]) for k in _JSON if k in row})
    _update(db, question_id, row)


def sample_question_ids(
    db: Database,
    equal: dict[str, Any] | None = None,
    any_of: dict[str, Sequence[Any]] | None = None,
) -> list[str]:
    """Ids (sorted) of the questions whose column equals each ``equal`` value and lies in each
    ``any_of`` list (empty values and lists are no filter): an experiment's ``[data]`` pool."""
    for col in [*(equal or {}), *(any_of or {})]:
        qq.column(col)
    same = {c: v for c, v in (equal or {}).items() if v}
    within = {c: list(v) for c, v in (any_of or {}).items() if v}
    query = qq.matching_ids(tuple(same), tuple(within), False)
    values = {**same, **{f"in_{c}": v for c, v in within.items()}}
    return [r[0] for r in run_bound(db, query, values)]


def all_question_texts(db: Database) -> dict[str, str]:
    """Every question's text, keyed by id."""
    return {r[0]: r[1] for r in run_bound(db, qq.TEXTS)}


def set_question_text(db: Database, question_id: str, text: str, updated_at: str) -> None:
    """Replace the text of question ``question_id``."""
    values = {"question_id": question_id, "text": text, "updated_at": updated_at}
    run_bound(db, qq.SET_TEXT, values)


def insert_questions(db: Database, new: Sequence[Question]) -> None:
    """Insert questions (one ``executemany`` per chunk of 100, each chunk atomic)."""
    for start in range(0, len(new), 100):
        with transaction(db):
            run_many(db, sa.insert(questions), [q.to_row() for q in new[start : start + 100]])


def document_dependents(db: Database, document_id: str) -> dict[str, int]:
    """How many questions are about ``document_id`` (as their document or their context), and how
    many answers and judgments those questions have: what replacing its text would orphan."""
    found = run_bound(db, qq.DEPENDENTS, {"doc": document_id}).fetchone()
    return {what: int(n) for what, n in zip(("questions", "answers", "judgments"), found)}
