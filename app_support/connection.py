"""The database of one script run: its path, a connection closed afterwards, and whether the app
is served (``streamlit run``) or driven by AppTest."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import streamlit as st
from streamlit import runtime

from core.errors import DatabaseFileError
from core.store.connection import default_db_path
from core.store.database import open_db, opened
from core.store.engine import Database
from core.store.planner import optimize
from core.views.text import md

EMPTY_HINT = (
    "The database is empty. Build the key-free demo with `make run` (or "
    "`python -m core demo`), or import data with `python -m core import ...`."
)


def served() -> bool:
    """True in a served app (``streamlit run``), False under AppTest (a stand-in runtime)."""
    return runtime.exists() and type(runtime.get_instance()) is runtime.Runtime


def db_path() -> str:
    """The database path (``$WORKBENCH_DB`` or ``data/workbench.db``)."""
    return str(default_db_path())


@contextlib.contextmanager
def database() -> Iterator[Database]:
    """A migrated connection for this script run, closed afterwards (after ``PRAGMA optimize``:
    :func:`core.store.planner.optimize`). A missing or broken database file stops the page with
    its one-line reason (the app never creates one)."""
    try:
        db = open_db(db_path(), create=False)
    except DatabaseFileError as exc:
        st.error(md(exc))
        st.stop()
    try:
        yield db
    finally:
        optimize(db)  # SQLite's advice before closing a short-lived connection (issue 37)
        db.conn.close()


@contextlib.contextmanager
def worker_database() -> Iterator[Database]:
    """A connection of its own for a background thread of this script run (e.g. the Run page's
    experiment), closed afterwards; it never stops the page (a missing database raises)."""
    with opened(db_path()) as db:
        yield db
