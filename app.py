"""Overview: datasets, counts, runs with their cost, and what needs human attention."""

import streamlit as st

import pages as ui

ui.setup("Long-Span QA Workbench")
ui.sign_in_sidebar()

with ui.database() as db:
    data = ui.cached_view(db, "overview")

if data["empty"]:
    st.info(ui.EMPTY_HINT)
    st.stop()

counts = data["counts"]
cols = st.columns(5)
for col, table in zip(cols, ("documents", "questions", "answers", "judgments", "disputes")):
    col.metric(table.capitalize(), f"{counts.get(table, 0):,}")

st.subheader("Needs human attention")
att = data["attention"]
cols = st.columns(len(att))
for col, (label, value) in zip(cols, att.items()):
    col.metric(label, f"{value:,}")
st.caption(f"Each item needs {data['k']} annotation(s) (setting `annotations_per_item`).")

left, right = st.columns(2)
with left:
    st.subheader("Datasets")
    st.dataframe(data["datasets"], hide_index=True, width="stretch")
    st.subheader("Questions by origin")
    st.dataframe(data["by_origin"], hide_index=True, width="stretch")
with right:
    st.subheader("Judgments by rater")
    st.dataframe(data["judgments"], hide_index=True, width="stretch")

st.subheader(f"Runs (total cost ${data['total_cost_usd']:.4f})")
if len(data["runs"]):
    st.dataframe(data["runs"], hide_index=True, width="stretch")
else:
    st.caption("No runs yet.")
