"""Side by side: blind pairwise verdicts (system names hidden until the verdict is stored)."""

import streamlit as st

import pages as ui
from core.annotation.pairwise import (
    PAIRWISE_VERDICTS,
    blind_item,
    identical_items,
    pairwise_items,
    skip_item,
    submit_verdict,
    undo_last,
    verdict_progress,
    verdict_queue,
)
from core.errors import WorkbenchError
from core.views.judgments import auto_verdicts_shown, question_text
from core.views.review import search_context, searchable_documents
from core.views.text import escape_markdown, md

ui.setup("Side by side")
who = ui.require_annotator()

with ui.database() as db:
    items = ui.cached_answers(db, pairwise_items)
    if not items:
        st.info(
            "No pairs to compare yet: at least two systems must have answered a question. "
            + ui.EMPTY_HINT
        )
        st.stop()
    same = ui.cached_answers(db, identical_items)
    queue = verdict_queue(db, who, items, identical=same)
    progress = verdict_progress(db, who, items)
    st.progress(progress.done / progress.total if progress.total else 0.0, text=str(progress))
    reveal = st.toggle("Reveal the auto-raters' verdicts after I submit", key="sbs_reveal")

    last = st.session_state.get("sbs_last")
    if last:
        st.success(
            f"Stored your verdict **{md(last['verdict'])}**: A was "
            f"**{escape_markdown(last['item']['system_a'])}**, B was "
            f"**{escape_markdown(last['item']['system_b'])}**."
        )
        if reveal:
            st.dataframe(auto_verdicts_shown(db, last["item"]), hide_index=True)

    c = st.columns([1, 1, 4])
    if c[0].button("Undo my last verdict", key="sbs_undo"):
        undone = undo_last(db, who)
        st.session_state.pop("sbs_last", None)
        st.toast("Withdrawn (a superseding row was added)" if undone else "Nothing to undo")
        st.rerun()

    if not queue:
        st.success("Your side-by-side queue is empty.")
        st.stop()
    item = blind_item(db, queue[0], who)
    if c[1].button("Skip", key="sbs_skip"):
        skip_item(db, item, who)
        st.session_state.pop("sbs_last", None)
        st.rerun()

    q = question_text(db, item["question_id"])
    st.subheader("Question")
    ui.untrusted(q.get("question", ""))
    with st.expander("Search the context (BM25)"):
        docs = dict(searchable_documents(db, item["question_id"]))
        if docs:
            doc = st.selectbox("Search in", list(docs), format_func=docs.get, key="sbs_doc")
            query = st.text_input("Search words", key="sbs_query")
            for hit in search_context(db, doc, query, k=5):
                st.caption(f"Passage {md(hit['idx'])} · BM25 {md(hit['score'])}")
                ui.highlighted(hit["markdown"])
    if item["identical"]:
        st.info(
            "The two answers are identical (up to spacing). If neither is better, choose "
            "**Equal**, or **None** if both are wrong."
        )
    left, right = st.columns(2)
    with left:
        st.markdown("### Answer A")
        ui.untrusted(item["answer_a"])
    with right:
        st.markdown("### Answer B")
        ui.untrusted(item["answer_b"])
    with st.form(f"verdict_{item['key']}"):
        verdict = st.radio(
            "Which answer is better?",
            PAIRWISE_VERDICTS,
            horizontal=True,
            index=None,
            format_func={
                "A": "A is better",
                "B": "B is better",
                "None": "None (both wrong)",
                "Equal": "Equal",
            }.get,
            key=f"sbs_verdict_{item['key']}",
        )
        rationale = st.text_input("Short rationale", key=f"sbs_rationale_{item['key']}")
        if st.form_submit_button("Submit verdict"):
            if verdict is None:
                st.error(
                    "Choose a verdict first (A is better, B is better, Equal or None). "
                    "Nothing was stored."
                )
            else:
                try:
                    jid = submit_verdict(db, item, who, verdict, rationale)
                    st.session_state["sbs_last"] = {"id": jid, "verdict": verdict, "item": item}
                    st.rerun()
                except WorkbenchError as exc:
                    st.error(md(exc))
