"""Storing and reading entities: tables ``entities`` and ``mentions`` (migration m0001).

:func:`build_entities` extracts (:mod:`core.generation.entities`), optionally merges aliases with
a model (:mod:`core.generation.alias_merge`) and stores the result (the mentions staged in short
transactions, then one short switch), keeping the ids of entities that still exist (questions
point at them). The readers return :class:`core.store.entities.Entity` records by rank.
"""

from __future__ import annotations

import bisect
from typing import TYPE_CHECKING, TypedDict

from core.corpus.documents import require_document
from core.generation.alias_merge import (
    apply_merge_groups,
    check_merge_model,
    llm_merge_groups,
)
from core.generation.entities import extract_entities
from core.generation.entity_revisions import reapply_edits
from core.store.documents import get_passages
from core.store.entities import (
    Entity,
    EntityDraft,
    MentionDraft,
    entity_passage_indexes,
    get_mentions,
    replace_entities,
)
from core.store.entities import get_entities as stored_entities
from core.store.runs import RunStatus, finish_run, latest_entity_method, start_run

if TYPE_CHECKING:
    from core.generation.names import Entity as FoundEntity
    from core.store.engine import Database

__all__ = [
    "build_entities",
    "entity_passage_indexes",
    "get_entities",
    "get_mentions",
    "latest_method",
]


class EntitySummary(TypedDict):
    """What :func:`build_entities` did: its run, the method used, the counts, a note (LLM merge,
    edits no longer applicable), the top names, the merges of the top 20 and the extractor."""

    run_id: str
    method: str
    n_entities: int
    n_mentions: int
    note: str
    top: list[str]
    merges: dict[str, list[str]]
    extractor: str


def build_entities(
    db: Database,
    doc_id: str,
    *,
    method: str = "auto",
    model: str | None = None,
    merge_top: int = 40,
    min_mentions: int = 2,
    progress: bool = False,
) -> EntitySummary:
    """Extract, optionally LLM-merge, and store the entities of a stored document.

    Re-running replaces the entities of the same ``(document, method)`` at once (one short switch);
    entity ids are kept for unchanged names (questions point at them). Returns a summary
    ``{"run_id", "method", "n_entities", "n_mentions", "top"}``.
    """

    doc = require_document(db, doc_id)
    if model:
        check_merge_model(model)  # a bad merge model fails before anything is written
    passages = get_passages(db, doc_id)
    spans = [(p.start, p.end) for p in passages] or None
    run_id = start_run(
        db, "entities", doc_id, {"method": method, "model": model, "min_mentions": min_mentions}
    )
    note = ""
    try:
        entities, used = extract_entities(
            doc.text,
            method,
            min_mentions=min_mentions,
            spans=spans,
            progress=progress,
            stories=(doc.metadata or {}).get("story_starts"),
        )
        if model:
            try:
                groups = llm_merge_groups(db, doc.text, entities[:merge_top], model, run_id)
                entities = apply_merge_groups(entities, groups)
                note = f"llm merged {sum(len(g) - 1 for g in groups)} names"
            except ValueError as exc:
                note = f"llm merge reply unparsed, kept string merges: {exc}"
            used = f"{used}+llm-merge"
        _store_entities(db, doc_id, entities, used, run_id, [p.start for p in passages])
        if stale := reapply_edits(db, doc_id):  # a person's entity edits survive re-extraction
            note = f"{note}; " if note else ""
            note += f"entity edits no longer applicable: {', '.join(map(str, stale))}"
    except BaseException as exc:
        finish_run(db, run_id, RunStatus.FAILED, str(exc)[:500])
        raise
    finish_run(db, run_id, RunStatus.DONE, note)
    return EntitySummary(
        run_id=run_id,
        method=used,
        n_entities=len(entities),
        n_mentions=sum(e.n_mentions for e in entities),
        note=note,
        top=[e.name for e in entities[:10]],
        merges={e.name: e.merges for e in entities[:20] if e.merges},
        extractor=(
            "spaCy NER"
            if used.startswith("spacy")
            else "built-in proper-noun extractor"
            + (" (spaCy not installed)" if method == "auto" else "")
        ),
    )


def _store_entities(
    db: Database,
    doc_id: str,
    entities: list[FoundEntity],
    method: str,
    run_id: str,
    passage_starts: list[int],
) -> None:
    """Replace the entities of ``(doc_id, method)``: the mentions (a long book has 100,000 and
    more) are staged first in short transactions (:mod:`core.store.row_stage`), then one short
    transaction writes the entity rows and switches the mentions in."""
    mentions = [
        MentionDraft(
            entity_name=e.name,
            start=m.start,
            end=m.end,
            surface=m.surface,
            passage_idx=(
                bisect.bisect_right(passage_starts, m.start) - 1 if passage_starts else None
            ),
        )
        for e in entities
        for m in e.mentions
    ]
    drafts = [EntityDraft(e.name, list(e.aliases), e.label, e.n_mentions) for e in entities]
    replace_entities(db, doc_id, method, run_id, drafts, mentions)


def latest_method(db: Database, doc_id: str) -> str | None:
    """The method of the most recent entity extraction stored for ``doc_id``."""
    return latest_entity_method(db, doc_id)


def get_entities(
    db: Database, doc_id: str, *, method: str | None = None, top: int | None = None
) -> list[Entity]:
    """Stored entities of ``doc_id`` by rank (latest method unless given)."""
    method = method or latest_method(db, doc_id)
    if method is None:
        return []
    return stored_entities(db, doc_id, method, top=top)
