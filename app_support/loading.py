"""A page's first line (issue 34): "Loading <page>..." drawn at once, where the page's title
will stand, before the page's imports and views (seconds on a server that just started), then
replaced by the title when the page draws it (:func:`title`, called by
:func:`app_support.frame.setup`).

Shown on a session's first run and whenever the page changed; the other runs (a button, a key)
draw the title in the same place directly, so nothing moves. Streamlit only (no store): it runs
before the modules every page imports.
"""

from __future__ import annotations

from contextvars import ContextVar

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from core.views.text import InertMarkdown, md

#: Session key: the page this session's loading line was last drawn for.
SHOWN = "_workbench_loading_shown"
#: The placeholder of this script run's loading line, until the title takes its place.
_SLOT: ContextVar[DeltaGenerator | None] = ContextVar("workbench_loading_slot", default=None)


def show(page: str) -> None:
    """Draw "Loading ``page``..." in an ``st.empty`` placeholder when ``page`` is not the page
    this session showed last (its first run, or another page chosen); otherwise nothing."""
    if st.session_state.get(SHOWN) == page:
        _SLOT.set(None)
        return
    st.session_state[SHOWN] = page
    line(page)


def line(page: str) -> None:
    """Draw "Loading ``page``..." now, in an ``st.empty`` placeholder this run's title takes."""
    slot = st.empty()
    slot.caption(f"Loading {md(page)}\u2026")
    _SLOT.set(slot)


def title(text: InertMarkdown) -> None:
    """The page's title, in the loading line's place when this run drew one."""
    slot = _SLOT.get()
    _SLOT.set(None)
    if slot is None:
        st.title(md(text))
    else:
        slot.title(md(text))


def clear() -> None:
    """Remove a loading line no title replaced (the page stopped or failed before its title)."""
    slot = _SLOT.get()
    _SLOT.set(None)
    if slot is not None:
        slot.empty()
