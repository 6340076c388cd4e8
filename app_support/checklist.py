"""The Review page's checklist, inside its form (issue 34): one control per choice. Every Yes / No
or multiple-choice item is its question followed by a button per choice, each with its own key
shown on it (the first item's Yes is ``1``, its No ``2``, ...:
:func:`core.views.review.checklist_keys`); a click or a key press chooses it, and the chosen
button is drawn filled (primary). The other items (a checkbox, a text box) are as they were.

A choice is held in the session under ``chk_<name>_<qid>`` (no widget owns that key), starting
from the person's earlier answer or from nothing (a required item is chosen, never defaulted);
:func:`forget` drops it once the question is decided or skipped.

A choice reruns the page, so the form also holds the id of my own label on the question as the
page first showed it (:func:`held_label_id`): a review stored meanwhile in another tab is still
refused as stale, not taken in silently by the rerun."""

from __future__ import annotations

from typing import Any

import streamlit as st

from app_support import frame
from core.views.review import checklist_keys
from core.views.text import escape_markdown, md


def state_key(name: str, qid: str) -> str:
    """Where the session holds item ``name``'s answer on question ``qid``."""
    return f"chk_{name}_{qid}"


def button_key(name: str, qid: str, choice: str) -> str:
    """The key of ``choice``'s button of item ``name`` on question ``qid``."""
    return f"{state_key(name, qid)}_{choice}_key"


def _choices(field: dict[str, Any]) -> list[str] | None:
    """The item's choices, None for an item that is not chosen by buttons."""
    if field["type"] == "choice":
        return list(field["choices"])
    return ["Yes", "No"] if field["type"] == "bool" and field["required"] else None


def _earlier(options: list[str], before: Any) -> str | None:
    """The person's earlier answer as one of ``options`` (a stored bool is Yes / No)."""
    if isinstance(before, bool):
        return "Yes" if before else "No"
    return before if before in options else None


@frame.action
def _choose(key: str, choice: str) -> None:
    """Form-button callback: the item takes ``choice`` (the form's other values are kept: a
    form button submits them first)."""
    st.session_state[key] = choice


def held_label_id(qid: str, current: int | None) -> int | None:
    """My own label's id on question ``qid`` when the page first showed it (``current``: the id
    now), held until :func:`release` or :func:`forget`."""
    held: int | None = st.session_state.setdefault(f"chk_seen_{qid}", current)
    return held


def release(qid: str) -> None:
    """Stop holding my label's id on ``qid`` (refused as stale, or undone: the page shows the
    label now stored, and the next decision is a knowing one)."""
    st.session_state.pop(f"chk_seen_{qid}", None)


def forget(fields: list[dict[str, Any]], qid: str) -> None:
    """Drop the choices held for question ``qid`` (decided or skipped: it starts afresh)."""
    release(qid)
    for f in fields:
        if _choices(f) is not None:
            st.session_state.pop(state_key(f["name"], qid), None)


def checklist(
    fields: list[dict[str, Any]], qid: str, old: dict[str, Any], titles: list[str]
) -> None:
    """Render the checklist ``fields`` of question ``qid`` (``old``: my earlier answers;
    ``titles``: the articles' titles, added to the per-article items)."""
    keys = {(name, choice): key for name, choice, key in checklist_keys(fields)}
    for f in fields:
        name, key = f["name"], state_key(f["name"], qid)
        label: str = md(f["label"])  # escaped, then an escaped title added
        if name in ("support_a", "support_b") and len(titles) > "ab".index(name[-1]):
            label += f" ({escape_markdown(titles['ab'.index(name[-1])])})"
        options = _choices(f)
        if options is None and f["type"] == "bool":
            st.checkbox(label, value=bool(old.get(name)), key=key)
            continue
        if options is None:
            st.text_input(label, value=old.get(name) or "", key=key)
            continue
        if key not in st.session_state:
            st.session_state[key] = _earlier(options, old.get(name))
        chosen = st.session_state[key]
        with st.container(
            horizontal=True, vertical_alignment="center", gap="small", key=f"item_{key}"
        ):
            st.markdown(label, width="stretch")
            for choice in options:
                shortcut = keys.get((name, choice))
                st.form_submit_button(
                    md(choice),
                    key=button_key(name, qid, choice),
                    type="primary" if choice == chosen else "secondary",
                    shortcut=shortcut,
                    help=md(
                        f"{f['label']}: {choice}"
                        + (f" (key {shortcut})" if shortcut else "")
                        + (" - chosen" if choice == chosen else "")
                    ),
                    on_click=_choose,
                    args=(key, choice),
                )
