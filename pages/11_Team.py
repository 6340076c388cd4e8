"""Team: per annotator progress, speed, overlap and agreement; the annotation settings."""

from collections.abc import Sequence

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from app_support import caching, connection, frame, render, signin, warmup
from core.annotation.custom_tasks import add_uploaded_items, define_task
from core.annotation.gold import mark_gold_source
from core.annotation.identity import change_settings, leave_out_labels
from core.annotation.task_registry import task_names
from core.errors import WorkbenchError
from core.views.custom_labelling import SCALES
from core.views.gold_sources import gold_source_candidates, gold_source_table
from core.views.team import TeamView, team_view
from core.views.text import inert_table, md, option

frame.setup("Team")
user = signin.sign_in_sidebar()
st.caption(
    "Who labels what and how far each task is: check each annotator's progress below, and "
    "choose which people's labels count as gold."
)


def _setting_input(data: TeamView, key: str, value: int | str) -> int | str | None:
    """The input of one setting: a number, one of its choices, or text."""
    why = md(data["descriptions"][key])
    if data["kinds"][key] == "int":
        return st.number_input(md(key), value=int(value), min_value=0, step=1, help=why)
    if data["kinds"][key] == "choice":
        options = data["choices"][key]
        return st.selectbox(md(key), options, index=options.index(str(value)), help=why)
    return st.text_input(md(key), value=str(value), help=why)


with connection.database() as db:
    tasks = task_names(db)
    task = st.radio(
        "Task", tasks, index=tasks.index(warmup.GOLD_TASK), format_func=md, horizontal=True
    )
    data = caching.cached_view(db, team_view, task)
    ov = data["overlap"]
    c: Sequence[DeltaGenerator] = st.columns(3)
    c[0].metric("Annotations per item (k)", ov["k"])
    c[1].metric("Items started", ov["started"])
    c[2].metric("Items with k labels", ov["complete"])
    st.subheader("Annotators")  # the team: accounts (anyone signed in, in open mode)
    st.caption(
        "done: labels given; skipped: items passed over (not counted as done); remaining: "
        "their queue; median_s: median seconds between consecutive labels (breaks over 10 "
        "minutes left out); overlap: share of their items that reached k labels; "
        "agree_others: share of their labels matching another person's on the same item; "
        "kappa_gold: Cohen's kappa against gold (gold_note: why there is none); attention: "
        "correct/checks on attention checks (items with a settled label mixed into their "
        "queue, setting attention_every)."
    )
    if len(data["table"]):
        st.dataframe(data["table"], hide_index=True, width="stretch")
    else:
        st.caption("Nobody has labelled yet.")
    if len(data["imported"]):
        st.subheader("Imported raters")
        st.caption(
            "Labels read from files (e.g. crowd ratings), whatever their names: data, not team "
            "members. They do not count towards k and are not in the queues or the adjudication "
            "list; anonymous slots (NAME#k) are positions in a crowd, not people."
        )
        st.dataframe(data["imported"], hide_index=True, width="stretch")
    render.gold_block(db, task)

    st.subheader("Gold sources")
    st.caption(
        "A gold source's labels are the gold of the items it labelled, unless an adjudicator "
        "settled the item (the adjudication wins). A source that judged both orders of a pair "
        "with conflicting labels gives that item no gold; sources that disagree give none."
    )
    sources = caching.cached_view(db, gold_source_table)
    if len(sources):
        st.table(inert_table(sources))
    else:
        st.caption("No gold sources.")
    if user is not None and user.may("admin"):
        c = st.columns(2)
        candidates = gold_source_candidates(db)
        pick = c[0].selectbox("Human rater", candidates, index=None, format_func=option)
        if c[0].button("Make gold source", disabled=pick is None) and pick is not None:
            try:
                mark_gold_source(db, user, pick, add=True)
                st.rerun()
            except WorkbenchError as exc:
                st.error(md(exc))
        current = list(sources["rater"])
        drop = c[1].selectbox("Gold source", current, index=None, format_func=option)
        if c[1].button("Stop being gold source", disabled=drop is None) and drop is not None:
            try:
                mark_gold_source(db, user, drop, add=False)
                st.rerun()
            except WorkbenchError as exc:
                st.error(md(exc))

    if data["revoked"]:
        st.subheader("Revoked accounts")
        st.caption(
            "A revoked account's labels count towards overlap, gold and agreement until an admin "
            "leaves them out (they stay stored; command line: annotators exclude NAME)."
        )
        st.dataframe(data["revoked"], hide_index=True)
        if user is not None and user.may("admin"):
            names = [r["name"] for r in data["revoked"]]
            left_out = {r["name"] for r in data["revoked"] if r["left_out"]}
            c = st.columns(2)
            who = c[0].selectbox("Revoked account", names, index=None, format_func=option)
            label = "Count their labels again" if who in left_out else "Leave their labels out"
            if c[0].button(md(label), disabled=who is None, key="leave_out") and who is not None:
                try:
                    leave_out_labels(db, user, who, exclude=who not in left_out)
                    st.rerun()
                except WorkbenchError as exc:
                    st.error(md(exc))

    st.subheader("Settings")
    if user is None or not user.may("admin"):
        st.caption("Only an admin (or anyone in open mode, signed in) changes the settings.")
        st.dataframe(
            [{"setting": k, "value": str(v)} for k, v in data["settings"].items()], hide_index=True
        )
    else:
        with st.form("team_settings"):
            values = {
                key: _setting_input(data, key, value) for key, value in data["settings"].items()
            }
            if st.form_submit_button("Save settings"):
                try:
                    changed = {k: v for k, v in values.items() if v != data["settings"][k]}
                    change_settings(db, user, changed)
                    st.rerun()
                except WorkbenchError as exc:
                    st.error(md(exc))

    st.subheader("Custom label tasks")
    st.caption(
        "A task people label on the Label page: its name, scale, labels (comma-separated; "
        "ordinal: lowest first) and guideline, then its items (a CSV or JSONL file with columns "
        "item, question_id or text, optional system and answer). Command line: tasks define."
    )
    if user is None or not user.may("admin"):
        st.caption("Only an admin (or anyone in open mode, signed in) defines a task.")
    else:
        with st.form("custom_task"):
            c = st.columns(3)
            name = c[0].text_input("Task name")
            scale = c[1].selectbox("Scale", SCALES)
            labels = c[2].text_input("Labels", placeholder="good,bad,unsure")
            guideline = st.text_area("Guideline")
            upload = st.file_uploader("Items", type=["csv", "tsv", "jsonl"])
            if st.form_submit_button("Define task"):
                try:
                    define_task(db, user, name.strip(), scale, labels, guideline)
                    added = (
                        add_uploaded_items(db, user, name.strip(), upload.name, upload.getvalue())
                        if upload is not None
                        else 0
                    )
                    st.success(md(f"Task {name.strip()} defined; {added} items added."))
                except WorkbenchError as exc:
                    st.error(md(exc))
