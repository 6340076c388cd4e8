"""The records of the Review page's views (:mod:`core.views.review` builds them; the Review page
and :func:`core.views.blind.review_view` read them)."""

from __future__ import annotations

from copy import deepcopy
from typing import TYPE_CHECKING, Any, TypedDict

if TYPE_CHECKING:
    from core.store.questions import Question
    from core.views.row_records import EntityRow, ReviewRow


class QuestionFilters(TypedDict):
    """Options of the question filters: (id, label) pairs and distinct column values."""

    documents: list[tuple[str, str]]
    entities: list[tuple[int, str]]
    qtypes: list[str]
    statuses: list[str]
    origins: list[str]


class DocumentRef(TypedDict):
    """A document a question draws on, as the Review page lists it."""

    id: str
    title: str
    kind: str
    language: str


class EntityRef(TypedDict):
    """An entity of a question, with the names highlighted in its passages."""

    id: int
    name: str
    aliases: list[str]
    document_id: str


class SearchHit(TypedDict):
    """A BM25 hit in a question's document, the query terms highlighted in ``markdown``."""

    idx: int
    score: float
    text: str
    markdown: str


class PassageShown(TypedDict):
    """A passage beside a question: one it was built from (``evidence``) or a ``mention``."""

    idx: int
    text: str
    role: str  # "evidence" or "mention"
    markdown: str  # escaped, the entities' names in bold


class ParentQuestion(TypedDict):
    """The English question a translation was made from."""

    id: str
    question: str
    answers: list[Any]  # the reference answers as stored (JSON)


class Article(DocumentRef):
    """A document of a cross-document question with its first passages' text."""

    text: str


class QuestionDetail(TypedDict):
    """One question as the Review page shows it (:func:`question_detail`)."""

    question: QuestionRecord
    answer: Any  # the first reference answer ("" without one), as stored (JSON)
    answers: list[Any]  # the reference answers as stored (JSON)
    parent: ParentQuestion | None
    entities: list[EntityRef]
    n_mention_passages: int
    n_passages: int
    entity: EntityRow | None
    passages: list[PassageShown]
    provenance: dict[str, Any]  # the stored provenance JSON, passed through
    articles: list[Article]
    documents: list[DocumentRef]
    reviews: list[ReviewRow]
    checklist_fields: list[dict[str, Any]]  # the guideline's field spec
    review_agreement: ReviewAgreement | None
    span: QuestionSpan | None


class QuestionSpan(TypedDict):
    """How much of the book a generated question's evidence spans (:func:`question_span`)."""

    fraction: float
    minimum: float | None
    flag: bool  # below the minimum
    text: str


class ReviewAgreement(TypedDict):
    """Reviewers' agreement on one question (:func:`review_agreement`)."""

    n_reviewers: int
    pairwise_agreement: dict[str, float | None]  # decision / checklist item -> share agreeing


class QuestionRecord(TypedDict):
    """Every column of a question (:class:`core.store.questions.Question`), enums as their text
    (:func:`question_record`)."""

    id: str
    question: str
    origin: str
    created_at: str
    updated_at: str
    document_id: str | None
    context_document_id: str | None
    context_kind: str
    answers: list[Any]  # the reference answers as stored (JSON)
    split: str
    qtype: str
    entity_id: int | None
    language: str
    parent_id: str | None
    status: str
    provenance: dict[str, Any]  # the stored provenance JSON, passed through
    metadata: dict[str, Any]  # the stored metadata JSON, passed through
    run_id: str | None


def question_record(q: Question) -> QuestionRecord:
    """``q`` as a record (a deep copy: the page may not change the stored record's JSON)."""
    return {
        "id": q.id,
        "question": q.question,
        "origin": str(q.origin),
        "created_at": q.created_at,
        "updated_at": q.updated_at,
        "document_id": q.document_id,
        "context_document_id": q.context_document_id,
        "context_kind": q.context_kind,
        "answers": deepcopy(q.answers),
        "split": q.split,
        "qtype": q.qtype,
        "entity_id": q.entity_id,
        "language": q.language,
        "parent_id": q.parent_id,
        "status": str(q.status),
        "provenance": deepcopy(q.provenance),
        "metadata": deepcopy(q.metadata),
        "run_id": q.run_id,
    }
