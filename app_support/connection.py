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
import threading
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
#: What a button action that takes longer than a moment shows while it runs (``frame.action``):
#: a label meeting another program's write lock waits for it (up to the busy timeout, then
#: retried), and the page says so instead of only greying out.
WAITING_LINE = (
    "Saving: waiting for the database (another program may be writing). Your choice is "
    "stored as soon as it is free."
)
UNREACHABLE_LINE = (
    "The database is unreachable just now. This page loads again by itself once it is back."
)
#: Seconds between a stopped page's checks whether its database is back (:func:`retry_when_back`).
RETRY_S = 3.0
#: Session key: this run's frame said "not saved" already (:func:`say_unreachable` adds no line).
UNREACHABLE_SAID = "_workbench_unreachable_said"
#: Inside a button's action (:func:`acting`): an unreachable database is raised to the action's
#: boundary, which says "not saved" on the next run, instead of stopping the script here.
_IN_ACTION: contextvars.ContextVar[bool] = contextvars.ContextVar("in_action", default=False)
#: A connection a button's action finished with, handed to the script run that follows it in
#: the same thread (Streamlit runs the callback, then the page or fragment, in the script
#: thread): ``(path, Database)``. A label then opens the database once, not twice: on SQLite
#: opening reads the schema (about 1.5 ms; issue 37); on PostgreSQL a borrow costs three round
#: trips (the pool's ping, the open check, giving it back; issue 33). One the run did not take is
#: closed when the run ends (:func:`release_handed`).
_handed = threading.local()

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
    raised instead). A button's action that finished hands its connection to the run that
    follows (:data:`_handed`) instead of closing it. The connection keeps what the run read
    once (:attr:`core.store.engine.Database.run_memo`: the settings), for this run only."""
    path = db_path()
    db = _take_handed(path)
    if db is None:
        try:
            db = open_db(path, create=False)
        except DatabaseUnreachableError as exc:
            say_unreachable(exc)
            raise  # inside an action (say_unreachable stops the script otherwise)
        except DatabaseFileError as exc:
            st.error(md(exc))
            st.stop()
        db.run_memo = {}
    keep = False
    try:
        yield db
        keep = _IN_ACTION.get()  # a finished action's connection serves the next run (_handed)
    except DatabaseUnreachableError as exc:
        say_unreachable(exc)
        raise
    finally:
        if keep:
            _close(_take_handed(None))  # at most one waits (a nested block's, or a stray one)
            _handed.kept = (path, db)
        else:
            _close(db)


def _take_handed(path: str | None) -> Database | None:
    """The connection an action handed over in this thread (:data:`_handed`), taken: when it
    is to ``path``; another one (or any, ``path`` None) is closed and None returned."""
    kept = getattr(_handed, "kept", None)
    _handed.kept = None
    if kept is None:
        return None
    if kept[0] == path:
        db: Database = kept[1]
        return db
    _close(kept[1])
    return None


def release_handed() -> None:
    """Close the connection an action handed over in this thread if no block took it (the end
    of a script run: :mod:`app_support.frame`), so a pooled PostgreSQL connection goes back to
    its pool instead of waiting in the thread for a run that may not come."""
    _close(_take_handed(None))


def _close(db: Database | None) -> None:
    """Close a run's connection, after ``PRAGMA optimize`` (:func:`core.store.planner.optimize`:
    SQLite's advice before closing a short-lived connection, issue 37)."""
    if db is None:
        return
    try:
        with contextlib.suppress(DatabaseUnreachableError):
            optimize(db)
    finally:
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
    show_unreachable(exc)
    st.stop()


def show_unreachable(exc: DatabaseUnreachableError) -> None:
    """A page run that met an unreachable database: log ``exc``, show :data:`UNREACHABLE_LINE`
    (unless this run said "not saved" already) and check until it is back
    (:func:`retry_when_back`)."""
    log_unreachable("page", exc)
    if not st.session_state.get(UNREACHABLE_SAID):
        st.error(UNREACHABLE_LINE)
    retry_when_back()


def retry_when_back() -> None:
    """The page stopped short of its content (the database is unreachable): it checks every
    :data:`RETRY_S` seconds whether the database answers (a fragment rerun that renders
    nothing) and, once it does, runs again in full, so it recovers without a key or a reload."""
    _retry_when_back()


@st.fragment(run_every=RETRY_S)
def _retry_when_back() -> None:
    """One check (see :func:`retry_when_back`): open and close a connection; rerun the page
    when that worked."""
    try:
        with opened(db_path(), create=False):
            pass
    except DatabaseUnreachableError:
        return  # still away: the next check in RETRY_S seconds
    except Exception:  # reason: reachable, but refused: the page's own run says why, once
        pass
    st.rerun(scope="app")
