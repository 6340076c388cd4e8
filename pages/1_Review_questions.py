"""Review questions: the XRAG checklist, accept / reject / edit, agreement between reviewers."""

import streamlit as st

import pages as ui
from core import annotation as ann
from core import views
from core.errors import WorkbenchError

ui.setup("Review questions")
who = ui.require_annotator()

with ui.database() as db:
    opts = ui.cached_view(db, "question_filters")
    if not opts["origins"]:
        st.info(ui.EMPTY_HINT)
        st.stop()
    c = st.columns(5)
    docs = dict(opts["documents"])
    ents = dict(opts["entities"])
    origins = opts["origins"]
    origin = c[0].selectbox("Origin", ["(all)", *origins],
                            index=1 + origins.index("generated") if "generated" in origins else 0)
    doc = c[1].selectbox("Document", ["(all)", *docs], format_func=lambda d: docs.get(d, d))
    ent = c[2].selectbox("Entity", ["(all)", *ents], format_func=lambda e: ents.get(e, e))
    qtype = c[3].selectbox("Question type", ["(all)", *opts["qtypes"]])
    status = c[4].selectbox("Status", ["(all)", *opts["statuses"]])
    pick = lambda v: None if v == "(all)" else v  # noqa: E731
    ids = views.question_ids(db, document_id=pick(doc), entity_id=pick(ent), qtype=pick(qtype),
                             status=pick(status), origin=pick(origin))
    queue = ann.review_queue(db, who, ids)
    progress = ann.review_progress(db, who, ids)
    st.progress(progress.done / progress.total if progress.total else 0.0, text=str(progress))
    mode = st.radio("Show", ["Next in my queue", "Pick a question"], horizontal=True)
    if mode == "Pick a question":
        qid = st.selectbox("Question", ids) if ids else None
    else:
        qid = queue[0] if queue else None
    if qid is None:
        st.success("Nothing left to review with these filters.")
        st.stop()
    detail = ui.cached_view(db, "question_detail", qid)
    q = detail["question"]
    st.subheader("Question")
    ui.untrusted(q["question"])
    st.caption(f"id `{q['id']}` · origin {q['origin']} · type {q['qtype'] or '-'} · "
               f"status {q['status']}")
    st.markdown("**Generated answer**")
    ui.untrusted(detail["answer"])
    if detail["entity"]:
        e = detail["entity"]
        st.markdown(f"**Entity:** {views.escape_markdown(e['name'])} "
                    f"({e['n_mentions']} mentions, rank {e['rank']})")
    with st.expander(f"Passages ({len(detail['passages'])}, entity mentions in bold)",
                     expanded=True):
        for p in detail["passages"]:
            st.caption(f"Passage {p['idx']}")
            ui.highlighted(p["markdown"])
    with st.expander("Provenance"):
        st.json(detail["provenance"])

    st.subheader("Checklist")
    mine = next((r for r in detail["reviews"] if r["annotator"] == who), None)
    old = (mine or {}).get("checklist") or {}
    with st.form(f"review_{qid}"):
        checks = {k: st.checkbox(label, value=bool(old.get(k)), key=f"chk_{k}_{qid}")
                  for k, label in ann.CHECKLIST.items()}
        corrected = st.text_input("Corrected answer (if the answer is not correct)",
                                  key=f"corrected_{qid}")
        support = {}
        for d in detail["documents"]:
            support[d["id"]] = st.radio(
                f"Support from {d.get('title') or d['id']}", ann.SUPPORT_LEVELS, horizontal=True,
                key=f"support_{d['id']}_{qid}")
        decision = st.radio("Decision", ann.REVIEW_DECISIONS, horizontal=True, key=f"decision_{qid}")
        edited_q = st.text_area("Edited question (for an edit; the original is kept)",
                                key=f"edited_{qid}")
        note = st.text_input("Note", key=f"note_{qid}")
        if st.form_submit_button("Submit review"):
            try:
                rid = ann.submit_review(
                    db, qid, who, decision, checklist={**checks, "support": support},
                    edited_question=edited_q, edited_answer=corrected, note=note)
                st.toast(f"Review {rid} saved")
                st.session_state["last_review"] = rid
                st.rerun()
            except WorkbenchError as exc:
                st.error(str(exc))
    if detail["reviews"]:
        st.subheader("Reviews of this question")
        st.dataframe([{k: r[k] for k in ("annotator", "decision", "edited_question",
                                         "edited_answer", "note", "created_at")}
                      for r in detail["reviews"]], hide_index=True)
        if detail["review_agreement"]:
            st.markdown("**Agreement between reviewers** (share of agreeing reviewer pairs)")
            st.json(detail["review_agreement"])
