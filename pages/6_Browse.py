"""Browse: one question at a time - every answer, every rater's verdicts, the human labels.

Blind for annotators (core.views.blind): other people's labels and the systems' names of items
still in the viewer's queue are held back; adjudicators and admins see everything."""

import streamlit as st

from app_support import caching, connection, frame, links, render, signin
from core.views.blind import browse_view
from core.views.browse_grid import verdict_grid
from core.views.review import question_filters, question_ids, question_labels
from core.views.text import escape_markdown, md

frame.setup("Browse")
who = signin.sign_in_sidebar()
viewer, role = (who.name, who.role) if who else (None, None)

with connection.database() as db:
    opts = caching.cached_view(db, question_filters)
    if not opts["origins"]:
        st.info(connection.EMPTY_HINT)
        st.stop()
    c = st.columns([1, 1, 2])
    origin = c[0].selectbox("Origin", ["(all)", *opts["origins"]])
    docs = dict(opts["documents"])
    doc = c[1].selectbox("Document", ["(all)", *docs], format_func=lambda d: docs.get(d, d))
    search = c[2].text_input("Search question text or id")
    ids = question_ids(
        db,
        origin=None if origin == "(all)" else origin,
        document_id=None if doc == "(all)" else doc,
        search=search,
    )
    wanted = links.deep_link_id()
    if wanted and wanted not in ids:
        ids = [wanted, *ids]
    if not ids:
        st.info("No question matches.")
        st.stop()
    labels = caching.cached_view(db, question_labels, tuple(ids))
    qid = st.selectbox(
        f"Question ({len(ids)} match)",
        ids,
        index=ids.index(wanted) if wanted in ids else 0,
        format_func=lambda i: render.short(labels.get(i, i), 100),
    )
    d = caching.cached_view(db, browse_view, qid, viewer, role)
    if d is None:
        st.warning("No such question.")
        st.stop()

q = d["question"]
render.untrusted(q["question"], f"Question {q['id']} · {q['origin']} · status {q['status']}")
if d["hidden_note"]:
    st.info(md(d["hidden_note"]))
links.share_link("Browse", q["id"])
if q.get("answers"):
    st.markdown("**Reference answers**")
    for ref in q["answers"]:
        render.untrusted(ref)

st.subheader(f"Answers ({len(d['answers'])})")
if not d["answers"]:
    st.caption(
        "No system has answered this question yet (answers come from a run: see the Run "
        "page). Pick another question above, e.g. Origin = narrativeqa."
    )
for a in d["answers"]:
    with st.expander(
        f"{escape_markdown(a['system'])} ({md(a['status'])}, {md(a['context_tokens'])} "
        "context tokens)",
        expanded=len(d["answers"]) <= 4,
    ):
        render.untrusted(a["text"])
        for j in [j for j in d["absolute"] if j["answer_id"] == a["id"]]:
            flag = " (superseded)" if j["superseded"] else ""
            st.markdown(
                f"{escape_markdown(j['rater'])} "
                f"{escape_markdown(j['criterion'] or '')}: "
                f"**{escape_markdown(j['verdict'] or j['status'])}**{flag}"
            )
            render.evidence(j["evidence"])
            if j["rationale"]:
                render.untrusted(j["rationale"])
            with st.expander("Raw reply"):
                st.text(j["raw"])

st.subheader(f"Side-by-side verdicts ({len(d['pairwise'])})")
if d["pairwise"]:
    st.dataframe(
        [
            {
                k: j[k]
                for k in (
                    "rater",
                    "system_a",
                    "system_b",
                    "verdict",
                    "status",
                    "order_shown",
                    "rationale",
                    "superseded",
                    "created_at",
                )
            }
            for j in d["pairwise"]
        ],
        hide_index=True,
        width="stretch",
    )
    pick = st.selectbox("Raw reply of judgment", [j["id"] for j in d["pairwise"]])
    st.text(next(j["raw"] for j in d["pairwise"] if j["id"] == pick))

st.subheader("Human labels")
if d["reviews"]:
    st.markdown(f"**Reviews ({len(d['reviews'])})**")
    st.dataframe(
        [
            {
                k: r[k]
                for k in (
                    "annotator",
                    "decision",
                    "edited_question",
                    "edited_answer",
                    "note",
                    "supersedes",
                    "created_at",
                )
            }
            for r in d["reviews"]
        ],
        hide_index=True,
        width="stretch",
    )
if d["human_verdicts"]:
    st.markdown(f"**Verdicts of people ({len(d['human_verdicts'])}, current only)**")
    st.dataframe(d["human_verdicts"], hide_index=True, width="stretch")
if d["resolutions"]:
    st.markdown(f"**Dispute resolutions ({len(d['resolutions'])})**")
    st.dataframe(d["resolutions"], hide_index=True, width="stretch")
if not d["reviews"] and not d["human_verdicts"] and not d["resolutions"]:
    st.caption("No human labels on this question yet.")


# ------------------------------------------------------------------------------------------
# Every pairwise verdict of this question at a glance (imported evaluations have many raters)
# ------------------------------------------------------------------------------------------


def verdict_grid_section() -> None:
    """Pairs as shown (rows) x raters (columns), each cell the winner that rater chose."""
    with connection.database() as db:
        grid = caching.cached_judgments(db, verdict_grid, qid, d["hidden_pairs"])
    if len(grid):
        st.subheader("Who won, by pair and rater")
        st.caption("Every effective pairwise verdict on this question; 'tie' = Equal.")
        st.dataframe(grid, hide_index=True, width="stretch")


verdict_grid_section()
