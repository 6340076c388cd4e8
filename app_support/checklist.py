"""The Review page's checklist, inside its form (issue 34): every radio item keeps its radio
(for the mouse) and gets a button per choice with its own key, shown on the button (the first
item's Yes is ``1``, its No ``2``, ...: :func:`core.views.review.checklist_keys`); a key press
sets that choice. The other items (a checkbox, a text box) are as they were."""

from __future__ import annotations

from typing import Any

import streamlit as st

from app_support import frame
from core.views.review import checklist_keys
from core.views.text import escape_markdown, md


@frame.action
def _choose(state_key: str, choice: str) -> None:
    """Form-button callback: the radio ``state_key`` takes ``choice`` (the form's other values
    are kept: a form button submits them first)."""
    st.session_state[state_key] = choice


def _index(options: list[str], before: Any, state_key: str) -> int | None:
    """The radio's first choice: none once a key has set it (the session holds the value), else
    the person's earlier answer, else none (a required item is chosen, never defaulted)."""
    if state_key in st.session_state or before is None:
        return None
    if isinstance(before, bool):
        return 0 if before else 1
    return options.index(before) if before in options else None


def checklist(
    fields: list[dict[str, Any]], qid: str, old: dict[str, Any], titles: list[str]
) -> None:
    """Render the checklist ``fields`` of question ``qid`` (``old``: my earlier answers;
    ``titles``: the articles' titles, added to the per-article items)."""
    keys = {(name, choice): key for name, choice, key in checklist_keys(fields)}
    for f in fields:
        name, label, state_key = f["name"], md(f["label"]), f"chk_{f['name']}_{qid}"
        if name in ("support_a", "support_b") and len(titles) > "ab".index(name[-1]):
            label += f" ({escape_markdown(titles['ab'.index(name[-1])])})"
        if f["type"] == "bool" and not f["required"]:
            st.checkbox(label, value=bool(old.get(name)), key=state_key)
            continue
        if f["type"] not in ("bool", "choice"):
            st.text_input(label, value=old.get(name) or "", key=state_key)
            continue
        options = list(f["choices"]) if f["type"] == "choice" else ["Yes", "No"]
        with st.container(horizontal=True, vertical_alignment="bottom", gap="small"):
            st.radio(
                label,
                options,
                format_func=md,
                horizontal=True,
                key=state_key,
                index=_index(options, old.get(name), state_key),
            )
            for choice in options:
                key = keys.get((name, choice))
                st.form_submit_button(
                    md(choice),
                    key=f"{state_key}_{choice}_key",
                    shortcut=key,
                    help=md(f"{f['label']}: {choice}" + (f" (key {key})" if key else "")),
                    on_click=_choose,
                    args=(state_key, choice),
                )
