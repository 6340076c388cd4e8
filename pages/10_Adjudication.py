"""Adjudication: settle the items people disagree on; the settled label is the item's gold."""

import streamlit as st

from app_support import connection, frame, render, shortcuts, signin, workspace
from core.annotation.adjudication import adjudicate
from core.annotation.task_registry import task_names
from core.errors import WorkbenchError
from core.views.adjudication import adjudication_detail, adjudication_queue
from core.views.text import escape_markdown, inert_table, md, option
from core.views.vocabulary import TaskName

frame.setup("Adjudication")
workspace.compact()
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
        "Task", tasks, index=tasks.index(TaskName.SIDE_BY_SIDE), format_func=md, horizontal=True
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
    by_item = {q["item"]: q for q in queue}
    position = st.empty()  # where the item chosen stands among the disagreements
    item = st.selectbox(
        "Item",
        list(by_item),
        format_func=lambda i: option(by_item[i]["choice"]),  # distinct for every item
        key=f"adj_item_{task}",
    )
    position.caption(
        md(
            f"Item {list(by_item).index(item) + 1} of {len(queue)} where team members gave "
            "different labels (each entry: a question, pair or dispute, and what each person "
            "said); a settled label becomes the item's gold."
        )
    )
    detail = adjudication_detail(db, task, item)
    if detail is None:
        st.info("This item is no longer in disagreement.")
        st.stop()
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
                with workspace.pane(f"adj_{n}", workspace.PANE_PX - 60):
                    render.untrusted(text)
        with workspace.decision_bar():
            st.radio(
                "Settled label",
                detail["options"],
                index=None,
                format_func=detail["names"].get,
                horizontal=True,
                key=f"adj_label_{task}_{item}",
            )
            st.form_submit_button(
                "Settle",
                shortcut="S",
                help="Settle (key S)",
                on_click=_settle,
                args=(task, item, seen, detail["names"]),
            )
        st.text_input("Why (optional)", key=f"adj_why_{task}_{item}")
        st.caption(shortcuts.CHOICE_HINT + " " + shortcuts.TYPING_HINT)
