"""NarrativeQA disputes: the ground-truth rater and the context rater disagree; a human settles it."""

import streamlit as st

from app_support import caching, connection, frame, links, render, shortcuts, signin, workspace
from core.annotation.disputes import (
    dispute_progress,
    dispute_queue,
    own_resolution_id,
    resolve_dispute,
    skip_dispute,
    withdraw_last_resolution,
)
from core.errors import WorkbenchError
from core.views.disputes import (
    RESOLUTION_LABELS,
    JudgmentShown,
    corrected_references,
    dispute_choices,
    dispute_detail,
    dispute_ids,
    dispute_tally,
)
from core.views.overview import export_bytes
from core.views.queue_head import queue_headline
from core.views.review import search_context, searchable_documents
from core.views.text import InertMarkdown, escape_markdown, md

#: The label table this page's presses store in (:func:`workspace.stored_here`).
TABLE = "dispute_resolutions"
#: keyboard shortcut of each resolution (in the order of RESOLUTION_LABELS)
KEYS = dict(zip(RESOLUTION_LABELS, "1234"))
#: button labels short enough to fit (the full label is in the tooltip and the confirmation)
SHORT = dict(zip(RESOLUTION_LABELS, ("Ref. wrong", "Model wrong", "Both OK", "Ambiguous")))
KEYS_HINT = (
    " · ".join(f"**{KEYS[r]}** {label}" for r, label in RESOLUTION_LABELS.items())
    + " · **S** skip · **U** undo · **G** guidelines"
)

frame.setup("NarrativeQA disputes")
workspace.compact()
shortcuts.keys_after_choices()
user = signin.require_annotator()  # the signed-in Annotator: every write takes it
who = user.name


def show_judgment(title: str, j: JudgmentShown | None) -> None:
    st.markdown(f"**{md(title)}**")
    if not j:
        st.caption("(judgment missing)")
        return
    st.markdown(
        f"{escape_markdown(j['rater'])} verdict: **{escape_markdown(j['verdict'] or j['status'])}**"
    )
    render.evidence(j["evidence"])
    if j["rationale"]:
        render.untrusted(j["rationale"], "Explanation")
    with st.expander("The rater's reply, as received"):
        st.text(j["raw"] or "")


@frame.action
def _resolve(did: int, resolution: str, question: str, seen: int | None) -> None:
    """Button callback: store the resolution (the next dispute then renders at the top);
    ``seen``: my own row on the dispute when the page showed it (another tab's change refuses)."""
    corrected = st.session_state.get(f"corrected_ref_{did}", "")
    note = st.session_state.get(f"dnote_{did}", "")
    with connection.database() as db:
        try:
            rid = resolve_dispute(
                db,
                did,
                user,
                resolution,
                corrected_answer=corrected,
                note=note,
                expected_last_id=seen,
            )
        except WorkbenchError as exc:  # e.g. another tab changed my label: the page moves on
            label = RESOLUTION_LABELS.get(resolution, resolution)
            said = workspace.refusal(TABLE, exc, f"{label} on '{render.short(question)}': ")
            st.session_state["dispute_error"] = said
            return
    workspace.stored_here(TABLE, rid)
    st.session_state["dispute_last"] = InertMarkdown(
        f"Stored: **{md(RESOLUTION_LABELS[resolution])}** on "
        f"'{escape_markdown(render.short(question))}'."
    )
    st.session_state["dispute_scroll"] = True
    st.query_params.pop("q", None)


@frame.action
def _skip(did: int, question: str, seen: int | None) -> None:
    """Store a skip: the dispute goes to the end of my queue (not counted as done)."""
    with connection.database() as db:
        try:
            rid = skip_dispute(db, did, user, expected_last_id=seen)
        except WorkbenchError as exc:
            said = workspace.refusal(TABLE, exc, f"Skip of '{render.short(question)}': ")
            st.session_state["dispute_error"] = said
            return
    workspace.stored_here(TABLE, rid)
    st.session_state["dispute_last"] = InertMarkdown(
        f"Skipped '{escape_markdown(render.short(question))}': it goes to the end of your queue "
        "(not counted as done; **Undo** takes the skip back)."
    )
    st.session_state["dispute_scroll"] = True
    st.query_params.pop("q", None)


@frame.action
def _undo() -> None:
    """Withdraw my latest resolution or skip (a superseding row; nothing is deleted)."""
    with connection.database() as db:
        try:
            undone = withdraw_last_resolution(db, user)
        except WorkbenchError as exc:  # e.g. the database stayed busy
            st.session_state["dispute_error"] = workspace.refusal(TABLE, exc, "Undo: ")
            return
        text = dispute_choices(db).get(undone.item, "") if undone else ""
    if undone is None:
        st.session_state["dispute_last"] = "Nothing to undo: you have no resolution or skip left."
    else:
        workspace.stored_here(TABLE, undone.row_id)
        what = (
            "your skip"
            if undone.was_skip
            else f"your resolution **{md(RESOLUTION_LABELS.get(undone.label, undone.label))}**"
        )
        st.session_state["dispute_last"] = InertMarkdown(
            f"Withdrawn {what} of '{escape_markdown(render.short(text))}': the dispute is back in "
            "your queue."
        )
    st.session_state["dispute_scroll"] = True


with connection.database() as db:
    all_ids = dispute_ids(db)
    tally = caching.cached_view(db, dispute_tally)
    if not all_ids:
        st.info(
            "No disputes yet. They appear when the ground-truth rater and the context rater "
            "disagree on a NarrativeQA answer (run an experiment with both raters). "
            + md(connection.EMPTY_HINT.split(".")[0])
            + " if the database is empty."
        )
        st.stop()
    queue = dispute_queue(db, who, all_ids)  # the disputes I skipped come last
    progress = dispute_progress(db, who, all_ids, queue)  # done of done + my queue
    head = st.empty()  # the progress line, once the dispute shown is known
    st.caption("Keys: " + KEYS_HINT)
    if last := st.session_state.pop("dispute_last", None):
        st.success(md(last))
    workspace.show_refusal(st.session_state.pop("dispute_error", None))
    choices = caching.cached_view(db, dispute_choices)
    mode = st.radio("Show", ["Next in my queue", "Pick a dispute"], horizontal=True)
    wanted = links.deep_link_id()
    linked = [d for d in all_ids if wanted and choices.get(d, "").endswith(f"({wanted})")]
    if mode == "Pick a dispute":
        did: int | None = st.selectbox(
            "Dispute", all_ids, format_func=lambda d: render.short(choices.get(d, str(d)), 100)
        )
    elif linked:
        did = next((d for d in queue if d in linked), linked[0])
    else:
        did = queue[0] if queue else None
    head.progress(
        progress.done / progress.total if progress.total else 0.0,
        text=str(progress)
        if did is None
        else queue_headline(progress, queue, did, "a resolution stores and opens the next dispute"),
    )
    if did is None:
        st.success("No disputes left in your queue.")
        st.button("Undo", key="dispute_undo", shortcut="U", on_click=_undo)
    else:
        d = caching.cached_view(db, dispute_detail, did)
        if d is None:  # deleted (or the data replaced) since the queue was read
            st.warning("This dispute is no longer in the database: reload the page.")
            st.stop()
        question = d["question"]["question"]
        seen = own_resolution_id(db, did, who)  # what a submit from this page expects
        if st.session_state.pop("dispute_scroll", False):
            shortcuts.scroll_to_top(str(did))
        documents = searchable_documents(db, d["question"]["id"])
        docs = dict(documents)
        main, side = workspace.item_columns(question, bool(docs))
        with main:
            left, right = st.columns(2)
            with left, workspace.pane(f"dispute_answers_{did}"):
                st.markdown("**Reference answers**")
                for i, ref in enumerate(d["references"], 1):
                    render.untrusted(ref, f"Reference {i}")
                st.markdown("**Model answer**")
                render.untrusted(d["answer"]["text"], "given by " + ", ".join(d["systems"]))
            with right, workspace.pane(f"dispute_raters_{did}"):
                show_judgment("Ground-truth rater (against the references)", d["gt"])
                show_judgment("Context rater (against the story)", d["ctx"])
            with workspace.decision_bar():
                for resolution, label in RESOLUTION_LABELS.items():
                    st.button(
                        md(SHORT[resolution]),
                        key=workspace.item_bound(f"dispute_{resolution}", did),
                        help=md(f"{label} (key {KEYS[resolution]})"),
                        shortcut=KEYS[resolution],
                        on_click=_resolve,
                        args=(did, resolution, question, seen),
                    )
                st.button(
                    "Skip",
                    key=workspace.item_bound("dispute_skip", did),
                    shortcut="S",
                    on_click=_skip,
                    args=(did, question, seen),
                )
                st.button("Undo", key="dispute_undo", shortcut="U", on_click=_undo)
                workspace.guideline_button("disputes", "dispute_guidelines")
            boxes = st.columns(2)
            boxes[0].text_input(
                "Corrected reference answer (if the reference is wrong)",
                key=f"corrected_ref_{did}",
            )
            boxes[1].text_input("Note (optional)", key=f"dnote_{did}")
            st.caption(shortcuts.TYPING_HINT)
            links.share_link("NarrativeQA_disputes", d["question"]["id"])
            if d["resolutions"]:
                st.markdown("**Resolutions so far**")
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
        if side is not None:
            with side, workspace.pane(f"dispute_evidence_{did}", workspace.EVIDENCE_PX, False):
                render.evidence_beside(
                    db,
                    documents,
                    question,
                    [*d["references"], d["answer"]["text"]],
                    f"dispute_{did}",
                )
                with st.expander("Search the story or its summary (BM25)"):
                    doc = st.selectbox(
                        "Search in",
                        list(docs),
                        format_func=docs.__getitem__,
                        key=f"dsearch_doc_{did}",
                    )
                    query = st.text_input("Search words", key=f"dsearch_q_{did}")
                    for hit in search_context(db, doc, query, k=5):
                        st.caption(f"Passage {md(hit['idx'])} · BM25 {md(hit['score'])}")
                        render.highlighted(hit["markdown"])

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
    fixed = caching.cached_view(db, corrected_references)
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
