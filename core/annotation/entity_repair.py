"""A person repairs a document's entities: merge, split, rename, retype, drop, and undo.

Every edit is an append-only row of ``entity_edits`` (who, when, its arguments); the stored
entities are then the extraction output with the active edits replayed
(:mod:`core.generation.entity_edits`), written back in the same transaction. Questions about an
entity that an edit merges away or drops get status ``needs_review`` (metadata ``needs_review``
names the edit and the reason; Review questions filters on the status); undoing the edit gives
them back the status they had, unless someone has reviewed them since.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from core.annotation.identity import authorise
from core.errors import InputError
from core.generation.entity_edits import (
    apply_edit,
    apply_edits,
    check_label,
    clean_name,
    removed_names,
)
from core.generation.entity_revisions import edit_state, write_entities
from core.store.connection import transaction, utcnow
from core.store.entity_edits import (
    document_edits,
    entity_ids_by_name,
    flagged_questions,
    insert_edit,
    mention_spans,
    questions_about,
)
from core.store.questions import QuestionStatus, update_question
from core.store.row_locks import hold_name

if TYPE_CHECKING:
    from core.store.engine import Database

#: The question status an entity edit sets on the questions about an entity it takes away.
NEEDS_REVIEW = QuestionStatus.NEEDS_REVIEW


def _payload(
    db: Database, doc_id: str, action: str, args: dict[str, Any], method: str
) -> dict[str, Any]:
    """Check an edit's arguments; split mentions given by id become character offsets; a merge
    records the extraction ``method`` it was made on (not replayed on another's entities)."""
    if action == "merge":
        names = [clean_name(n) for n in args.get("names") or []]
        into = (
            clean_name(args["into"], "--into name")
            if args.get("into")
            else names[0]
            if names
            else ""
        )
        return {"names": names, "into": into, "method": method}
    entity = clean_name(args.get("entity"))
    if action == "split" and args.get("surface"):
        return {
            "entity": entity,
            "surface": clean_name(args["surface"], "split: the --surface form"),
            "after": clean_name(args["after"], "split: --after word") if args.get("after") else "",
            "name": clean_name(args.get("name"), "split: the new entity's --name"),
            "label": check_label(args["label"]) if args.get("label") else "",
        }
    if action == "split":
        ids = [int(i) for i in args.get("mention_ids") or []]
        spans = mention_offsets(db, doc_id, entity, ids)
        label = check_label(args["label"]) if args.get("label") else ""
        return {
            "entity": entity,
            "mentions": spans,
            "name": clean_name(args.get("name"), "split: the new entity's --name"),
            "label": label,
        }
    if action == "rename":
        return {"entity": entity, "name": clean_name(args.get("name"))}
    if action == "retype":
        return {"entity": entity, "label": check_label(args.get("label"))}
    if action == "drop":
        return {"entity": entity}
    raise InputError(f"unknown entity edit {action!r}")


def mention_offsets(
    db: Database, doc_id: str, entity: str, mention_ids: list[int]
) -> list[list[int]]:
    """``[[start, end], ...]`` of stored mentions (by id) of the entity named ``entity``."""
    if not mention_ids:
        raise InputError("split: name the mentions that move (--mentions ID,ID)")
    state = edit_state(db, doc_id)
    ent = next((e for e in state.stored if e["name"] == entity), None)
    if ent is None:
        raise InputError(f"no entity named {entity!r} in {doc_id!r}")
    spans = mention_spans(db, ent["id"], mention_ids)
    unknown = sorted(set(mention_ids) - set(spans))
    if unknown:
        raise InputError(f"split: mentions {unknown[:5]} are not mentions of {entity!r}")
    return [list(spans[i]) for i in mention_ids]


def _flag(db: Database, entity_ids: list[int], edit_id: int, reason: str) -> dict[str, str]:
    """Set ``needs_review`` on the kept questions about ``entity_ids``: ``{id: old status}``."""
    flagged: dict[str, str] = {}
    now = utcnow()
    for q in questions_about(db, entity_ids):
        if q["status"] in (QuestionStatus.DISCARDED, NEEDS_REVIEW):
            continue
        meta = dict(q.get("metadata") or {})
        meta["needs_review"] = {"edit": edit_id, "reason": reason, "status_before": q["status"]}
        update_question(db, q["id"], status=NEEDS_REVIEW, metadata=meta, updated_at=now)
        flagged[q["id"]] = q["status"]
    return flagged


def edit_entities(
    db: Database, who: object, doc_id: str, action: str, **args: Any
) -> dict[str, Any]:
    """Apply one edit to ``doc_id``'s entities as the signed-in admin ``who``; returns the stored
    edit ``{"id", "action", "payload", "flagged"}``. Nothing is written when it is refused."""
    with transaction(db):
        name = authorise(db, who, "admin").name
        hold_name(db, "entity_edits", doc_id)  # one edit of a document's entities at a time
        state = edit_state(db, doc_id)
        payload = _payload(db, doc_id, action, args, state.method)
        current, _ = apply_edits(state.base, document_edits(db, doc_id), state.text, state.method)
        after = apply_edit(current, action, payload, state.text, state.method)
        gone = removed_names(current, action, payload)
        ids = entity_ids_by_name(db, doc_id, state.method)
        edit_id = insert_edit(db, doc_id, action, payload, name)
        how = f"merged into {payload['into']}" if action == "merge" else "dropped"
        reason = f"entity {', '.join(gone)} {how} (entity edit {edit_id} by {name})"
        flagged = _flag(db, [ids[n] for n in gone if n in ids], edit_id, reason)
        write_entities(db, state, after)
    return {"id": edit_id, "action": action, "payload": payload, "flagged": sorted(flagged)}


def undo_entity_edit(db: Database, who: object, doc_id: str, edit_id: int) -> dict[str, Any]:
    """Undo edit ``edit_id`` of ``doc_id`` (a new ``undo`` row) and store the entities without
    it; the questions it flagged and nobody has reviewed since get their status back."""
    with transaction(db):
        name = authorise(db, who, "admin").name
        hold_name(db, "entity_edits", doc_id)
        edits = document_edits(db, doc_id)
        target = next((e for e in edits if e["id"] == edit_id), None)
        if target is None:
            raise InputError(
                f"no entity edit {edit_id} on {doc_id!r} (see `entities edits {doc_id}`)"
            )
        if target["action"] == "undo":
            raise InputError(f"edit {edit_id} is an undo; repeat the edit to redo it")
        if target["undone_by"] is not None:
            raise InputError(f"edit {edit_id} was undone already (edit {target['undone_by']})")
        state = edit_state(db, doc_id)
        rest = [e for e in edits if e["id"] != edit_id]
        entities, skipped = apply_edits(state.base, rest, state.text, state.method)
        undo_id = insert_edit(db, doc_id, "undo", {"edit": edit_id}, name, undoes=edit_id)
        restored = []
        for q in flagged_questions(db, edit_id, NEEDS_REVIEW):
            mark = q["metadata"]["needs_review"]
            meta = {k: v for k, v in q["metadata"].items() if k != "needs_review"}
            update_question(
                db,
                q["id"],
                status=QuestionStatus(mark["status_before"]),
                metadata=meta,
                updated_at=utcnow(),
            )
            restored.append(q["id"])
        write_entities(db, state, entities)
    return {"id": undo_id, "undoes": edit_id, "restored": restored, "skipped": skipped}
