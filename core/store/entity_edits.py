"""Tables ``entity_edits`` and ``entity_bases`` (migration m0690), and the write that replaces a
document's stored entities by an edited list: the only module with SQL on them.

Edits are append-only; an edit is undone when an ``undo`` row names it (``undoes``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from core.store.connection import dumps, placeholders, rows, utcnow

if TYPE_CHECKING:
    from core.store.engine import Database

_JSON = ("payload", "entities")


def insert_edit(
    db: Database,
    document_id: str,
    action: str,
    payload: dict[str, Any],
    made_by: str,
    undoes: int | None = None,
) -> int:
    """Append one edit row; returns its id."""
    cur = db.execute(
        "insert into entity_edits (document_id, action, payload, made_by, created_at, undoes) "
        "values (?, ?, ?, ?, ?, ?) returning id",  # lastrowid: SQLite only
        [document_id, action, dumps(payload), made_by, utcnow(), undoes],
    )
    return int(cur.fetchone()[0])


def document_edits(db: Database, document_id: str) -> list[dict[str, Any]]:
    """Every edit row of a document in order, each with ``undone_by`` (the id of the undo row
    that reverses it, or None)."""
    return rows(
        db,
        "select e.*, (select u.id from entity_edits u where u.undoes = e.id) undone_by "
        "from entity_edits e where e.document_id = ? order by e.id",
        [document_id],
        also=_JSON,
    )


def get_base(
    db: Database, document_id: str, method: str, run_id: str
) -> list[dict[str, Any]] | None:
    """The stored extraction output of one run (a list of entity dicts), or None."""
    found = rows(
        db,
        "select entities from entity_bases where document_id = ? and method = ? and run_id = ?",
        [document_id, method, run_id],
        also=_JSON,
    )
    return found[0]["entities"] if found else None


def put_base(
    db: Database,
    document_id: str,
    method: str,
    run_id: str,
    entities: list[dict[str, Any]],
) -> None:
    """Keep the extraction output of one run (written once, before its first edit)."""
    db.execute(
        "insert or ignore into entity_bases (document_id, method, run_id, entities, created_at) "
        "values (?, ?, ?, ?, ?)",
        [document_id, method, run_id, dumps(entities), utcnow()],
    )


def stored_entities(
    db: Database, document_id: str, method: str, *, chains: bool = True
) -> list[dict[str, Any]]:
    """The stored entities of a document and method with mentions (``n_mentions > 0``) by
    rank, each with ``mentions`` = ``[[start, end, surface], ...]`` in book order (left out
    when not ``chains``)."""
    ents = rows(
        db,
        "select id, name, aliases, label, n_mentions, rank, run_id from entities "
        "where document_id = ? and method = ? and n_mentions > 0 order by rank",
        [document_id, method],
    )
    if not chains:
        return ents
    by_entity: dict[int, list[list[Any]]] = {e["id"]: [] for e in ents}
    for r in db.execute(
        'select m.entity_id, m.start, m."end", m.surface from mentions m join entities e '
        "on e.id = m.entity_id where e.document_id = ? and e.method = ? order by m.start",
        [document_id, method],
    ):
        if r[0] in by_entity:
            by_entity[r[0]].append([r[1], r[2], r[3]])
    for e in ents:
        e["mentions"] = by_entity[e["id"]]
    return ents


def entity_ids_by_name(db: Database, document_id: str, method: str) -> dict[str, int]:
    """``name -> id`` of every stored entity row of a document and method."""
    return {
        r[1]: r[0]
        for r in db.execute(
            "select id, name from entities where document_id = ? and method = ?",
            [document_id, method],
        )
    }


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
    old = entity_ids_by_name(db, document_id, method)
    for rank, e in enumerate(entities, start=1):
        if e["name"] in unchanged and e["name"] in old:
            db.execute("update entities set rank = ? where id = ?", [rank, old.pop(e["name"])])
            continue
        row = {
            "document_id": document_id,
            "name": e["name"],
            "aliases": dumps(list(e["aliases"])),
            "label": e["label"],
            "n_mentions": len(e["mentions"]),
            "rank": rank,
            "method": method,
            "run_id": run_id,
        }
        entity_id = old.pop(e["name"], None)
        if entity_id is None and e.get("keep") in old:
            entity_id = old.pop(e["keep"])
        if entity_id is None:
            entity_id = db.table("entities").insert(row).last_pk
        else:
            db.table("entities").update(entity_id, row)
            db.execute("delete from mentions where entity_id = ?", [entity_id])
        db.table("mentions").insert_all(
            (
                {
                    "entity_id": entity_id,
                    "document_id": document_id,
                    "start": m[0],
                    "end": m[1],
                    "surface": m[2],
                    "passage_idx": m[3],
                }
                for m in e["mentions"]
            ),
            batch_size=1000,
        )
    for extra, entity_id in enumerate(old.values(), start=len(entities) + 1):
        db.execute("delete from mentions where entity_id = ?", [entity_id])
        if entity_id in referenced:
            db.execute(
                "update entities set n_mentions = 0, rank = ? where id = ?", [extra, entity_id]
            )
        else:
            db.execute("delete from entities where id = ?", [entity_id])


def questions_about(db: Database, entity_ids: Sequence[int]) -> list[dict[str, Any]]:
    """Questions whose entity (``entity_id`` or one of ``metadata.entity_ids``) is among
    ``entity_ids``: ``id, status, metadata``."""
    if not entity_ids:
        return []
    wanted = set(entity_ids)
    found = rows(  # the JSON list is checked here: json_each is SQLite's, not PostgreSQL's
        db,
        f"select id, entity_id, status, metadata from questions q where q.entity_id in "
        f"({placeholders(entity_ids)}) or q.metadata like '%entity_ids%' order by id",
        list(entity_ids),
    )
    return [
        {k: q[k] for k in ("id", "status", "metadata")}
        for q in found
        if q["entity_id"] in wanted or _listed(q["metadata"], wanted)
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
    return {
        r[0]: (r[1], r[2])
        for r in db.execute(
            'select id, start, "end" from mentions where entity_id = ? and id in '
            f"({placeholders(mention_ids)})",
            [entity_id, *mention_ids],
        )
    }


def flagged_questions(db: Database, edit_id: int, status: str) -> list[dict[str, Any]]:
    """Questions with ``status`` whose ``metadata.needs_review.edit`` is ``edit_id``."""
    return rows(
        db,
        "select id, status, metadata from questions where status = ? and json_valid(metadata) "
        "and cast(json_extract(metadata, '$.needs_review.edit') as text) = ? order by id",
        [status, str(edit_id)],  # compared as text: json_extract is text on PostgreSQL
    )


def documents_with_entities(db: Database) -> list[tuple[str, str]]:
    """``(id, title)`` of the documents that have stored entities, by id."""
    return [
        (r[0], r[1] or r[0])
        for r in db.execute(
            "select d.id, d.title from documents d where exists (select 1 from entities e "
            "where e.document_id = d.id and e.n_mentions > 0) order by d.id"
        )
    ]


def entity_question_counts(db: Database, document_id: str) -> dict[int, int]:
    """``entity id -> number of questions about it`` for one document's entities."""
    return {
        int(r[0]): int(r[1])
        for r in db.execute(
            "select q.entity_id, count(*) from questions q join entities e on e.id = q.entity_id "
            "where e.document_id = ? group by q.entity_id",
            [document_id],
        )
    }


def mention_rows(db: Database, entity_id: int) -> list[dict[str, Any]]:
    """The mentions of one entity in book order: ``id, start, end, surface, passage_idx``."""
    return rows(
        db,
        'select id, start, "end", surface, passage_idx from mentions where entity_id = ? '
        "order by start",
        [entity_id],
    )


def passage_starts(db: Database, document_id: str) -> list[int]:
    """Start offsets of a document's passages in order (to index mentions by passage)."""
    return [
        r[0]
        for r in db.execute(
            "select start from passages where document_id = ? order by idx", [document_id]
        )
    ]
