"""Whether the app is served (``streamlit run``) or driven by AppTest: Streamlit only, so the
modules that run before a page's imports (:mod:`app_support.navigation`,
:mod:`app_support.loading`) can ask without loading the store. And the served process's GIL
switch interval (:func:`set_switch_interval`)."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping

from streamlit import runtime

#: The environment variable that sets a served app's GIL switch interval, in milliseconds.
SWITCH_INTERVAL_VAR = "WORKBENCH_SWITCH_INTERVAL_MS"
#: A served app's GIL switch interval (ms) when :data:`SWITCH_INTERVAL_VAR` is not set.
DEFAULT_SWITCH_INTERVAL_MS = 1.0


def served() -> bool:
    """True in a served app (``streamlit run``), False under AppTest (a stand-in runtime)."""
    return runtime.exists() and type(runtime.get_instance()) is runtime.Runtime


def switch_interval_s(environ: Mapping[str, str] = os.environ) -> float:
    """The GIL switch interval a served app sets, in seconds: :data:`SWITCH_INTERVAL_VAR`
    (milliseconds, a positive number) or :data:`DEFAULT_SWITCH_INTERVAL_MS`. A value that is not
    a positive number raises ValueError naming the variable."""
    text = environ.get(SWITCH_INTERVAL_VAR, "").strip()
    if not text:
        return DEFAULT_SWITCH_INTERVAL_MS / 1000
    try:
        ms = float(text)
    except ValueError:
        ms = float("nan")
    if not ms > 0 or ms == float("inf"):
        raise ValueError(f"{SWITCH_INTERVAL_VAR} must be a positive number of ms, not {text!r}")
    return ms / 1000


def set_switch_interval() -> None:
    """In a served app, set the process's GIL switch interval to :func:`switch_interval_s`
    (Python's own is 5 ms). A script thread whose database call released the GIL (psycopg's
    socket wait and libpq calls, sqlite3's statements) waits up to one interval to take it
    back while another thread computes (issue 33); AppTest and the CLIs keep Python's."""
    if served():
        sys.setswitchinterval(switch_interval_s())
