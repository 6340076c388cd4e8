"""Tables ``entity_edits`` and ``entity_bases`` (migration m0690), and the write that replaces a
document's stored entities by an edited list: the only module with SQL on them.

Edits are append-only; an edit is undone when an ``undo`` row names it (``undoes``).
SQLAlchemy Core over :mod:`core.store.tables` (issue 33): nothing here is translated for
PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa

from core.store.connection import dumps, utcnow
from core.store.statements import all_rows, insert, json_text, run, run_many
from core.store.tables import (
    documents,
    entity_bases,
    entity_edits,
    mentions,
    passages,
    questions,
)
from core.store.tables import entities as ents_table

if TYPE_CHECKING:
    from core.store.engine import Database

_JSON = ("payload", "entities")
#: Mentions per insert statement (:func:`replace_entities`).
_MENTION_CHUNK = 1000


def insert_edit(
    db: Database,
    document_id: str,
    action: str,
    payload: dict[str, Any],
    made_by: str,
    undoes: int | None = None,
) -> int:
    """Append one edit row; returns its id."""
    row = {
        "document_id": document_id,
        "action": action,
        "payload": dumps(payload),
        "made_by": made_by,
        "created_at": utcnow(),
        "undoes": undoes,
    }
    new = sa.insert(entity_edits).values(**row).returning(entity_edits.c.id)
    return int(run(db, new).fetchone()[0])


def document_edits(db: Database, document_id: str) -> list[dict[str, Any]]:
    """Every edit row of a document in order, each with ``undone_by`` (the id of the undo row
    that reverses it, or None)."""
    e, u = entity_edits.alias("e"), entity_edits.alias("u")
    undone_by = sa.select(u.c.id).where(u.c.undoes == e.c.id).scalar_subquery()
    query = (
        sa.select(e, undone_by.label("undone_by"))
        .where(e.c.document_id == document_id)
        .order_by(e.c.id)
    )
    return all_rows(db, query, also=_JSON)


def get_base(
    db: Database, document_id: str, method: str, run_id: str
) -> list[dict[str, Any]] | None:
    """The stored extraction output of one run (a list of entity dicts), or None."""
    b = entity_bases
    query = sa.select(b.c.entities).where(
        b.c.document_id == document_id, b.c.method == method, b.c.run_id == run_id
    )
    found = all_rows(db, query, also=_JSON)
    return found[0]["entities"] if found else None


def put_base(
    db: Database,
    document_id: str,
    method: str,
    run_id: str,
    entities: list[dict[str, Any]],
) -> None:
    """Keep the extraction output of one run (written once, before its first edit)."""
    row = {
        "document_id": document_id,
        "method": method,
        "run_id": run_id,
        "entities": dumps(entities),
        "created_at": utcnow(),
    }
    run(db, insert(db, entity_bases).values(**row).on_conflict_do_nothing())


def stored_entities(
    db: Database, document_id: str, method: str, *, chains: bool = True
) -> list[dict[str, Any]]:
    """The stored entities of a document and method with mentions (``n_mentions > 0``) by
    rank, each with ``mentions`` = ``[[start, end, surface], ...]`` in book order (left out
    when not ``chains``)."""
    e, m = ents_table, mentions
    mine = (e.c.document_id == document_id, e.c.method == method)
    query = sa.select(
        e.c.id, e.c.name, e.c.aliases, e.c.label, e.c.n_mentions, e.c.rank, e.c.run_id
    ).where(*mine, e.c.n_mentions > 0)
    ents = all_rows(db, query.order_by(e.c.rank))
    if not chains:
        return ents
    by_entity: dict[int, list[list[Any]]] = {e["id"]: [] for e in ents}
    spans = (
        sa.select(m.c.entity_id, m.c.start, m.c.end, m.c.surface)
        .join(e, e.c.id == m.c.entity_id)
        .where(*mine)
        .order_by(m.c.start)
    )
    for r in run(db, spans).fetchall():
        if r[0] in by_entity:
            by_entity[r[0]].append([r[1], r[2], r[3]])
    for ent in ents:
        ent["mentions"] = by_entity[ent["id"]]
    return ents


def entity_ids_by_name(db: Database, document_id: str, method: str) -> dict[str, int]:
    """``name -> id`` of every stored entity row of a document and method."""
    e = ents_table
    query = sa.select(e.c.id, e.c.name).where(e.c.document_id == document_id, e.c.method == method)
    return {r[1]: r[0] for r in run(db, query).fetchall()}


def replace_entities(
    db: Database,
    document_id: str,
    method: str,
    run_id: str | None,
    entities: Sequence[dict[str, Any]],
    referenced: set[int],
    unchanged: frozenset[str] = frozenset(),
) -> None:
    """Store ``entities`` (ranked in the given order; each ``name, aliases, label, keep,
    mentions = [(start, end, surface, passage_idx)]``) as the document's entities of ``method``.

    An entity keeps the row id of the stored entity of the same name, else of its ``keep`` name
    (a renamed or merged entity keeps the id questions point at). Rows left over lose their
    mentions; those questions point at stay with ``n_mentions = 0`` (unranked), the rest go.
    ``unchanged`` names entities stored exactly so already: only their rank is set. Call inside a
    transaction.
    """
    e = ents_table
    old = entity_ids_by_name(db, document_id, method)
    for rank, ent in enumerate(entities, start=1):
        if ent["name"] in unchanged and ent["name"] in old:
            run(db, sa.update(e).where(e.c.id == old.pop(ent["name"])).values(rank=rank))
            continue
        row = {
            "document_id": document_id,
            "name": ent["name"],
            "aliases": dumps(list(ent["aliases"])),
            "label": ent["label"],
            "n_mentions": len(ent["mentions"]),
            "rank": rank,
            "method": method,
            "run_id": run_id,
        }
        entity_id = old.pop(ent["name"], None)
        if entity_id is None and ent.get("keep") in old:
            entity_id = old.pop(ent["keep"])
        if entity_id is None:
            entity_id = run(db, sa.insert(e).values(**row).returning(e.c.id)).fetchone()[0]
        else:
            run(db, sa.update(e).where(e.c.id == entity_id).values(**row))
            run(db, sa.delete(mentions).where(mentions.c.entity_id == entity_id))
        spans = [
            {
                "entity_id": entity_id,
                "document_id": document_id,
                "start": m[0],
                "end": m[1],
                "surface": m[2],
                "passage_idx": m[3],
            }
            for m in ent["mentions"]
        ]
        for i in range(0, len(spans), _MENTION_CHUNK):
            run_many(db, sa.insert(mentions), spans[i : i + _MENTION_CHUNK])
    for extra, entity_id in enumerate(old.values(), start=len(entities) + 1):
        run(db, sa.delete(mentions).where(mentions.c.entity_id == entity_id))
        if entity_id in referenced:
            run(db, sa.update(e).where(e.c.id == entity_id).values(n_mentions=0, rank=extra))
        else:
            run(db, sa.delete(e).where(e.c.id == entity_id))


def questions_about(db: Database, entity_ids: Sequence[int]) -> list[dict[str, Any]]:
    """Questions whose entity (``entity_id`` or one of ``metadata.entity_ids``) is among
    ``entity_ids``: ``id, status, metadata``."""
    if not entity_ids:
        return []
    wanted = set(entity_ids)
    q = questions
    query = (  # the JSON list is checked here: json_each is SQLite's, not PostgreSQL's
        sa.select(q.c.id, q.c.entity_id, q.c.status, q.c.metadata)
        .where(sa.or_(q.c.entity_id.in_(list(entity_ids)), q.c.metadata.like("%entity_ids%")))
        .order_by(q.c.id)
    )
    return [
        {k: found[k] for k in ("id", "status", "metadata")}
        for found in all_rows(db, query)
        if found["entity_id"] in wanted or _listed(found["metadata"], wanted)
    ]


def _listed(metadata: Any, wanted: set[int]) -> bool:
    """Whether the decoded ``metadata`` lists one of ``wanted`` in ``entity_ids``."""
    listed = metadata.get("entity_ids") if isinstance(metadata, dict) else None
    return isinstance(listed, list) and any(
        isinstance(i, int) and not isinstance(i, bool) and i in wanted for i in listed
    )


def mention_spans(
    db: Database, entity_id: int, mention_ids: Sequence[int]
) -> dict[int, tuple[int, int]]:
    """``mention id -> (start, end)`` of those of ``mention_ids`` that belong to the entity."""
    if not mention_ids:
        return {}
    m = mentions
    query = sa.select(m.c.id, m.c.start, m.c.end).where(
        m.c.entity_id == entity_id, m.c.id.in_(list(mention_ids))
    )
    return {r[0]: (r[1], r[2]) for r in run(db, query).fetchall()}


def flagged_questions(db: Database, edit_id: int, status: str) -> list[dict[str, Any]]:
    """Questions with ``status`` whose ``metadata.needs_review.edit`` is ``edit_id``."""
    q = questions
    edit = sa.cast(json_text(q.c.metadata, "needs_review.edit"), sa.Text)
    query = sa.select(q.c.id, q.c.status, q.c.metadata).where(
        q.c.status == status, sa.func.json_valid(q.c.metadata), edit == str(edit_id)
    )  # compared as text: PostgreSQL's JSON value is text, SQLite's a number
    return all_rows(db, query.order_by(q.c.id))


def documents_with_entities(db: Database) -> list[tuple[str, str]]:
    """``(id, title)`` of the documents that have stored entities, by id."""
    d, e = documents, ents_table
    has = sa.exists().where(e.c.document_id == d.c.id, e.c.n_mentions > 0)
    query = sa.select(d.c.id, d.c.title).where(has).order_by(d.c.id)
    return [(r[0], r[1] or r[0]) for r in run(db, query).fetchall()]


def entity_question_counts(db: Database, document_id: str) -> dict[int, int]:
    """``entity id -> number of questions about it`` for one document's entities."""
    q, e = questions, ents_table
    query = (
        sa.select(q.c.entity_id, sa.func.count())
        .join(e, e.c.id == q.c.entity_id)
        .where(e.c.document_id == document_id)
        .group_by(q.c.entity_id)
    )
    return {int(r[0]): int(r[1]) for r in run(db, query).fetchall()}


def mention_rows(db: Database, entity_id: int) -> list[dict[str, Any]]:
    """The mentions of one entity in book order: ``id, start, end, surface, passage_idx``."""
    m = mentions
    query = sa.select(m.c.id, m.c.start, m.c.end, m.c.surface, m.c.passage_idx)
    return all_rows(db, query.where(m.c.entity_id == entity_id).order_by(m.c.start))


def passage_starts(db: Database, document_id: str) -> list[int]:
    """Start offsets of a document's passages in order (to index mentions by passage)."""
    query = sa.select(passages.c.start).where(passages.c.document_id == document_id)
    return [r[0] for r in run(db, query.order_by(passages.c.idx)).fetchall()]
