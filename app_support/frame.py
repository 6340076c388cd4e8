"""A page's frame: its config and title (and the warm-up, started once per server process), and
the error boundary ``app.py`` runs the chosen page in."""

from __future__ import annotations

import hashlib
import time
from typing import Protocol

import streamlit as st
from streamlit.logger import get_logger

from app_support.connection import served
from app_support.navigation import route_through_app
from app_support.warmup import warm_up
from core.views.text import md

_log = get_logger(__name__)  # Streamlit's logger: its lines reach the server's log


class Runnable(Protocol):
    """What ``st.navigation`` returns: the page chosen from the URL, run by ``run()``."""

    def run(self) -> None: ...


def setup(title: str) -> None:
    """Page config and title (and, once per server process, the warm-up: :func:`warm_up`); a
    run that did not come through ``app.py`` is rerouted first (:func:`route_through_app`)."""
    route_through_app()
    warm_up()
    st.set_page_config(page_title=f"{title} - Long-Span QA Workbench", layout="wide")
    st.title(md(title))


def run_page(navigation: Runnable, reraise: bool | None = None) -> None:
    """Run the navigation's page; an error shows one plain message (no traceback, no server
    path) and is logged with its traceback. ``reraise`` (default: under AppTest) raises it again,
    so tests see every failure."""
    try:
        navigation.run()
    except Exception:  # reason: no traceback to visitors; st.stop/st.rerun are BaseException
        ref = hashlib.sha256(f"{time.time_ns()}".encode()).hexdigest()[:8]
        _log.exception("page failed (reference %s)", ref)
        if (not served()) if reraise is None else reraise:
            raise
        st.error(f"This page failed. The details are in the server's log (reference {md(ref)}).")
