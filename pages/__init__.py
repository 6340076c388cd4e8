"""Shared Streamlit helpers of the pages (Streamlit does not list ``__init__.py`` as a page).

Connection per script run (``database()``), the sidebar sign-in, cached reads keyed on what
changed, and safe rendering of untrusted text. Logic lives in ``core``; this is presentation only.
"""

from __future__ import annotations

import contextlib
import importlib
import os
from collections.abc import Callable, Iterator
from typing import Any

import streamlit as st

from core.annotation.base import check_sign_in
from core.errors import WorkbenchError
from core.store.connection import answers_version, change_counter, default_db_path
from core.store.database import opened
from core.views.judgments import evidence_table
from core.views.leaderboard import LiveLeaderboard, LiveResult
from core.views.overview import data_version
from core.views.text import escape_markdown, md

EMPTY_HINT = (
    "The database is empty. Build the key-free demo with `make run` (or "
    "`python -m core demo`), or import data with `python -m core import ...`."
)


def db_path() -> str:
    """The database path (``$WORKBENCH_DB`` or ``data/workbench.db``)."""
    return str(default_db_path())


@contextlib.contextmanager
def database() -> Iterator[Any]:
    """A migrated connection for this script run, closed afterwards."""
    with opened(db_path()) as db:
        yield db


def setup(title: str) -> None:
    """Page config and title."""
    st.set_page_config(page_title=f"{title} - Long-Span QA Workbench", layout="wide")
    st.title(md(title))


# ------------------------------------------------------------------------------------------
# Sign-in
# ------------------------------------------------------------------------------------------


def expected_access_code() -> str | None:
    """The access code: env ``WORKBENCH_ACCESS_CODE`` or Streamlit secret ``access_code``."""
    code = os.environ.get("WORKBENCH_ACCESS_CODE")
    if code:
        return code
    try:
        return st.secrets.get("access_code") or None
    except Exception:  # no secrets file
        return None


def sign_in_sidebar() -> str | None:
    """Render the sidebar sign-in; return the signed-in annotator or None."""
    with st.sidebar:
        who = st.session_state.get("annotator")
        if who:
            st.markdown(f"Signed in as **{escape_markdown(who)}**")
            if st.button("Sign out", key="sign_out"):
                del st.session_state["annotator"]
                st.rerun()
            return who
        expected = expected_access_code()
        with st.form("sign_in", clear_on_submit=False):
            st.markdown("**Sign in**")
            name = st.text_input("Annotator name", key="sign_in_name")
            code = (
                st.text_input("Access code", type="password", key="sign_in_code")
                if expected
                else ""
            )
            if st.form_submit_button("Sign in"):
                try:
                    st.session_state["annotator"] = check_sign_in(name, code, expected)
                    st.rerun()
                except WorkbenchError as exc:
                    st.error(md(exc))
    return None


def require_annotator() -> str:
    """The signed-in annotator; otherwise a hint and stop the page."""
    who = sign_in_sidebar()
    if not who:
        st.info("Sign in with your annotator name in the sidebar to label items.")
        st.stop()
    return who


# ------------------------------------------------------------------------------------------
# Cached reads (keyed on what changed)
# ------------------------------------------------------------------------------------------


@st.cache_data(show_spinner=False, max_entries=128)
def _cached(path: str, version: Any, ref: str, args: tuple) -> Any:
    module, _, name = ref.partition(":")
    with opened(path) as db:
        return getattr(importlib.import_module(module), name)(db, *args)


def _ref(fn: Callable[..., Any]) -> str:
    return f"{fn.__module__}:{fn.__qualname__}"


def cached_view(db, fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(db, *args)`` cached until the data change (``data_version``)."""
    return _cached(db_path(), data_version(db), _ref(fn), tuple(args))


def cached_judgments(db, fn: Callable[..., Any], *args: Any) -> Any:
    """Like :func:`cached_view` but keyed on the judgments change counter only (cheaper)."""
    return _cached(db_path(), ("judgments", change_counter(db)), _ref(fn), tuple(args))


def cached_answers(db, fn: Callable[..., Any], *args: Any) -> Any:
    """Like :func:`cached_view` but keyed on the answers only (a verdict does not invalidate)."""
    version = ("answers", *answers_version(db))
    return _cached(db_path(), version, _ref(fn), tuple(args))


@st.cache_resource(show_spinner=False, max_entries=32)
def _live_board(path: str, file_id: tuple, source: str, rater: str | None) -> LiveLeaderboard:
    """One thread-safe incremental leaderboard per database file, verdict source and rater."""
    return LiveLeaderboard(source, rater)


def live_leaderboard(
    db, source: str, rater: str | None, n_boot: int, seed: int, group: str | None = None
) -> LiveResult:
    """The live leaderboard of one system group (default: the largest); reads only new judgments."""
    path = db_path()
    try:
        st_ = os.stat(path)
        file_id = (st_.st_dev, st_.st_ino)
    except OSError:
        file_id = ()
    return _live_board(path, file_id, source, rater).view(db, n_boot, seed, group)


# ------------------------------------------------------------------------------------------
# Safe rendering of untrusted text
# ------------------------------------------------------------------------------------------


def untrusted(text: str, label: str | None = None) -> None:
    """Render untrusted text (a book passage, a model answer) as escaped Markdown."""
    if label:
        st.caption(escape_markdown(label))
    st.markdown(escape_markdown(text) if text else "*(empty)*")


def evidence(items) -> None:
    """A judgment's evidence quotes, each marked verified (found in the source text) or not."""
    table = evidence_table(items)
    if not len(table):
        st.caption("No evidence quotes.")
        return
    n_ok = int(table["verified"].sum())
    st.caption(f"Evidence: {len(table)} quote(s), {n_ok} verified against the source text")
    for q in table.to_dict("records"):
        try:
            score = f" (match {float(q['score']):.0f}/100)" if q["score"] == q["score"] else ""
        except (TypeError, ValueError):
            score = ""
        mark = (":green[**✓ verified**]" if q["verified"] else ":red[**✗ NOT verified**]") + score
        st.markdown(f"{mark}: {escape_markdown(q['quote'])}")


def highlighted(markdown_safe: str) -> None:
    """Render Markdown built by ``highlight_markdown`` (already escaped)."""
    st.markdown(md(markdown_safe))
