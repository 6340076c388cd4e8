"""XRAG tables ``article_pairs``, ``xrag_article_notes``, ``xrag_items`` and ``xrag_distractors``:
the only module with SQL on them (``xrag_results`` belongs to the evaluation).

Rows come back decoded (``shared_entities``, ``provenance``, ``metadata`` ... as JSON values) by
:func:`core.store.statements.all_rows`. SQLAlchemy Core over :mod:`core.store.tables` (issue 33):
nothing here is translated for PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa

from core.store.connection import dumps, transaction
from core.store.engine import storable
from core.store.statements import all_rows, insert, run, run_many
from core.store.tables import article_pairs as pairs
from core.store.tables import questions
from core.store.tables import xrag_article_notes as notes
from core.store.tables import xrag_distractors as distractors
from core.store.tables import xrag_items as items

if TYPE_CHECKING:
    from core.store.engine import Database

_CHUNK = 100  # rows per atomic insert batch (:func:`add_distractors`)


def _stored(row: Mapping[str, Any]) -> dict[str, Any]:
    """A row's values as stored (dicts and lists as JSON text: :func:`core.store.engine.storable`)."""
    return {k: storable(v) for k, v in row.items()}


# ---------------------------------------------------------------------------------------------
# article_pairs
# ---------------------------------------------------------------------------------------------


def article_pairs(db: Database, status: str | None = "active") -> list[dict[str, Any]]:
    """Stored pairs, optionally only those with ``status``, by id."""
    query = sa.select(pairs).order_by(pairs.c.id)
    return all_rows(db, query.where(pairs.c.status == status) if status else query)


def set_pair_verdict(db: Database, pair: dict[str, Any]) -> None:
    """Record a model's verdict on the stored pair ``(article_a, article_b)``: its method,
    verdict, status and provenance (nothing happens when the pair is not stored)."""
    change = sa.update(pairs).where(
        pairs.c.article_a == pair["article_a"], pairs.c.article_b == pair["article_b"]
    )
    values = {
        "method": pair["method"],
        "related": pair.get("related"),
        "status": pair["status"],
        "provenance": dumps(pair.get("provenance", {})),
    }
    run(db, change.values(**values))


def add_pair(db: Database, pair: dict[str, Any], created_at: str) -> bool:
    """Insert a pair unless ``(article_a, article_b)`` is stored; True when inserted."""
    row = {
        "article_a": pair["article_a"],
        "article_b": pair["article_b"],
        "shared_entities": dumps(pair["shared_entities"]),
        "days_apart": pair["days_apart"],
        "method": pair.get("method", "title-entities"),
        "related": pair.get("related"),
        "status": pair.get("status", "active"),
        "provenance": dumps(pair.get("provenance", {})),
        "created_at": created_at,
    }
    return run(db, insert(db, pairs).values(**row).on_conflict_do_nothing()).rowcount > 0


# ---------------------------------------------------------------------------------------------
# xrag_article_notes
# ---------------------------------------------------------------------------------------------


def article_notes(
    db: Database, article_id: str, kind: str, language: str = "en"
) -> list[dict[str, Any]]:
    """The notes (``summary`` or ``qa``) of an article in ``language``, in insertion order."""
    query = sa.select(notes).where(
        notes.c.article_id == article_id, notes.c.kind == kind, notes.c.language == language
    )
    return all_rows(db, query.order_by(notes.c.id))


def translated_qa_notes(db: Database, article_id: str) -> list[dict[str, Any]]:
    """The single-step QA notes of an English article in other languages, by id."""
    query = sa.select(notes).where(
        notes.c.article_id == article_id, notes.c.kind == "qa", notes.c.language != "en"
    )
    return all_rows(db, query.order_by(notes.c.id))


def qa_note_sources(db: Database) -> list[dict[str, Any]]:
    """``article_id, language, provenance`` of every single-step QA note, by id."""
    query = sa.select(notes.c.article_id, notes.c.language, notes.c.provenance)
    return all_rows(db, query.where(notes.c.kind == "qa").order_by(notes.c.id))


def add_article_note(db: Database, row: dict[str, Any]) -> None:
    """Insert one note row (``provenance`` as stored JSON text)."""
    run(db, sa.insert(notes).values(**_stored(row)))


# ---------------------------------------------------------------------------------------------
# xrag_items (with their ``questions`` rows)
# ---------------------------------------------------------------------------------------------


def xrag_item_count(db: Database, pair_id: int, qtype: str) -> int:
    """Number of items of a pair and question type (any builder)."""
    query = sa.select(sa.func.count()).where(items.c.pair_id == pair_id, items.c.qtype == qtype)
    return int(run(db, query).fetchone()[0])


def xrag_item_exists(db: Database, pair_id: int, *, builder: str, qtype: str | None = None) -> bool:
    """Whether ``builder`` made an item for the pair (of ``qtype`` when given)."""
    query = sa.select(sa.literal(1)).where(items.c.pair_id == pair_id, items.c.builder == builder)
    if qtype is not None:
        query = query.where(items.c.qtype == qtype)
    return run(db, query.limit(1)).fetchone() is not None


def add_xrag_item(db: Database, row: dict[str, Any]) -> None:
    """Insert one ``xrag_items`` row (``sub_questions`` as stored JSON text)."""
    run(db, sa.insert(items).values(**_stored(row)))


def english_xrag_questions(db: Database, statuses: Sequence[str]) -> list[dict[str, Any]]:
    """The English XRAG questions (those with an ``xrag_items`` row) whose status is one of
    ``statuses``, each with its item's ``pair_id`` and ``builder``, by id."""
    if not statuses:
        return []
    query = (
        sa.select(questions, items.c.pair_id, items.c.builder)
        .join(items, items.c.question_id == questions.c.id)
        .where(questions.c.status.in_(list(statuses)))
        .order_by(questions.c.id)
    )
    return all_rows(db, query)


# ---------------------------------------------------------------------------------------------
# xrag_distractors
# ---------------------------------------------------------------------------------------------


def has_distractors(db: Database, pair_id: int) -> bool:
    """Whether distractors are stored for the pair."""
    query = sa.select(sa.literal(1)).where(distractors.c.pair_id == pair_id).limit(1)
    return run(db, query).fetchone() is not None


def delete_distractors(db: Database, pair_id: int) -> None:
    """Remove the pair's stored distractors (before choosing them again)."""
    run(db, sa.delete(distractors).where(distractors.c.pair_id == pair_id))


def add_distractors(db: Database, new: Iterable[dict[str, Any]]) -> None:
    """Insert distractor rows (``pair_id, language, rank, document_id, english_id, score``),
    :data:`_CHUNK` at a time, each chunk atomic."""
    found = [_stored(r) for r in new]
    for i in range(0, len(found), _CHUNK):
        with transaction(db):
            run_many(db, sa.insert(distractors), found[i : i + _CHUNK])


def pair_distractors(db: Database, pair_id: int, language: str = "en") -> list[dict[str, Any]]:
    """The stored distractors of a pair for ``language``, in rank order."""
    query = sa.select(distractors).where(
        distractors.c.pair_id == pair_id, distractors.c.language == language
    )
    return all_rows(db, query.order_by(distractors.c.rank))


def confirmed_pairs(db: Database, method: str) -> set[tuple[str, str]]:
    """``(article_a, article_b)`` of the stored pairs a model already said yes or no about
    (pairing ``method``)."""
    query = sa.select(pairs.c.article_a, pairs.c.article_b).where(
        pairs.c.method == method, pairs.c.related.is_not(None)
    )
    return {(r[0], r[1]) for r in run(db, query).fetchall()}
