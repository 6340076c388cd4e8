"""The labelling screens' frame (issue 34): a compact page top, answers in panes of their own
height that scroll inside, a decision bar that stays in view (sticky at the bottom of the
window while the page scrolls), and the task's guideline one key away (``G``).

The style sheet is constant text (no data reaches it); it is scoped to the containers this
module makes (``st-key-...`` classes) and, for the page top, to the pages that call
:func:`compact`."""

from __future__ import annotations

import hashlib

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from app_support import render
from core.annotation.base import StaleLabelError, repeated_press
from core.errors import WorkbenchError
from core.views.guidelines import task_guideline
from core.views.text import InertMarkdown, md

#: The decision bar's container key (its CSS class is ``st-key-<key>``).
BAR = "decision_bar"
#: Height in pixels of an answer's pane at 1280x800 (the item, both answers and the decision
#: bar then fit the first screen); longer answers scroll inside the pane.
PANE_PX = 330
#: Height in pixels of the evidence column beside them (it scrolls inside too).
EVIDENCE_PX = 560
#: The key that opens the guideline.
GUIDELINE_KEY = "G"

_STYLE = (
    "<style data-workbench='workspace'>"
    "[data-testid='stMainBlockContainer'] { padding: 3.25rem 2.5rem 2rem 2.5rem; }"
    "[data-testid='stMainBlockContainer'] h1 { font-size: 1.9rem; padding: 0.25rem 0 0 0; }"
    # sticky on the bar's wrapper: its parent (the column) is what it may travel along
    f"[data-testid='stLayoutWrapper']:has(> .st-key-{BAR}) {{ position: sticky; bottom: 0;"
    " z-index: 90; padding: 0.35rem 0; background-color: #ffffff;"
    " border-top: 1px solid rgba(49, 51, 63, 0.2); }"
    "@media (prefers-color-scheme: dark) {"
    f" [data-testid='stLayoutWrapper']:has(> .st-key-{BAR}) {{ background-color: #0e1117; }} }}"
    "[class*='st-key-pane_'] [data-testid='stCode'] pre { overflow-x: auto; }"
    "</style>"
)


def item_bound(name: str, item: object) -> str:
    """The widget key of a decision button ``name`` bound to the item it is drawn for.

    A button's action takes the item as its argument, fixed when the button is drawn. With one
    key for every item (``sbs_A``), a key pressed again before the page showed the next item
    (a double press, a held key, a press while the database was busy) reached the button the
    server had meanwhile drawn for the next item: a label on an item the person never saw.
    Keyed by item, the press names the button the person saw, whose action holds that item
    (its label's stale check then refuses a second label there), or a button no longer
    drawn, which Streamlit ignores."""
    digest = hashlib.sha256(str(item).encode("utf-8")).hexdigest()[:12]
    return f"{name}_{digest}"


#: Session key: per label table, the ids of the rows this tab's decision presses stored.
_STORED_HERE = "workspace_stored_here"
#: How many of them are kept (a repeated press refers to one stored moments ago).
_STORED_KEPT = 20


def stored_here(table: str, row_id: int) -> None:
    """Remember that a press on this tab stored row ``row_id`` of ``table`` (a label table),
    so that a refusal met by it is told from another tab's change (:func:`refusal`)."""
    kept: dict[str, list[int]] = st.session_state.setdefault(_STORED_HERE, {})
    ids = kept.setdefault(table, [])
    ids.append(row_id)
    del ids[:-_STORED_KEPT]


def refusal(table: str, exc: WorkbenchError, prefix: str = "") -> tuple[bool, str]:
    """Why a decision press on ``table`` stored nothing, as ``(calm, text)``: calm when the item
    holds the row this tab stored a moment ago (a key pressed twice before the next item was
    drawn: :func:`core.annotation.base.repeated_press`), otherwise ``prefix`` and the error
    (another tab's change, a busy database ...). Show it with :func:`show_refusal`."""
    if isinstance(exc, StaleLabelError):
        kept: dict[str, list[int]] = st.session_state.get(_STORED_HERE, {})
        if again := repeated_press(exc, kept.get(table, ())):
            return True, again
    return False, prefix + str(exc)


def show_refusal(said: tuple[bool, str] | None) -> None:
    """A :func:`refusal`: a calm information line for a repeated press, else an error."""
    if said is not None:
        calm, text = said
        (st.info if calm else st.error)(md(text))


def compact() -> None:
    """A labelling page's top: less padding above a smaller title, so the item starts high."""
    st.html(_STYLE)


def item_columns(question: str, has_source: bool) -> tuple[DeltaGenerator, DeltaGenerator | None]:
    """An item's top on a labelling page: the main column, headed by the ``question``
    (untrusted text), and the evidence column beside it (3:2), or, for an item without a source
    document, the main column alone (its answers then take the page's width) with a line saying
    so and ``None`` for the evidence."""
    side: DeltaGenerator | None = None
    if has_source:
        main, side = st.columns([3, 2], gap="medium")
    else:
        main = st.container()
    with main:
        st.caption("Question")
        render.untrusted(question)
        if not has_source:
            st.caption(render.NO_SOURCE)
    return main, side


def pane(key: str, height: int = PANE_PX, border: bool = True) -> DeltaGenerator:
    """A pane of fixed ``height`` whose content scrolls inside it (an answer, the evidence)."""
    return st.container(height=height, border=border, key=f"pane_{key}")


def decision_bar() -> DeltaGenerator:
    """The row of decision buttons, kept in view at the bottom of the window (sticky): buttons
    sit side by side and wrap on a phone instead of stacking one per line."""
    return st.container(key=BAR, horizontal=True, gap="small")


@st.dialog("Guidelines", width="large")
def _guideline_dialog(text: InertMarkdown) -> None:
    st.markdown(md(text))  # project Markdown or escaped data: md() keeps it as built


def guideline_button(task: str, key: str, text: InertMarkdown | None = None) -> None:
    """A *Guidelines* button (key ``G``) that opens the guideline over the page: the shipped
    ``task``'s (:func:`~core.views.guidelines.task_guideline`), or ``text`` when given (built
    by a view). Not inside a form (a plain button)."""
    if st.button(
        "Guidelines",
        key=key,
        shortcut=GUIDELINE_KEY,
        help=f"The task's guidelines (key {GUIDELINE_KEY})",
    ):
        _guideline_dialog(task_guideline(task) if text is None else text)
