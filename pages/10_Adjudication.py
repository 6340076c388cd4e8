"""Adjudication: settle the items people disagree on; the settled label is the item's gold.

Keys: a label's key (``1``-``9``, ``0``, shown on its button) settles the item with that label
at once (the *Why* box is optional); ``G`` opens the guidelines. The next item then opens.
"""

import streamlit as st

from app_support import connection, frame, render, shortcuts, signin, workspace
from core.annotation.adjudication import adjudicate
from core.annotation.task_registry import task_names
from core.errors import WorkbenchError
from core.views.adjudication import (
    adjudication_detail,
    adjudication_guideline,
    adjudication_queue,
    queue_position,
    settle_buttons,
)
from core.views.text import escape_markdown, inert_table, md, option
from core.views.vocabulary import TaskName

frame.setup("Adjudication")
workspace.compact()
shortcuts.keys_after_choices()
user = signin.require_annotator("adjudicator")


@frame.action
def _settle(task: str, item: str, label: str, seen: int | None, names: dict[str, str]) -> None:
    """A label's button callback: store ``label`` as the decision on the item this page loaded
    (bound here, so a changed list cannot redirect it); a refusal is shown, never dropped."""
    why = st.session_state.get(f"adj_why_{task}_{item}", "")
    with connection.database() as db:
        try:
            adjudicate(db, user, task, item, label, why, seen_settled_id=seen)
        except WorkbenchError as exc:
            st.session_state["adj_error"] = str(exc)
            return
    st.session_state["adj_last"] = names[label]
    st.session_state["adj_scroll"] = True


with connection.database() as db:
    position = st.empty()  # where the item shown stands in the queue, once it is known
    tasks = task_names(db)
    pick = st.container(horizontal=True, vertical_alignment="bottom", gap="small")
    task = pick.selectbox(
        "Task", tasks, index=tasks.index(TaskName.SIDE_BY_SIDE), format_func=option, width=170
    )
    done = st.session_state.pop("adj_last", None)
    if done:
        st.success(f"Settled: **{escape_markdown(done)}** is now the item's gold label.")
    if error := st.session_state.pop("adj_error", None):
        st.error(md(error))
    include = st.session_state.get("adj_settled", False)
    queue = adjudication_queue(db, task, include)
    by_item = {q["item"]: q for q in queue}
    item = pick.selectbox(
        "Item (a question, pair or dispute, and what each person said)",
        list(by_item),
        format_func=lambda i: option(by_item[i]["choice"]),  # distinct for every item
        key=f"adj_item_{task}",
        width="stretch",
    )
    pick.toggle("Show settled items too", key="adj_settled")
    with pick:
        workspace.guideline_button("", "adj_guidelines", adjudication_guideline(db, task))
    if not queue:
        position.caption("Nothing to settle")
        st.success(f"No {md(task)} disagreements to settle.")
        st.stop()
    position.caption(md(queue_position(list(by_item), item, include)))
    detail = adjudication_detail(db, task, item)
    if detail is None:
        st.info("This item is no longer in disagreement.")
        st.stop()
    if st.session_state.pop("adj_scroll", False):
        shortcuts.scroll_to_top(f"{task}/{item}")
    seen = detail["settled"]["id"] if detail["settled"] else None
    main, side = st.columns([3, 2], gap="medium")
    with side:
        st.markdown("**Every label of the team**")
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
    # the form holds the whole item, so the decision bar can stay in view (sticky) within it
    with main, st.form(f"adjudicate_{task}_{item}", border=False):
        st.caption("Question")
        render.untrusted(detail["question"])
        cols = st.columns(max(1, len(detail["texts"])))
        for n, (col, (title, text)) in enumerate(zip(cols, detail["texts"])):
            with col:
                st.markdown(f"#### {escape_markdown(title)}")
                with workspace.pane(f"adj_{n}", workspace.PANE_PX - 80):
                    render.untrusted(text)
        with workspace.decision_bar():
            for n, (label, name, key) in enumerate(
                settle_buttons(detail["options"], detail["names"])
            ):
                st.form_submit_button(
                    md(name),
                    key=workspace.item_bound(f"adj_settle_{n}", (task, item)),
                    shortcut=key,
                    help=md(f"Settle as {name}" + (f" (key {key})" if key else "")),
                    on_click=_settle,
                    args=(task, item, label, seen, detail["names"]),
                )
        st.text_input("Why (optional)", key=f"adj_why_{task}_{item}")
        st.caption("Type the reason before pressing a label. " + shortcuts.TYPING_HINT)
