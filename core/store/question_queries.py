"""The Core statements of :mod:`core.store.questions` (issue 33), each built once (a constant, or
one per shape of its filters) with its values bound by name, and run by
:func:`core.store.prepared.run_bound`: compiled once per dialect, never translated."""

from __future__ import annotations

from functools import cache
from typing import Any

import sqlalchemy as sa

from core.store.statements import json_text
from core.store.tables import answers, documents, entities, judgments, questions
from core.vocabulary import QuestionOrigin, QuestionStatus

q = questions.c
#: Every column of one question by id.
BY_ID = sa.select(questions).where(q.id == sa.bindparam("id"))
#: Every column of the questions whose id is in the bound list ``ids``.
BY_IDS = sa.select(questions).where(q.id.in_(sa.bindparam("ids", expanding=True)))
OF_ORIGIN = sa.select(questions).where(q.origin == sa.bindparam("origin")).order_by(q.id)
ROOTS = OF_ORIGIN.where(q.parent_id.is_(None))
EXISTS = sa.select(sa.literal(1)).where(q.id == sa.bindparam("id"))
DOCUMENTS = (
    sa.select(documents.c.id, documents.c.title)
    .distinct()
    .join(questions, q.document_id == documents.c.id)
    .order_by(documents.c.title, documents.c.id)
)
ENTITIES = (
    sa.select(entities.c.id, entities.c.name)
    .distinct()
    .join(questions, q.entity_id == entities.c.id)
    .order_by(entities.c.name)
)
ENTITY_IDS = sa.select(q.entity_id).distinct().where(q.entity_id.is_not(None))
GENERATED = (
    sa.select(sa.literal(1))
    .where(
        q.document_id == sa.bindparam("document_id"),
        q.entity_id == sa.bindparam("entity_id"),
        q.origin == QuestionOrigin.GENERATED,
        json_text(q.provenance, "model") == sa.bindparam("model"),
        json_text(q.provenance, "prompt_hash") == sa.bindparam("prompt_hash"),
    )
    .limit(1)
)
BY_ORIGIN = sa.select(q.origin, sa.func.count()).group_by(q.origin).order_by(q.origin)


def _count_of(condition: sa.ColumnElement[bool]) -> sa.ColumnElement[Any]:
    """How many rows of the group meet ``condition`` (SQLite's ``sum(boolean)``, spelled for
    both databases)."""
    return sa.func.count(sa.case((condition, 1)))


REVIEW_SUMMARY = (
    sa.select(
        q.origin,
        sa.func.count().label("questions"),
        _count_of(q.status == QuestionStatus.PENDING).label("pending"),
        _count_of(q.status.in_([QuestionStatus.ACCEPTED, QuestionStatus.EDITED])).label("accepted"),
        _count_of(q.status == QuestionStatus.REJECTED).label("rejected"),
    )
    .group_by(q.origin)
    .order_by(q.origin)
)
PENDING = sa.select(sa.func.count()).where(
    q.status == QuestionStatus.PENDING, q.origin != QuestionOrigin.NARRATIVEQA
)
BY_DOCUMENT = (
    sa.select(q.document_id, sa.func.count())
    .join(documents, documents.c.id == q.document_id)
    .where(
        q.origin == sa.bindparam("origin"),
        q.status.in_(sa.bindparam("statuses", expanding=True)),
        documents.c.kind.in_(sa.bindparam("kinds", expanding=True)),
    )
    .group_by(q.document_id)
)
MODELS = sa.select(json_text(q.provenance, "model")).distinct()
IDS = sa.select(q.id).order_by(q.id)
TEXTS = sa.select(q.id, q.question)
SET_TEXT = (
    sa.update(questions)
    .where(q.id == sa.bindparam("question_id"))
    .values(question=sa.bindparam("text"), updated_at=sa.bindparam("updated_at"))
)
#: A new row: every column, bound by its name.
INSERT = sa.insert(questions).values({c.name: sa.bindparam(c.name) for c in questions.c})

_ABOUT = sa.select(q.id).where(
    sa.or_(q.document_id == sa.bindparam("doc"), q.context_document_id == sa.bindparam("doc"))
)
#: Questions about a document (as theirs or as their context), their answers and judgments.
DEPENDENTS = sa.select(
    sa.select(sa.func.count()).select_from(_ABOUT.subquery("q")).scalar_subquery(),
    sa.select(sa.func.count()).where(answers.c.question_id.in_(_ABOUT)).scalar_subquery(),
    sa.select(sa.func.count()).where(judgments.c.question_id.in_(_ABOUT)).scalar_subquery(),
)


def column(name: str) -> sa.Column[Any]:
    """The ``questions`` column ``name`` (a ``ValueError`` for any other name)."""
    if name not in q:
        raise ValueError(f"not a questions column: {name!r}")
    return q[name]


@cache
def of_document(origin: bool, statuses: bool, exclude: bool, order: str) -> sa.Select[Any]:
    """A document's questions, for one shape of :func:`core.store.questions.document_questions`
    (values bound as ``document_id``, ``origin``, ``statuses``, ``exclude``)."""
    where = [q.document_id == sa.bindparam("document_id")]
    if origin:
        where.append(q.origin == sa.bindparam("origin"))
    if statuses:
        where.append(q.status.in_(sa.bindparam("statuses", expanding=True)))
    if exclude:
        where.append(q.status != sa.bindparam("exclude"))
    by = {"id": [q.id], "created": [q.created_at, q.id]}[order]
    return sa.select(questions).where(*where).order_by(*by)


@cache
def children(origin: bool) -> sa.Select[Any]:
    """The questions derived from the bound ``parent_id`` (and of the bound ``origin``)."""
    where = [q.parent_id == sa.bindparam("parent_id")]
    if origin:
        where.append(q.origin == sa.bindparam("origin"))
    return sa.select(questions).where(*where).order_by(q.id)


@cache
def matching_ids(equal: tuple[str, ...], any_of: tuple[str, ...], search: bool) -> sa.Select[Any]:
    """Ids of the questions equal on each of ``equal`` (bound by name), in each bound list of
    ``any_of`` (as ``in_<name>``) and, with ``search``, whose text contains the bound ``like``
    (case ignored) or whose id is the bound ``search``."""
    where = [column(c) == sa.bindparam(c) for c in equal]
    where += [column(c).in_(sa.bindparam(f"in_{c}", expanding=True)) for c in any_of]
    if search:
        # lower() on both sides: SQLite's like ignores (ASCII) case, PostgreSQL's does not
        text = sa.func.lower(q.question).like(sa.func.lower(sa.bindparam("like")))
        where.append(sa.or_(text, q.id == sa.bindparam("search")))
    return sa.select(q.id).where(*where).order_by(q.id)


@cache
def distinct(name: str) -> sa.Select[Any]:
    """The distinct non-empty values of column ``name``, sorted."""
    col = column(name)
    return sa.select(col).distinct().where(col.is_not(None), col != "").order_by(col)


@cache
def set_columns(names: tuple[str, ...]) -> sa.Update:
    """Set the columns ``names`` (bound by name) of the question with the bound ``key``."""
    values: dict[Any, Any] = {column(n): sa.bindparam(f"set_{n}") for n in names}
    return sa.update(questions).where(q.id == sa.bindparam("key")).values(values)
