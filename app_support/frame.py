"""A page's frame: its config and title (and the warm-up, started once per server process), and
the app's one error path: the boundary ``app.py`` runs the chosen page in (:func:`run_page`) and
the one every button callback runs in (:func:`action`). Either way a failure is one plain line
with a reference, and the traceback goes to the server's log with the same reference. A database
server that cannot be reached (:class:`core.errors.DatabaseUnreachableError`) is a fault, not a
bug: one plain line for the visitor (a button's action: "not saved ... press again"), the
operator's detail in the log, and the next run renders as soon as the server is back."""

from __future__ import annotations

import functools
import hashlib
import time
from collections.abc import Callable
from typing import ParamSpec, Protocol

import streamlit as st
from streamlit.logger import get_logger

from app_support import connection, loading
from app_support.connection import served
from app_support.navigation import route_through_app
from app_support.warmup import warm_up
from core.errors import DatabaseUnreachableError
from core.views.text import md

_log = get_logger(__name__)  # Streamlit's logger: its lines reach the server's log
#: Session key: the reference of a callback that failed, shown by the next page run's frame.
ACTION_FAILED = "_workbench_action_failed"
#: Session key: a button action found the database unreachable (nothing was stored).
NOT_SAVED = "_workbench_not_saved"
P = ParamSpec("P")


class Runnable(Protocol):
    """What ``st.navigation`` returns: the page chosen from the URL, run by ``run()``."""

    def run(self) -> None: ...


def setup(title: str) -> None:
    """Page config and title (in the place of the page's loading line: :mod:`app_support.loading`;
    and, once per server process, the warm-up: :func:`warm_up`), then the one line of a button
    action that failed before this run (:func:`action`); a run that did not come through
    ``app.py`` is rerouted first (:func:`route_through_app`)."""
    route_through_app()
    warm_up()
    st.set_page_config(page_title=f"{title} - Long-Span QA Workbench", layout="wide")
    loading.title(md(title))
    action_lines()


def action_lines() -> None:
    """The one line of a button action that failed before this run (:func:`action`): its
    reference, or "not saved" when the database was unreachable (each said once)."""
    if ref := st.session_state.pop(ACTION_FAILED, None):
        st.error(f"This action failed. The details are in the server's log (reference {md(ref)}).")
    said = st.session_state[connection.UNREACHABLE_SAID] = st.session_state.pop(NOT_SAVED, False)
    if said:
        st.error(connection.NOT_SAVED_LINE)


def _logged(what: str) -> str:
    """Log the exception being handled with its traceback; return its reference (8 hex)."""
    ref = hashlib.sha256(f"{time.time_ns()}".encode()).hexdigest()[:8]
    _log.exception("%s failed (reference %s)", what, ref)
    return ref


def _reraise(reraise: bool | None) -> bool:
    """Raise again? ``reraise``, by default only outside a served app (under AppTest)."""
    return (not served()) if reraise is None else reraise


def action(fn: Callable[P, None], reraise: bool | None = None) -> Callable[P, None]:
    """``fn`` as a widget callback (``on_click=frame.action(f)`` or ``@frame.action``) inside the
    app's one error path. Streamlit runs callbacks before the page, outside :func:`run_page`; an
    exception there would show Streamlit's own error box. Here it is logged with its traceback
    and a reference, and the page then shows one plain line with that reference (:func:`setup`).
    ``reraise`` (default: under AppTest) raises it again, so tests see every failure.
    An action still running after half a second (Streamlit's spinner delay: a label waiting
    for another program's write lock) shows :data:`connection.WAITING_LINE` at the top of the
    page until it ends; a quick one shows nothing."""

    @functools.wraps(fn)
    def run(*args: P.args, **kwargs: P.kwargs) -> None:
        try:
            with connection.acting(), st.spinner(connection.WAITING_LINE, show_time=True):
                fn(*args, **kwargs)
        except DatabaseUnreachableError as exc:  # nothing stored: the page says "press again"
            connection.log_unreachable("button action", exc)
            st.session_state[NOT_SAVED] = True
        except Exception:  # reason: no traceback to visitors; st.stop/st.rerun are BaseException
            ref = _logged("button action")
            if _reraise(reraise):
                raise
            st.session_state[ACTION_FAILED] = ref

    return run


def run_page(navigation: Runnable, reraise: bool | None = None) -> None:
    """Run the navigation's page; an error shows one plain message (no traceback, no server
    path) and is logged with its traceback. ``reraise`` (default: under AppTest) raises it again,
    so tests see every failure. A loading line the page did not replace with its title (it
    stopped or failed first) is removed."""
    try:
        _guarded(navigation.run, reraise)
    finally:
        loading.clear()
        connection.release_handed()  # an action's connection no block of the run took


def _guarded(run: Callable[[], None], reraise: bool | None) -> None:
    """``run()`` inside the page's error path (:func:`run_page`)."""
    try:
        run()
    except DatabaseUnreachableError as exc:  # opened elsewhere than connection.database()
        connection.show_unreachable(exc)
    except Exception:  # reason: no traceback to visitors; st.stop/st.rerun are BaseException
        ref = _logged("page")
        if _reraise(reraise):
            raise
        st.error(f"This page failed. The details are in the server's log (reference {md(ref)}).")


def fragment(fn: Callable[[], None]) -> Callable[[], None]:
    """``fn`` as an ``st.fragment`` (a button inside it reruns ``fn`` alone, not the page: the
    app, the sign-in and what lies outside are not run again), inside the same error path as
    the page: a fragment's own run does not pass through :func:`run_page` or :func:`setup`, so
    it shows the failed action's line itself (:func:`action_lines`) and catches as
    :func:`run_page` does."""

    @functools.wraps(fn)
    def body() -> None:
        try:
            action_lines()
            _guarded(fn, None)
        finally:
            connection.release_handed()  # an action's connection no block of the run took

    return st.fragment(body)
