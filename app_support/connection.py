"""The database of one script run: its path, a connection closed afterwards, and whether the app
is served (``streamlit run``) or driven by AppTest.

A database server that cannot be reached (:class:`core.errors.DatabaseUnreachableError`: refused,
its connect timeout passed, or the connection broke) is a fault of the deployment, not a bug: the
visitor gets one plain line (:data:`UNREACHABLE_LINE`; a button's action, run by
:func:`app_support.frame.action`: :data:`NOT_SAVED_LINE`), the operator the detail in the
server's log (:func:`log_unreachable`), and the next run renders once the server is back (the
pool discards a broken connection: :mod:`core.store.pool`).
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator

import streamlit as st
from streamlit.logger import get_logger

from app_support.hosting import served as served  # re-exported: the pages ask here
from core.errors import DatabaseFileError, DatabaseUnreachableError
from core.store.connection import default_db_path
from core.store.database import open_db, opened
from core.store.engine import Database as Database  # re-exported: a page types its connection
from core.store.planner import optimize
from core.views.text import md

_log = get_logger(__name__)  # Streamlit's logger: its lines reach the server's log
NOT_SAVED_LINE = (
    "Not saved: the database is unreachable just now. Press again in a moment "
    "(your choice is still on screen)."
)
UNREACHABLE_LINE = (
    "The database is unreachable just now. This page loads again once it is back: press any "
    "key or reload in a moment."
)
#: Session key: this run's frame said "not saved" already (:func:`say_unreachable` adds no line).
UNREACHABLE_SAID = "_workbench_unreachable_said"
#: Inside a button's action (:func:`acting`): an unreachable database is raised to the action's
#: boundary, which says "not saved" on the next run, instead of stopping the script here.
_IN_ACTION: contextvars.ContextVar[bool] = contextvars.ContextVar("in_action", default=False)

EMPTY_HINT = (
    "The database is empty. Build the key-free demo with `make run` (or "
    "`python -m core demo`), or import data with `python -m core import ...`."
)


def db_path() -> str:
    """The database path (``$WORKBENCH_DB`` or ``data/workbench.db``)."""
    return str(default_db_path())


@contextlib.contextmanager
def database() -> Iterator[Database]:
    """A migrated connection for this script run, closed afterwards (after ``PRAGMA optimize``:
    :func:`core.store.planner.optimize`). A missing or broken database file stops the page with
    its one-line reason (the app never creates one); an unreachable server, when opening or
    during the block, stops it with one plain line (see the module; in a button's action it is
    raised instead)."""
    try:
        db = open_db(db_path(), create=False)
    except DatabaseUnreachableError as exc:
        say_unreachable(exc)
        raise  # inside an action (say_unreachable stops the script otherwise)
    except DatabaseFileError as exc:
        st.error(md(exc))
        st.stop()
    try:
        yield db
    except DatabaseUnreachableError as exc:
        say_unreachable(exc)
        raise
    finally:
        with contextlib.suppress(DatabaseUnreachableError):
            optimize(db)  # SQLite's advice before closing a short-lived connection (issue 37)
        db.conn.close()


@contextlib.contextmanager
def worker_database() -> Iterator[Database]:
    """A connection of its own for a background thread of this script run (e.g. the Run page's
    experiment), closed afterwards; it never stops the page (a missing database raises)."""
    with opened(db_path()) as db:
        yield db


@contextlib.contextmanager
def acting() -> Iterator[None]:
    """The block is a button's action (:func:`app_support.frame.action`)."""
    token = _IN_ACTION.set(True)
    try:
        yield
    finally:
        _IN_ACTION.reset(token)


def log_unreachable(what: str, exc: DatabaseUnreachableError) -> None:
    """Log the operator's detail of a database that cannot be reached (no traceback: a fault
    of the deployment, not of the code)."""
    _log.warning("%s: the database is unreachable: %s", what, exc)


def say_unreachable(exc: DatabaseUnreachableError) -> None:
    """Outside an action: log ``exc``, show :data:`UNREACHABLE_LINE` (unless this run said
    "not saved" already) and stop the script. Inside one: nothing (the caller raises)."""
    if _IN_ACTION.get():
        return
    log_unreachable("page", exc)
    if not st.session_state.get(UNREACHABLE_SAID):
        st.error(UNREACHABLE_LINE)
    st.stop()
