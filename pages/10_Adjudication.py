"""Adjudication: settle the items people disagree on; the settled label is the item's gold."""

import streamlit as st

from app_support import connection, frame, render, shortcuts, signin
from core.annotation.adjudication import adjudicate
from core.annotation.task_registry import task_names
from core.errors import WorkbenchError
from core.views.adjudication import adjudication_detail, adjudication_queue
from core.views.text import escape_markdown, inert_table, md

frame.setup("Adjudication")
shortcuts.keys_after_choices()
user = signin.require_annotator("adjudicator")


@frame.action
def _settle(task: str, item: str, seen: int | None, names: dict[str, str]) -> None:
    """Settle button callback: store the decision on the item this page loaded (bound here, so
    a changed list cannot redirect it); a refusal is shown, never dropped."""
    label = st.session_state.get(f"adj_label_{task}_{item}")
    if label is None:
        st.session_state["adj_error"] = "Choose the settled label first. Nothing was stored."
        return
    why = st.session_state.get(f"adj_why_{task}_{item}", "")
    with connection.database() as db:
        try:
            adjudicate(db, user, task, item, label, why, seen_settled_id=seen)
        except WorkbenchError as exc:
            st.session_state["adj_error"] = str(exc)
            return
    st.session_state["adj_last"] = names[label]


with connection.database() as db:
    c = st.columns([2, 1])
    tasks = task_names(db)
    task = c[0].radio(
        "Task", tasks, index=tasks.index("side-by-side"), format_func=md, horizontal=True
    )
    include = c[1].toggle("Show settled items too", key="adj_settled")
    done = st.session_state.pop("adj_last", None)
    if done:
        st.success(f"Settled: **{escape_markdown(done)}** is now the item's gold label.")
    if error := st.session_state.pop("adj_error", None):
        st.error(md(error))
    queue = adjudication_queue(db, task, include)
    if not queue:
        st.success(f"No {md(task)} disagreements to settle.")
        st.stop()
    st.caption(
        f"{len(queue)} item(s) where team members gave different labels: each entry is one "
        "item (question, pair or dispute, and what each person said)."
    )
    by_item = {q["item"]: q for q in queue}
    item = st.selectbox(
        "Item",
        list(by_item),
        format_func=lambda i: md(by_item[i]["choice"]),  # distinct for every item
        key=f"adj_item_{task}",
    )
    detail = adjudication_detail(db, task, item)
    if detail is None:
        st.info("This item is no longer in disagreement.")
        st.stop()
    st.subheader("Question")
    render.untrusted(detail["question"])
    cols = st.columns(max(1, len(detail["texts"])))
    for col, (title, text) in zip(cols, detail["texts"]):
        with col:
            st.markdown(f"### {escape_markdown(title)}")
            render.untrusted(text)
    st.subheader("Every label of the team, side by side")
    st.table(inert_table(detail["labels"]))
    if len(detail["imported"]):
        st.markdown("**Imported raters** (data read from a file, not team members)")
        st.table(inert_table(detail["imported"]))
    if detail["settled"]:
        s = detail["settled"]
        st.info(
            f"Settled by **{escape_markdown(s['adjudicator'])}** as "
            f"**{escape_markdown(detail['names'][s['label']])}**."
        )
    seen = detail["settled"]["id"] if detail["settled"] else None
    with st.form(f"adjudicate_{task}_{item}"):
        st.radio(
            "Settled label",
            detail["options"],
            index=None,
            format_func=detail["names"].get,
            horizontal=True,
            key=f"adj_label_{task}_{item}",
        )
        st.text_input("Why (optional)", key=f"adj_why_{task}_{item}")
        st.caption(shortcuts.CHOICE_HINT + " " + shortcuts.TYPING_HINT)
        st.form_submit_button(
            "Settle",
            shortcut="S",
            help="Settle (key S)",
            on_click=_settle,
            args=(task, item, seen, detail["names"]),
        )
