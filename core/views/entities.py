"""What the Entities page shows: a document's top entities with counts and types, mentions in
context (KWIC) and the history of people's edits."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypedDict

import pandas as pd

from core.corpus.documents import require_document
from core.generation.entity_edits import ACTIONS
from core.store.entity_edits import (
    document_edits,
    documents_with_entities,
    entity_question_counts,
    mention_rows,
    stored_entities,
)
from core.store.runs import latest_entity_method
from core.views.text import InertMarkdown, escape_markdown

if TYPE_CHECKING:
    from core.store.engine import Database

ENTITY_COLUMNS = ["rank", "name", "type", "mentions", "questions", "aliases"]
HISTORY_COLUMNS = ["edit", "action", "what", "by", "when", "undone by"]


def entity_documents(db: Database) -> list[tuple[str, str]]:
    """``(document id, title)`` of the documents with entities."""
    return documents_with_entities(db)


class EntityRow(TypedDict):
    """A stored (effective) entity of a document (:func:`document_entities`)."""

    id: int
    name: str
    aliases: list[str]
    label: str | None
    n_mentions: int
    rank: int
    run_id: str | None


def document_entities(db: Database, doc_id: str) -> list[EntityRow]:
    """The stored (effective) entities of ``doc_id`` by rank: ``id, name, label, n_mentions,
    aliases, rank, run_id`` (no mention chains: see :func:`mention_samples`)."""
    method = latest_entity_method(db, doc_id)
    rows = stored_entities(db, doc_id, method, chains=False) if method else []
    return [
        {
            "id": int(r["id"]),
            "name": str(r["name"]),
            "aliases": list(r["aliases"] or []),
            "label": r["label"],
            "n_mentions": int(r["n_mentions"]),
            "rank": int(r["rank"]),
            "run_id": r["run_id"],
        }
        for r in rows
    ]


def entity_table(entities: list[EntityRow], questions: dict[int, int]) -> pd.DataFrame:
    """One row per entity: rank, name, type, mention count, questions about it, aliases."""
    return pd.DataFrame(
        [
            (
                e["rank"],
                e["name"],
                e["label"] or "-",
                e["n_mentions"],
                questions.get(e["id"], 0),
                ", ".join(e["aliases"][:5]),
            )
            for e in entities
        ],
        columns=ENTITY_COLUMNS,
    )


def entity_overview(db: Database, doc_id: str, top: int = 50) -> pd.DataFrame:
    """:func:`entity_table` of the top ``top`` entities of ``doc_id``."""
    return entity_table(document_entities(db, doc_id)[:top], entity_question_counts(db, doc_id))


class MentionSample(TypedDict):
    """A mention in context (:func:`mention_samples`)."""

    id: int  # the mention row's id
    start: int
    left: str
    surface: str
    right: str


class EditRecord(TypedDict):
    """One entity edit as the Entities page lists it (:func:`edit_history`)."""

    id: int
    action: str
    what: str
    made_by: str
    created_at: str
    undone_by: int | None
    undoable: bool


def mention_samples(
    db: Database, doc_id: str, entity_name: str, limit: int | None = 30, width: int = 60
) -> list[MentionSample]:
    """Mentions of one entity in book order with ``width`` characters of context each side:
    ``id`` (the mention row id), ``start``, ``left``, ``surface``, ``right``. At most ``limit``,
    spread evenly over the book; every mention when ``limit`` is None."""
    text = require_document(db, doc_id).text
    ent = next((e for e in document_entities(db, doc_id) if e["name"] == entity_name), None)
    if ent is None:
        return []
    found = mention_rows(db, ent["id"])
    if limit is not None and len(found) > limit:
        step = len(found) / limit
        found = [found[int(i * step)] for i in range(limit)]
    return [
        {
            "id": m["id"],
            "start": m["start"],
            "left": " ".join(text[max(0, m["start"] - width) : m["start"]].split()),
            "surface": m["surface"],
            "right": " ".join(text[m["end"] : m["end"] + width].split()),
        }
        for m in found
    ]


def kwic_markdown(sample: MentionSample) -> InertMarkdown:
    """A mention in context as inert Markdown: ``#id ... left **surface** right ...`` (every
    part escaped)."""
    return InertMarkdown(
        f"`#{int(sample['id'])}` …{escape_markdown(sample['left'])} "
        f"**{escape_markdown(sample['surface'])}** {escape_markdown(sample['right'])}…"
    )


def mention_label(sample: MentionSample) -> str:
    """A short plain-text label of a mention for a picker: ``#id … left [surface] right …``."""
    return f"#{sample['id']} …{sample['left'][-30:]} [{sample['surface']}] {sample['right'][:30]}…"


def describe_edit(action: str, payload: dict[str, Any]) -> str:
    """One line saying what an edit did, e.g. ``Levin + Kostya -> Konstantin Levin``."""
    if action == "merge":
        return f"{' + '.join(payload['names'])} -> {payload['into']}"
    if action == "split":
        if payload.get("surface"):
            after = f" after {payload['after']!r}" if payload.get("after") else ""
            which = f"mentions written {payload['surface']!r}{after}"
        else:
            which = f"{len(payload['mentions'])} mentions"
        return f"{which} of {payload['entity']} -> {payload['name']}"
    if action == "rename":
        return f"{payload['entity']} -> {payload['name']}"
    if action == "retype":
        return f"{payload['entity']}: {payload['label']}"
    if action == "drop":
        return str(payload["entity"])
    return f"undo of edit {payload.get('edit')}"


def edit_history(db: Database, doc_id: str) -> list[EditRecord]:
    """The edits of ``doc_id`` newest first: ``id, action, what, made_by, created_at,
    undone_by, undoable`` (an edit not undone and not itself an undo)."""
    return [
        {
            "id": e["id"],
            "action": e["action"],
            "what": describe_edit(e["action"], e["payload"]),
            "made_by": e["made_by"],
            "created_at": e["created_at"],
            "undone_by": e["undone_by"],
            "undoable": e["action"] in ACTIONS and e["undone_by"] is None,
        }
        for e in reversed(document_edits(db, doc_id))
    ]


def history_table(history: list[EditRecord]) -> pd.DataFrame:
    """:func:`edit_history` as a table."""
    return pd.DataFrame(
        [
            (h["id"], h["action"], h["what"], h["made_by"], h["created_at"], h["undone_by"] or "")
            for h in history
        ],
        columns=HISTORY_COLUMNS,
    )
