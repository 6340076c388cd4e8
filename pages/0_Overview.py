"""Overview (the default page): what the database holds, what needs human attention, runs with their cost."""

from collections.abc import Sequence

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from app_support import caching, connection, frame, signin
from core.views.benchmark_files import benchmark_zip, exportable_questions
from core.views.overview import my_queues, overview
from core.views.text import escape_markdown, md

frame.setup("Long-Span QA Workbench")
user = signin.sign_in_sidebar()

with connection.database() as db:
    data = caching.cached_view(db, overview)

if data["empty"]:
    st.info(connection.EMPTY_HINT)
    st.stop()

counts = data["counts"]
docs = ", ".join(
    f"{r['documents']:,} {md(r['source'])} {md(r['kind'])}"
    for r in data["datasets"].to_dict("records")
)
origins = ", ".join(
    f"{r['questions']:,} {md(r['origin'])}" for r in data["by_origin"].to_dict("records")
)
about = (
    f"**What is in this database.** Documents: {docs}. Questions: {origins}. "
    f"{counts.get('answers', 0):,} answers and {counts.get('judgments', 0):,} judgments."
)
if data["offline_only"]:
    about += (
        "\n\nEvery answer, generated question and auto-verdict made in this workbench comes "
        "from **offline "
        "baselines** (" + ", ".join(md(m) for m in data["made_here"]) + "): simple "
        "extractive and word-overlap algorithms that need no API key. They are not language "
        "models, so expect weak answers and rough verdicts; they show how the workbench "
        "works. Configure a model key and use the **Run** page for real models."
    )
elif data["models"]:
    about += "\n\nModels used: " + ", ".join(md(m) for m in data["models"]) + "."
st.info(about)
for src in data["imported"]:
    # Imported evaluations: real answers and raters made elsewhere (see docs/imports.md).
    if src["about"]:  # the project's own description of a known source (inert Markdown)
        st.info(md(src["about"]))
    else:
        st.info(
            f"**Imported from `{escape_markdown(src['source'])}`** (import-answers / "
            "import-judgments)."
        )
    st.caption(
        f"{escape_markdown(src['source'])}: {src['answers']:,} answers and "
        f"{src['verdicts']:,} verdicts imported."
    )

cols: Sequence[DeltaGenerator] = st.columns(5)
for col, table in zip(cols, ("documents", "questions", "answers", "judgments", "disputes")):
    col.metric(md(table.capitalize()), f"{counts.get(table, 0):,}")

st.subheader("Needs human attention")
att = data["attention"]
cols = st.columns(len(att))
for col, (label, value) in zip(cols, att.items()):
    col.metric(md(label), f"{value:,}")
st.markdown(
    "**Where to start** (sign in from the sidebar first):\n"
    f"- **Review questions**: check generated and cross-lingual questions against the checklist "
    f"({att['questions pending review']:,} pending).\n"
    f"- **NarrativeQA disputes**: settle where the reference-based rater and the context-based "
    f"rater disagree ({att['disputes without a resolution']:,} open).\n"
    f"- **Side by side**: compare two answers blind ({data['side_by_side_items']:,} pairs); your "
    "verdicts feed the **Leaderboard** and the **Agreement** page live.\n"
    "- **Label**: the custom tasks an admin defined (on **Team**), one item at a time by keys; "
    "**Adjudication** (adjudicators): settle the items people disagree on (the gold label).\n"
    "- Read the results: **Leaderboard** (which system answers best), **Agreement** (how far "
    "raters agree), **Rater validation** (can an auto-rater replace people), **Browse** (any "
    "question with every answer and verdict), **EXAM** and **Cross lingual** (the EXAM and XRAG "
    "evaluations), **Entities** (the people and places of each book).\n"
    "- Run the team: **Team** (who labels what, accounts, settings); **Run** (admins: answer and "
    "judge questions with a model)."
)
st.caption(f"Each item needs {md(data['k'])} annotation(s) (setting `annotations_per_item`).")
if user is not None:
    with connection.database() as db:
        mine = my_queues(db, user.name)
    st.markdown(
        f"**Your queues, {md(user.name)}:** "
        + "; ".join(f"{md(task)} {md(p)} ({p.remaining:,} left)" for task, p in mine.items())
    )

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


def _benchmark_zip() -> bytes:
    with connection.database() as db:
        return benchmark_zip(db)


if user is not None and user.may("admin"):
    st.subheader("Export the benchmark")
    with connection.database() as db:
        ready = exportable_questions(db)
    if ready:
        st.caption(
            f"The {ready:,} accepted and edited questions with their short references, "
            "evidence, documents (or a pointer where the licence keeps the text home), answers, "
            "verdicts and gold, a dataset card and Croissant metadata: the files of "
            "`python -m core export benchmark` (docs/export.md)."
        )
        st.download_button(
            "Download the benchmark (zip)",
            _benchmark_zip,  # built when clicked, not on every page load
            file_name="benchmark.zip",
            mime="application/zip",
        )
    else:
        st.caption("No accepted or edited question yet: review questions first.")
