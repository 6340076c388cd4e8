"""Entities (admin): a document's top entities with counts and types, mentions in context, and
a person's repairs (merge by selection, split by mention, rename, retype, drop), each recorded
with who and when and undoable from the history. Questions about an entity merged away or
dropped get status ``needs_review`` (Review questions: filter Status)."""

from typing import Any

import streamlit as st

from app_support import caching, connection, frame, signin
from core.annotation.entity_repair import edit_entities, undo_entity_edit
from core.errors import WorkbenchError
from core.generation.entity_edits import LABELS
from core.views.entities import (
    document_entities,
    edit_history,
    entity_documents,
    entity_overview,
    history_table,
    kwic_markdown,
    mention_label,
    mention_samples,
)
from core.views.text import md, option

frame.setup("Entities")
user = signin.require_annotator("admin")
st.caption(
    "The people and places found in each document, which questions are built on: pick a "
    "document and an entity, check its mentions, then rename, merge or drop it."
)


def _do(db: connection.Database, action: str, **args: Any) -> None:
    """Store one edit (or undo) and rerun; a refusal is shown and nothing is stored."""
    try:
        if action == "undo":
            out = undo_entity_edit(db, user, doc, args["edit_id"])
            note = f"Edit {out['undoes']} undone; {len(out['restored'])} questions restored."
        else:
            out = edit_entities(db, user, doc, action, **args)
            note = f"Edit {out['id']} ({action}) stored."
            if out["flagged"]:
                note += f" {len(out['flagged'])} questions flagged needs_review."
    except WorkbenchError as exc:
        st.error(md(exc))
        return
    st.session_state["entities_notice"] = note
    st.rerun()


with connection.database() as db:
    docs = dict(caching.cached_view(db, entity_documents))
    if not docs:
        st.info("No entities yet: run `python -m core entities DOC` on a document first.")
        st.stop()
    doc = st.selectbox("Document", list(docs), format_func=lambda d: option(docs.get(d, d)))
    if notice := st.session_state.pop("entities_notice", None):
        st.success(md(notice))
    entities = caching.cached_view(db, document_entities, doc)
    st.subheader("Top entities")
    st.dataframe(caching.cached_view(db, entity_overview, doc), hide_index=True, width="stretch")
    names = [e["name"] for e in entities]
    name = st.selectbox("Entity", names, format_func=option, key="entity")
    samples = caching.cached_view(db, mention_samples, doc, name, None)  # every one can be picked
    st.caption(f"{len(samples)} mentions in context (book order)")
    for s in samples[:12]:
        st.markdown(md(kwic_markdown(s)))  # built escaped; md() passes it through

    merge, split, rename, retype, drop, history = st.tabs(
        ["Merge", "Split", "Rename", "Retype", "Drop", "History"]
    )
    with merge:
        parts = st.multiselect(
            "Entities to merge (the first keeps its id)",
            names,
            format_func=option,
            key="merge_parts",
        )
        into = st.text_input("Name of the merged entity (default: the first)", key="merge_into")
        if st.button("Merge", disabled=len(parts) < 2):
            _do(db, "merge", names=parts, into=into.strip() or None)
    with split:
        labels = {s["id"]: mention_label(s) for s in samples}
        moved = st.multiselect(
            "Mentions that belong to another entity",
            list(labels),
            format_func=lambda i: option(labels[i]),
            key="split_mentions",
        )
        new = st.text_input("Name of the new entity", key="split_name")
        if st.button("Split", disabled=not moved or not new.strip()):
            _do(db, "split", entity=name, mention_ids=moved, name=new)
        st.caption(
            "Or by surface form: every mention written so (right after a word), kept as a rule."
        )
        surface = st.text_input("Written as", key="split_surface")
        after = st.text_input("Right after the word (optional)", key="split_after")
        if st.button("Split by form", disabled=not surface.strip() or not new.strip()):
            _do(db, "split", entity=name, surface=surface, after=after.strip() or None, name=new)
    with rename:
        renamed = st.text_input("New name", key="rename_name")
        if st.button("Rename", disabled=not renamed.strip()):
            _do(db, "rename", entity=name, name=renamed)
    with retype:
        label = st.selectbox("Type", LABELS, key="retype_label")
        if st.button("Retype"):
            _do(db, "retype", entity=name, label=label)
    with drop:
        st.caption("Drop a name that is no entity (a heading, a common word).")
        if st.button("Drop", disabled=name is None):
            _do(db, "drop", entity=name)
    with history:
        past = edit_history(db, doc)
        if not past:
            st.caption("No edits yet.")
        else:
            st.dataframe(history_table(past), hide_index=True, width="stretch")
            undoable = {h["id"]: h["what"] for h in past if h["undoable"]}
            pick = st.selectbox(
                "Edit to undo",
                list(undoable),
                index=None,
                format_func=lambda i: option(f"{i}: {undoable[i]}"),
                key="undo_edit",
            )
            if st.button("Undo", disabled=pick is None):
                _do(db, "undo", edit_id=pick)
