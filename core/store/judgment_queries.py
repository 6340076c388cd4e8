"""The Core statements of :mod:`core.store.judgments` (issue 33), each built once (a constant, or
one per shape of its filters) with its values bound by name, and run by
:func:`core.store.prepared.run_bound`: compiled once per dialect, never translated.

The effective-rows condition is :func:`core.store.statements.not_superseded` over alias ``j``.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

import sqlalchemy as sa

from core.store.statements import not_superseded
from core.store.tables import judgments, questions
from core.vocabulary import JudgmentKind, JudgmentStatus, RaterKind

#: The alias ``j`` every effective read selects from.
J = judgments.alias("j")
#: The columns of a new row (every column but ``id``), bound by their names.
_NEW_COLUMNS = tuple(c.name for c in judgments.c if c.name != "id")


def columns_of(columns: Sequence[str] | None) -> list[Any]:
    """The selected columns of alias ``j`` (every column when None)."""
    if columns is None:
        return [J]
    for c in columns:
        if c not in J.c:
            raise ValueError(f"not a judgments column: {c!r}")
    return [J.c[c] for c in columns]


#: The equality filters of :func:`effective_judgments`, each bound by its own name.
EQUAL = ("kind", "rater", "rater_kind", "criterion", "status", "question_id")


@cache
def effective_shape(
    columns: tuple[str, ...] | None,
    equal: tuple[str, ...],
    raters: bool,
    with_verdict: bool,
    document: bool,
    ordered: bool,
) -> sa.Select[Any]:
    """The Core query of the effective judgments of one filter shape (values bound by name:
    each of ``equal``, ``raters`` (a list) and ``document_id``); built once per shape."""
    where = [not_superseded(judgments, J), *(J.c[c] == sa.bindparam(c) for c in equal)]
    if raters:
        where.append(J.c.rater.in_(sa.bindparam("raters", expanding=True)))
    if with_verdict:
        where.append(J.c.verdict.is_not(None))
    if document:
        of_document = sa.select(questions.c.id).where(
            questions.c.document_id == sa.bindparam("document_id")
        )
        where.append(J.c.question_id.in_(of_document))
    query = sa.select(*columns_of(columns)).where(*where)
    return query.order_by(J.c.id) if ordered else query


def effective_select(
    columns: Sequence[str] | None, *, ordered: bool = True, **filters: Any
) -> tuple[sa.Select[Any], dict[str, Any]]:
    """The Core query of :func:`effective_judgments` (alias ``j``; ``columns``: the plain columns,
    None: every column) and the values to bind (:func:`core.store.prepared.run_bound`), for the
    keyword ``filters`` of :func:`effective_judgments`."""
    unknown = set(filters) - {*EQUAL, "raters", "with_verdict", "document_id"}
    if unknown:
        raise TypeError(f"not a filter of effective judgments: {sorted(unknown)}")
    values = {c: filters[c] for c in EQUAL if filters.get(c) is not None}
    raters, document = filters.get("raters"), filters.get("document_id")
    if raters is not None:
        values["raters"] = list(raters)
    if document is not None:
        values["document_id"] = document
    shape = None if columns is None else tuple(columns)
    query = effective_shape(
        shape,
        tuple(c for c in EQUAL if c in values),
        raters is not None,
        bool(filters.get("with_verdict")),
        document is not None,
        ordered,
    )
    return query, values


_LATER = judgments.alias("s")
#: ``select 1`` (an ``exists`` over it reads only a covering index on SQLite).
_ONE: sa.Select[Any] = sa.select(sa.literal_column("1"))
QUESTION_ROWS = (
    sa.select(J, sa.exists(_ONE.where(_LATER.c.supersedes == J.c.id)).label("superseded"))
    .where(J.c.question_id == sa.bindparam("question_id"))
    .order_by(J.c.kind, J.c.rater, J.c.id)
)


BY_ID = sa.select(judgments).where(judgments.c.id == sa.bindparam("id"))


INSERT = (
    sa.insert(judgments)
    .values({name: sa.bindparam(name) for name in _NEW_COLUMNS})
    .returning(judgments.c.id)
)


_PAIRWISE_OK = (
    judgments.c.kind == JudgmentKind.PAIRWISE,
    judgments.c.status == JudgmentStatus.OK,
)
PAIRWISE_RATERS = (
    sa.select(judgments.c.rater).distinct().where(*_PAIRWISE_OK).order_by(judgments.c.rater)
)
PAIRWISE_RATERS_OF_KIND = PAIRWISE_RATERS.where(
    judgments.c.rater_kind == sa.bindparam("rater_kind")
)


MAX_ID = sa.select(sa.func.coalesce(sa.func.max(judgments.c.id), 0))


OWN_PAIRWISE = (
    sa.select(J)
    .where(
        J.c.kind == JudgmentKind.PAIRWISE,
        J.c.question_id == sa.bindparam("question_id"),
        sa.or_(
            sa.and_(J.c.system_a == sa.bindparam("one"), J.c.system_b == sa.bindparam("two")),
            sa.and_(J.c.system_a == sa.bindparam("two"), J.c.system_b == sa.bindparam("one")),
        ),
        J.c.rater == sa.bindparam("rater"),
        not_superseded(judgments, J),
    )
    .order_by(J.c.id.desc())
    .limit(1)
)


LAST_PAIRWISE = (
    sa.select(J)
    .where(
        J.c.rater == sa.bindparam("rater"),
        J.c.kind == JudgmentKind.PAIRWISE,
        J.c.context_kind == "human",  # the app's labels (core.annotation.pairwise.APP_CONTEXT)
        J.c.status.in_([JudgmentStatus.OK, JudgmentStatus.SKIPPED]),
        not_superseded(judgments, J),
    )
    .order_by(J.c.id.desc())
    .limit(1)
)


RATER_KINDS = (
    sa.select(judgments.c.rater, judgments.c.rater_kind)
    .distinct()
    .where(*_PAIRWISE_OK)
    .order_by(judgments.c.rater)
)


HUMANS = (
    sa.select(judgments.c.rater)
    .distinct()
    .where(judgments.c.rater_kind == RaterKind.HUMAN)
    .order_by(judgments.c.rater)
)


OF_QUESTION = sa.select(sa.func.count()).where(
    judgments.c.question_id == sa.bindparam("question_id")
)
HUMAN_OF_QUESTION = OF_QUESTION.where(judgments.c.rater.like("human:%"))


IMPORTED_HUMANS = (
    sa.select(judgments.c.rater, sa.func.count())
    .where(judgments.c.rater_kind == RaterKind.HUMAN, judgments.c.raw.like('{"file":%'))
    .group_by(judgments.c.rater)
    .order_by(judgments.c.rater)
)


@cache
def after_query(columns: tuple[str, ...]) -> sa.Select[Any]:
    """``columns`` of every row (effective or not) with an id above the bound ``after``."""
    return sa.select(*columns_of(columns)).where(J.c.id > sa.bindparam("after"))
