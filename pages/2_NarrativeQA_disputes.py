"""NarrativeQA disputes: the ground-truth rater and the context rater disagree; a human settles it."""

import streamlit as st

import pages as ui
from core.annotation.disputes import dispute_progress, dispute_queue, resolve_dispute
from core.errors import WorkbenchError
from core.views.disputes import (
    RESOLUTION_LABELS,
    corrected_references,
    dispute_detail,
    dispute_ids,
    dispute_tally,
)
from core.views.overview import export_bytes
from core.views.review import search_context, searchable_documents
from core.views.text import escape_markdown, md

ui.setup("NarrativeQA disputes")
who = ui.require_annotator()


def show_judgment(title: str, j: dict | None) -> None:
    st.markdown(f"**{md(title)}**")
    if not j:
        st.caption("(judgment missing)")
        return
    st.markdown(
        f"{escape_markdown(j['rater'])} verdict: **{escape_markdown(j['verdict'] or j['status'])}**"
    )
    ui.evidence(j["evidence"])
    if j["rationale"]:
        ui.untrusted(j["rationale"], "Explanation")
    with st.expander("Raw reply"):
        st.text(j["raw"] or "")


with ui.database() as db:
    all_ids = dispute_ids(db)
    tally = ui.cached_view(db, dispute_tally)
    if not all_ids:
        st.info(
            "No disputes yet. They appear when the ground-truth rater and the context rater "
            "disagree on a NarrativeQA answer (run an experiment with both raters). "
            + md(ui.EMPTY_HINT.split(".")[0])
            + " if the database is empty."
        )
        st.stop()
    progress = dispute_progress(db, who, all_ids)
    st.progress(progress.done / progress.total if progress.total else 0.0, text=str(progress))
    queue = dispute_queue(db, who, all_ids)
    mode = st.radio("Show", ["Next in my queue", "Pick a dispute"], horizontal=True)
    did = (
        st.selectbox("Dispute", all_ids)
        if mode == "Pick a dispute"
        else (queue[0] if queue else None)
    )
    if did is None:
        st.success("No disputes left in your queue.")
    else:
        d = ui.cached_view(db, dispute_detail, did)
        st.subheader(f"Dispute {md(did)}")
        ui.untrusted(d["question"]["question"], "Question")
        left, right = st.columns(2)
        with left:
            st.markdown("**Reference answers**")
            for i, ref in enumerate(d["references"], 1):
                ui.untrusted(ref, f"Reference {i}")
            st.markdown("**Model answer**")
            ui.untrusted(d["answer"]["text"], f"system {d['answer']['system']}")
        with right:
            show_judgment("Ground-truth rater (against the references)", d["gt"])
            show_judgment("Context rater (against the story)", d["ctx"])
        st.markdown("**Check the text** (BM25 search over the story or its summary)")
        docs = dict(searchable_documents(db, d["question"]["id"]))
        if docs:
            sc = st.columns([1, 3])
            doc = sc[0].selectbox(
                "Search in", list(docs), format_func=docs.get, key=f"dsearch_doc_{did}"
            )
            query = sc[1].text_input("Search words", key=f"dsearch_q_{did}")
            for hit in search_context(db, doc, query, k=5):
                st.caption(f"Passage {md(hit['idx'])} · BM25 {md(hit['score'])}")
                ui.highlighted(hit["markdown"])
        with st.form(f"resolve_{did}"):
            labels = RESOLUTION_LABELS
            resolution = st.radio(
                "Resolution",
                list(labels),
                format_func=labels.get,
                horizontal=True,
                index=None,
                key=f"resolution_{did}",
            )
            corrected = st.text_input(
                "Corrected reference answer (if the reference is wrong)", key=f"corrected_ref_{did}"
            )
            note = st.text_input("Note", key=f"dnote_{did}")
            if st.form_submit_button("Save resolution"):
                if resolution is None:
                    st.error("Choose a resolution first. Nothing was stored.")
                else:
                    try:
                        rid = resolve_dispute(
                            db, did, who, resolution, corrected_answer=corrected, note=note
                        )
                        st.toast(f"Resolution {md(rid)} saved")
                        st.rerun()
                    except WorkbenchError as exc:
                        st.error(md(exc))
        if d["resolutions"]:
            st.dataframe(
                [
                    {
                        k: r[k]
                        for k in (
                            "annotator",
                            "resolution",
                            "corrected_answer",
                            "note",
                            "created_at",
                        )
                    }
                    for r in d["resolutions"]
                ],
                hide_index=True,
            )

    st.subheader("Tally")
    c = st.columns(3)
    c[0].metric("Disputes", tally["n_disputes"])
    c[1].metric("Resolutions", tally["n_resolutions"])
    if tally["reference_wrong_share"] is not None:
        ci = tally["ci"]
        c[2].metric(
            "Reference answer wrong",
            f"{tally['reference_wrong_share']:.0%}",
            help=f"{ci[2]:.0%} Wilson interval [{ci[0]:.0%}, {ci[1]:.0%}]" if ci else None,
        )
    st.dataframe(
        [{"resolution": RESOLUTION_LABELS[k], "count": v} for k, v in tally["counts"].items()],
        hide_index=True,
    )
    fixed = ui.cached_view(db, corrected_references)
    st.subheader(f"Corrected reference answers ({len(fixed)})")
    if len(fixed):
        st.dataframe(fixed, hide_index=True)
        e = st.columns(2)
        e[0].download_button(
            "Download CSV", export_bytes(fixed, "csv"), "corrected_references.csv", "text/csv"
        )
        e[1].download_button(
            "Download JSONL",
            export_bytes(fixed, "jsonl"),
            "corrected_references.jsonl",
            "application/jsonl",
        )
