"""Stored entities under a person's edits: the extraction output kept as the base, the edits
replayed on it (:func:`core.generation.entity_edits.apply_edits`) and the result written back
to the tables ``entities`` and ``mentions`` that question generation reads.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from core.corpus.documents import require_document
from core.errors import InputError
from core.generation.entity_edits import EditedEntity, apply_edits, from_dict
from core.store.connection import transaction
from core.store.entity_edits import (
    document_edits,
    get_base,
    passage_starts,
    put_base,
    replace_entities,
    stored_entities,
)
from core.store.questions import referenced_entity_ids
from core.store.runs import latest_entity_method

if TYPE_CHECKING:
    from core.store.engine import Database


@dataclass
class EditState:
    """A document's entities under edit: the method and run of its latest extraction, the
    base (that run's output) and the stored, effective entities (with ids)."""

    document_id: str
    method: str
    run_id: str
    base: list[EditedEntity]
    stored: list[dict[str, Any]]
    text: str = ""


def edit_state(db: Database, doc_id: str) -> EditState:
    """The entities of ``doc_id`` ready for an edit; the base of the latest extraction run is
    stored first if it is not yet (call inside a transaction). InputError if there are none."""
    text = require_document(db, doc_id).text
    method = latest_entity_method(db, doc_id)
    stored = stored_entities(db, doc_id, method) if method else []
    if method is None or not stored:
        raise InputError(
            f"document {doc_id!r} has no entities: run `python -m core entities {doc_id}` first"
        )
    run_id = stored[0]["run_id"] or "-"
    raw = get_base(db, doc_id, method, run_id)
    if raw is None:  # no edit since this extraction: the stored entities are its output
        raw = [from_dict(e).as_dict() for e in stored]
        put_base(db, doc_id, method, run_id, raw)
    return EditState(doc_id, method, run_id, [from_dict(e) for e in raw], stored, text)


def write_entities(db: Database, state: EditState, entities: list[EditedEntity]) -> None:
    """Store ``entities`` as the document's entities (ids kept by name, else by ``keep``;
    passage indexes recomputed). Call inside a transaction."""
    starts = passage_starts(db, state.document_id)
    stored = {
        e["name"]: (e["label"], tuple(e["aliases"]), tuple(tuple(m) for m in e["mentions"]))
        for e in state.stored
    }
    unchanged = frozenset(
        e.name for e in entities if stored.get(e.name) == (e.label, e.aliases, e.mentions)
    )

    def idx(start: int) -> int | None:
        return bisect.bisect_right(starts, start) - 1 if starts else None

    replace_entities(
        db,
        state.document_id,
        state.method,
        state.run_id if state.run_id != "-" else None,
        [
            {
                "name": e.name,
                "label": e.label,
                "aliases": e.aliases,
                "keep": e.keep,
                "mentions": [(s, end, surface, idx(s)) for s, end, surface in e.mentions],
            }
            for e in entities
        ],
        referenced_entity_ids(db),
        unchanged,
    )


def reapply_edits(db: Database, doc_id: str) -> list[int]:
    """After a new extraction of ``doc_id``: replay the document's edits on it and store the
    result. Returns the ids of edits that no longer apply (empty when there are no edits)."""
    edits = document_edits(db, doc_id)
    if not edits:
        return []
    with transaction(db):
        try:
            state = edit_state(db, doc_id)
        except InputError:  # the new extraction found nothing: nothing to edit
            return []
        entities, skipped = apply_edits(state.base, edits, state.text, state.method)
        write_entities(db, state, entities)
    return skipped
