"""EXAM: how many exam questions each system's article answers (from core.exam_views)."""

import streamlit as st

import pages as ui
from core import exam_views, views

ui.setup("EXAM")
ui.sign_in_sidebar()

with ui.database() as db:
    runs = exam_views.runs_frame(db)
    st.subheader("EXAM runs")
    if runs.empty:
        st.info("No EXAM run yet: `python -m core exam ...` grades stored articles. "
                "The TREC CAR Y3 reproduction below needs no run.")
    else:
        st.dataframe(runs, hide_index=True, width="stretch")
        run_id = st.selectbox("Run", runs["run_id"].tolist())
        st.subheader("Leaderboard")
        st.dataframe(exam_views.leaderboard_frame(db, run_id), hide_index=True, width="stretch")
        queries = views.exam_query_ids(db, run_id)
        if queries:
            qid = st.selectbox("Query", queries)
            st.subheader("Which article answered which question")
            st.dataframe(exam_views.answered_frame(db, run_id, qid), hide_index=True,
                         width="stretch")
        st.subheader("Rank correlation with the references")
        try:
            st.dataframe(exam_views.correlation_frame(db, run_id), hide_index=True,
                         width="stretch")
        except Exception as exc:  # a run without references
            st.caption(f"No correlation: {exc}")

st.subheader("TREC CAR Y3 reproduction (bundled published results)")
if st.toggle("Compute the reproduction", key="exam_car"):
    with st.spinner("Recomputing ..."):
        st.dataframe(exam_views.car_reproduction_frame(), hide_index=True, width="stretch")
