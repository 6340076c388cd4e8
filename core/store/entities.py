"""The ``entities`` and ``mentions`` tables (migration m0001): typed records and every query.

:func:`replace_entities` stores one extraction of a ``(document, method)``: the mentions (a long
book has 100,000 and more) are staged first in short transactions (:mod:`core.store.row_stage`),
then one short transaction writes the entity rows (ids kept for names that still exist: questions
point at them) and switches the mentions in. ``entity_edits`` are in :mod:`core.store.entity_edits`.
SQLAlchemy Core over :mod:`core.store.tables` (issue 33): nothing here is translated for
PostgreSQL (the staged mentions are switched in by :mod:`core.store.row_stage`, each one's
entity id filled by :func:`_entity_by_name`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Self

import sqlalchemy as sa

from core.store.connection import dumps, transaction
from core.store.questions import referenced_entity_ids
from core.store.row_stage import drop_rows_stage, stage_rows, staged_value, switch_rows
from core.store.statements import run
from core.store.tables import entities as entity_rows
from core.store.tables import mentions as mention_rows

if TYPE_CHECKING:
    from core.store.engine import Database


@dataclass(frozen=True, slots=True)
class Entity:
    """An ``entities`` row: a canonical name with its aliases, ranked by mentions (1 = most)."""

    id: int
    document_id: str
    name: str
    aliases: list[str]
    label: str
    n_mentions: int
    rank: int
    method: str
    run_id: str | None

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> Self:
        """An entity from its row (``aliases`` JSON text or already decoded)."""
        aliases = row["aliases"]
        return cls(
            id=int(row["id"]),
            document_id=row["document_id"],
            name=row["name"],
            aliases=list(json.loads(aliases) if isinstance(aliases, str) else aliases),
            label=row["label"],
            n_mentions=int(row["n_mentions"]),
            rank=int(row["rank"]),
            method=row["method"],
            run_id=row["run_id"],
        )


@dataclass(frozen=True, slots=True)
class Mention:
    """A ``mentions`` row: where an entity is named, ``[start, end)`` in the document text."""

    id: int
    entity_id: int
    document_id: str
    start: int
    end: int
    surface: str
    passage_idx: int | None

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> Self:
        """A mention from its row."""
        return cls(
            id=int(row["id"]),
            entity_id=int(row["entity_id"]),
            document_id=row["document_id"],
            start=int(row["start"]),
            end=int(row["end"]),
            surface=row["surface"],
            passage_idx=None if row["passage_idx"] is None else int(row["passage_idx"]),
        )


@dataclass(frozen=True, slots=True)
class EntityDraft:
    """An entity to store (no id yet), its mentions given separately."""

    name: str
    aliases: list[str] = field(default_factory=list)
    label: str = ""
    n_mentions: int = 0


@dataclass(frozen=True, slots=True)
class MentionDraft:
    """A mention to store, of the entity named ``entity_name``."""

    entity_name: str
    start: int
    end: int
    surface: str
    passage_idx: int | None


def _entity_by_name(doc_id: str, method: str) -> sa.ScalarSelect[Any]:
    """The id of the entity of ``(doc_id, method)`` named as the staged mention's
    ``entity_name`` (a fill of :func:`core.store.row_stage.switch_rows`)."""
    e = entity_rows.alias("e")
    named = e.c.name == staged_value("entity_name")
    query = sa.select(e.c.id).where(e.c.document_id == doc_id, e.c.method == method, named)
    return query.scalar_subquery()


def _records(db: Database, query: sa.Select[Any], cls: Any) -> list[Any]:
    cursor = run(db, query)
    cols = [c[0] for c in cursor.description]
    return [cls.from_row(dict(zip(cols, r, strict=True))) for r in cursor.fetchall()]


_E = entity_rows.c
_M = mention_rows.c


def replace_entities(
    db: Database,
    doc_id: str,
    method: str,
    run_id: str,
    entities: Sequence[EntityDraft],
    mentions: Sequence[MentionDraft],
) -> None:
    """Replace the entities of ``(doc_id, method)`` and their mentions (see module docstring);
    ``entities`` in rank order."""
    rows = [{"entity_id": None, "document_id": doc_id, **asdict(m)} for m in mentions]
    stage = stage_rows(db, "mentions", rows) if rows else None
    try:
        with transaction(db):
            _write_entity_rows(db, doc_id, entities, method, run_id)
            if stage is not None:
                switch_rows(
                    db,
                    stage,
                    fill={"entity_id": _entity_by_name(doc_id, method)},
                    columns=[c for c in stage.columns if c != "entity_name"],
                )
    finally:
        if stage is not None:
            drop_rows_stage(db, stage)


def _write_entity_rows(
    db: Database,
    doc_id: str,
    drafts: Sequence[EntityDraft],
    method: str,
    run_id: str,
) -> None:
    """The entity rows (ids kept for names that still exist); old mentions removed."""
    query = sa.select(_E.id, _E.name).where(_E.document_id == doc_id, _E.method == method)
    old = {r[1]: r[0] for r in run(db, query)}
    referenced = referenced_entity_ids(db)
    for rank, e in enumerate(drafts, start=1):
        row = {
            "document_id": doc_id,
            "name": e.name,
            "aliases": dumps(e.aliases),
            "label": e.label,
            "n_mentions": e.n_mentions,
            "rank": rank,
            "method": method,
            "run_id": run_id,
        }
        if e.name in old:
            entity_id = old.pop(e.name)
            run(db, sa.update(entity_rows).where(_E.id == entity_id).values(**row))
            run(db, sa.delete(mention_rows).where(_M.entity_id == entity_id))
        else:
            run(db, sa.insert(entity_rows).values(**row))
    for extra, entity_id in enumerate(old.values(), start=len(drafts) + 1):
        run(db, sa.delete(mention_rows).where(_M.entity_id == entity_id))
        if entity_id in referenced:  # keep the row questions point at, unranked
            kept = dict(n_mentions=0, rank=extra, run_id=run_id)
            run(db, sa.update(entity_rows).where(_E.id == entity_id).values(**kept))
        else:
            run(db, sa.delete(entity_rows).where(_E.id == entity_id))


def get_entities(db: Database, doc_id: str, method: str, *, top: int | None = None) -> list[Entity]:
    """The mentioned entities of ``(doc_id, method)`` by rank (the first ``top`` when given)."""
    query = (
        sa.select(entity_rows)
        .where(_E.document_id == doc_id, _E.method == method, _E.n_mentions > 0)
        .order_by(_E.rank)
    )
    return _records(db, query.limit(int(top)) if top else query, Entity)


def get_entity(db: Database, entity_id: int) -> Entity | None:
    """The entity ``entity_id`` or None."""
    found = _records(db, sa.select(entity_rows).where(_E.id == entity_id), Entity)
    return found[0] if found else None


def latest_method_entity_names(db: Database, doc_id: str, n: int) -> list[str]:
    """Names of the ``n`` top-ranked entities of the document's most recently stored method
    (by entity id; mentioned or not)."""
    query = sa.select(_E.method).where(_E.document_id == doc_id).order_by(_E.id.desc()).limit(1)
    latest = run(db, query).fetchone()
    if latest is None:
        return []
    names = (
        sa.select(_E.name)
        .where(_E.document_id == doc_id, _E.method == latest[0])
        .order_by(_E.rank, _E.id)
        .limit(n)
    )
    return [r[0] for r in run(db, names)]


def get_mentions(db: Database, entity_id: int) -> list[Mention]:
    """The mention chain of an entity in book order."""
    query = sa.select(mention_rows).where(_M.entity_id == entity_id).order_by(_M.start)
    return _records(db, query, Mention)


def mention_spans(db: Database, entity_ids: Sequence[int]) -> dict[int, list[tuple[int, int, int]]]:
    """Entity id -> its mentions ``(passage_idx, start, end)`` in a passage, in book order."""
    ids = list(entity_ids)
    out: dict[int, list[tuple[int, int, int]]] = {i: [] for i in ids}
    for lo in range(0, len(ids), 500):
        query = (
            sa.select(_M.entity_id, _M.passage_idx, _M.start, _M.end)
            .where(_M.entity_id.in_(ids[lo : lo + 500]), _M.passage_idx.is_not(None))
            .order_by(_M.start)
        )
        for r in run(db, query):
            out[r[0]].append((r[1], r[2], r[3]))
    return out


def _passage_indexes(db: Database, condition: sa.ColumnElement[bool]) -> list[int]:
    """Distinct passage indexes of the mentions meeting ``condition``, in book order."""
    query = (
        sa.select(_M.passage_idx)
        .distinct()
        .where(condition, _M.passage_idx.is_not(None))
        .order_by(_M.passage_idx)
    )
    return [r[0] for r in run(db, query)]


def entity_passage_indexes(db: Database, entity_id: int) -> list[int]:
    """Distinct passage indexes of an entity's mentions, in book order."""
    return _passage_indexes(db, _M.entity_id == entity_id)


def entities_by_id(db: Database, ids: Sequence[int]) -> list[Entity]:
    """The stored entities among ``ids``, by id."""
    if not ids:
        return []
    query = sa.select(entity_rows).where(_E.id.in_(list(ids))).order_by(_E.id)
    return _records(db, query, Entity)


def mention_passages(db: Database, entity_ids: Sequence[int]) -> list[int]:
    """Distinct passage indexes where any of ``entity_ids`` is mentioned, in book order."""
    if not entity_ids:
        return []
    return _passage_indexes(db, _M.entity_id.in_(list(entity_ids)))
