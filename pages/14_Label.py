"""Label: the custom tasks an admin defined (``tasks define``, the Team page), one item at a
time from my queue, the labels as buttons with keys (``1``-``9``, ``0``); a multilabel task's
labels toggle and ``Enter`` stores the set. ``U`` undoes my last label of the task."""

import streamlit as st

from app_support import connection, frame, render, shortcuts, signin, workspace
from core.annotation.custom_labels import label_item, undo_label
from core.errors import WorkbenchError
from core.views.custom_labelling import (
    SUBMIT_KEY,
    UNDO_KEY,
    LabelItem,
    labelling_tasks,
    labelling_view,
)
from core.views.text import md

frame.setup("Label")
workspace.compact()
shortcuts.keys_after_choices()
user = signin.require_annotator()
#: The label table this page's presses store in (:func:`workspace.stored_here`).
TABLE = "judgments"


def _chosen(task: str, item: str) -> set[str]:
    """The labels toggled on for a multilabel item (this session)."""
    chosen: set[str] = st.session_state.setdefault(f"lab_set_{task}_{item}", set())
    return chosen


@frame.action
def _toggle(task: str, item: str, label: str) -> None:
    _chosen(task, item).symmetric_difference_update({label})


@frame.action
def _store(task: str, item: LabelItem, label: str | list[str]) -> None:
    with connection.database() as db:
        try:
            lid = label_item(db, user, task, item["key"], label, expected_id=item["label_id"])
        except WorkbenchError as exc:
            st.session_state["lab_error"] = workspace.refusal(TABLE, exc)
            return
    workspace.stored_here(TABLE, lid)
    st.session_state["lab_notice"] = f"Stored on item {item['key']}."
    st.session_state.pop(f"lab_set_{task}_{item['key']}", None)


@frame.action
def _undo(task: str) -> None:
    with connection.database() as db:
        try:
            undone = undo_label(db, user, task)
        except WorkbenchError as exc:
            st.session_state["lab_error"] = workspace.refusal(TABLE, exc, "Undo: ")
            return
    if undone:
        workspace.stored_here(TABLE, undone)
    st.session_state["lab_notice"] = (
        "Withdrawn your last label; the item is back in your queue."
        if undone
        else "Nothing to undo."
    )


with connection.database() as db:
    tasks = [t["task"] for t in labelling_tasks(db)]
    if not tasks:
        st.info("No custom task with items yet: an admin defines one on the Team page.")
        st.stop()
    wanted = st.query_params.get("task")
    task = st.radio(
        "Task",
        tasks,
        index=tasks.index(wanted) if wanted in tasks else 0,
        format_func=md,
        horizontal=True,
        key="lab_task",
    )
    view = labelling_view(db, user.name, task)
    st.progress(view["done"] / view["total"] if view["total"] else 0.0, text=md(view["headline"]))
    st.caption(md(view["keys"]))
    if notice := st.session_state.pop("lab_notice", None):
        st.success(md(notice))
    workspace.show_refusal(st.session_state.pop("lab_error", None))
    item = view["item"]
    if item is None:
        st.success(md(f"Your queue for {task} is empty."))
        st.button("Undo", key="lab_undo", shortcut=UNDO_KEY, on_click=_undo, args=(task,))
        st.stop()
    guideline = md(view["guideline"]) if view["guideline"] else md("(no guideline)")
    main, side = st.columns([3, 2], gap="medium")
    with main:
        st.caption(md(f"Item {item['key']} · question {item['question_id']}"))
        render.untrusted(item["question"])
        if item["answer"]:
            st.caption("Answer")
            with workspace.pane("lab_answer", workspace.PANE_PX - 80):
                render.untrusted(item["answer"])
        chosen = _chosen(task, item["key"]) if view["multilabel"] else set()
        with workspace.decision_bar():  # stays in view (sticky) below the item
            for n, (label, key) in enumerate(view["buttons"]):
                if view["multilabel"]:
                    mark = "☑" if label in chosen else "☐"
                    st.button(
                        md(f"{mark} {label}"),
                        key=workspace.item_bound(f"lab_{n}", item["key"]),
                        shortcut=key,
                        help=md(f"Toggle {label}" + (f" (key {key})" if key else "")),
                        on_click=_toggle,
                        args=(task, item["key"], label),
                    )
                else:
                    st.button(
                        md(label),
                        key=workspace.item_bound(f"lab_{n}", item["key"]),
                        shortcut=key,
                        help=md(label + (f" (key {key})" if key else "")),
                        on_click=_store,
                        args=(task, item, label),
                    )
            if view["multilabel"]:
                st.button(
                    "Submit",
                    key=workspace.item_bound("lab_submit", item["key"]),
                    shortcut=SUBMIT_KEY,
                    on_click=_store,
                    args=(task, item, sorted(chosen)),
                )
            st.button("Undo", key="lab_undo", shortcut=UNDO_KEY, on_click=_undo, args=(task,))
            workspace.guideline_button("", "lab_guidelines", guideline)
    with side:
        with st.expander("Guideline", expanded=True):
            st.markdown(guideline if view["guideline"] else "*(no guideline)*")
