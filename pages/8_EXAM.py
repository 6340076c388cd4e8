"""EXAM: how many exam questions each system's article answers (from core.views.exam)."""

import streamlit as st

from app_support import connection, frame, signin
from core.views.exam import answered_frame, car_reproduction_frame, correlation_frame, runs_frame
from core.views.exam_book import book_correlation, exam_leaderboard, exam_query_ids
from core.views.score_figures import exam_scores_figure
from core.views.text import md

frame.setup("EXAM")
signin.sign_in_sidebar()
st.caption(
    "How many exam questions each system's article answers (EXAM), a grade that needs no "
    "human label: pick a run below, read its leaderboard, then check which article answered "
    "which question."
)

with connection.database() as db:
    runs = runs_frame(db)
    st.subheader("EXAM runs")
    if runs.empty:
        st.info(
            "No EXAM run yet: `python -m core exam ...` grades stored articles. "
            "The TREC CAR Y3 reproduction below needs no run."
        )
    else:
        st.dataframe(runs, hide_index=True, width="stretch")
        run_id = st.selectbox("Run", runs["run_id"].tolist())
        st.subheader("Leaderboard")
        board, caption = exam_leaderboard(db, run_id)
        if not board.empty:
            st.plotly_chart(exam_scores_figure(board), width="stretch")
        st.dataframe(board, hide_index=True, width="stretch")
        st.caption(md(caption))
        queries = exam_query_ids(db, run_id)
        if queries:
            qid = st.selectbox("Query", queries)
            st.subheader("Which article answered which question")
            st.dataframe(answered_frame(db, run_id, qid), hide_index=True, width="stretch")
            st.caption(
                "A cell says whether the system's article answers the exam question (yes / no); "
                "'rated N of 5' is the grader's 0-5 self-rating of the article, counted as "
                "answered from the run's threshold up; 'no article': the system wrote none."
            )
        st.subheader("Rank correlation")
        st.markdown("**With the references of this run**")
        try:
            corr = correlation_frame(db, run_id)
            if len(corr):
                st.dataframe(corr, hide_index=True, width="stretch")
            else:
                st.caption("This run has no reference leaderboard (no gold articles).")
        except Exception as exc:  # a run without references
            st.caption(f"No correlation: {md(exc)}")
    book = book_correlation(db, st.session_state.get("exam_book"))
    if len(book["correlations"]):
        st.markdown(
            "**EXAM vs side by side on one book** (`python -m core exam book-demo`; "
            "the demo builds one)"
        )
        if len(book["books"]) > 1:
            st.selectbox(
                "Book", list(book["books"]), format_func=book["books"].__getitem__, key="exam_book"
            )
        st.dataframe(book["correlations"], hide_index=True, width="stretch")
        st.dataframe(book["systems"], hide_index=True, width="stretch")
        st.caption(md(book["caption"]))

st.subheader("TREC CAR Y3 reproduction (bundled published results)")
if st.toggle("Compute the reproduction", key="exam_car"):
    with st.spinner("Recomputing ..."):
        st.dataframe(car_reproduction_frame(), hide_index=True, width="stretch")
