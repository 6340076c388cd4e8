"""Deep links: the question id of ``?q=QUESTION_ID`` and a copyable absolute link to an item."""

from __future__ import annotations

from urllib.parse import urlencode, urlsplit

import streamlit as st

from app_support.connection import database
from core.store.engine import Database
from core.store.settings import url_setting


def deep_link_id() -> str | None:
    """The question id of a deep link ``?q=QUESTION_ID`` (None when absent)."""
    value = st.query_params.get("q")
    return str(value) if value else None


def app_base_url(db: Database | None = None) -> str:
    """The app's address for links: the ``base_url`` setting, else the browser's own origin
    (``db``: the run's open connection; None: one is opened)."""
    if db is None:
        with database() as opened:
            configured = url_setting(opened, "base_url")
    else:
        configured = url_setting(db, "base_url")
    if configured:
        return configured
    parts = urlsplit(st.context.url or "")
    return f"{parts.scheme}://{parts.netloc}" if parts.scheme and parts.netloc else ""


def share_link(page: str, question_id: str, db: Database | None = None) -> None:
    """A copyable, absolute deep link to ``question_id`` on ``page`` (no secret: the sign-in is
    the reader's own; the code block has a copy button; ``db`` as in :func:`app_base_url`)."""
    st.caption("Link to this item")
    st.code(f"{app_base_url(db)}/{page}?{urlencode({'q': question_id})}", language=None)
