"""The app's pages and its one router, ``st.navigation``.

:func:`app_pages` lists Overview first (the default page), then every numbered script of
``pages/`` in order, each titled from its file name (``3_Side_by_side.py`` -> "Side by side").
``app.py`` routes through them on every run and marks the session (:data:`ROUTED`).

Streamlit runs a server's very first script in its older folder mode when ``pages/`` sits beside
``app.py`` and that first visit is a page's own URL: the page runs without ``app.py``, and the
sidebar lists the folder's files plus an "app" entry. :func:`route_through_app` notices such a
run by the missing mark, declares the app's navigation with the public ``st.navigation`` (which
ends the folder mode) and reruns, now through ``app.py``, which opens the same page from the URL.
It runs when the package ``app_support`` is first imported (``app_support/__init__.py``: the
first thing every page imports, before the seconds of its other imports on a server that just
started) and again in every page's :func:`app_support.frame.setup`.

Streamlit only (no store): ``app.py`` imports this module, declares the navigation and draws the
page's loading line (:mod:`app_support.loading`) before it imports the pages' helpers.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st
from streamlit.navigation.page import StreamlitPage

from app_support import loading
from app_support.hosting import served

PAGES_DIR = Path(__file__).resolve().parents[1] / "pages"
#: Session key set by ``app.py`` on each run: this session is routed by the app's navigation.
ROUTED = "_workbench_routed"


def app_pages() -> list[StreamlitPage]:
    """Every page of ``pages/`` (``N_Name.py``) in number order; ``0_...`` is the default."""
    scripts = sorted(PAGES_DIR.glob("[0-9]*.py"), key=lambda p: int(p.stem.split("_", 1)[0]))
    return [
        st.Page(
            str(path),
            title=path.stem.split("_", 1)[1].replace("_", " "),
            default=path.stem.split("_", 1)[0] == "0",
        )
        for path in scripts
    ]


def navigate() -> StreamlitPage:
    """Declare the app's navigation (in the sidebar, expanded: every page listed), mark the
    session routed and set the wide layout (before anything is drawn, so nothing moves)."""
    st.session_state[ROUTED] = True
    page = st.navigation(app_pages(), position="sidebar", expanded=True)
    st.set_page_config(layout="wide")
    return page


def route_through_app() -> None:
    """In a served app, a page run that did not come through ``app.py`` (the folder-mode first
    visit described above) declares the navigation (the same list as ``app.py``'s, so the
    sidebar does not change again), draws the page's loading line and reruns through
    ``app.py`` (which draws the line again in the same place)."""
    if served() and not st.session_state.get(ROUTED):
        loading.line(navigate().title)
        st.rerun()
