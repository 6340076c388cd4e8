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
#: A served app's GIL switch interval (ms) on PostgreSQL when :data:`SWITCH_INTERVAL_VAR` is not
#: set (on SQLite Python's own, 5 ms: a shorter one lowered SQLite's labels a second at N = 1 and
#: raised its p95 in benchmarks/team_load.py, issue 33, docs/deploy.md).
DEFAULT_SWITCH_INTERVAL_MS = 1.0


def served() -> bool:
    """True in a served app (``streamlit run``), False under AppTest (a stand-in runtime)."""
    return runtime.exists() and type(runtime.get_instance()) is runtime.Runtime


def switch_interval_s(postgres: bool, environ: Mapping[str, str] = os.environ) -> float | None:
    """The GIL switch interval a served app sets, in seconds: :data:`SWITCH_INTERVAL_VAR`
    (milliseconds, a positive number), else on PostgreSQL (``postgres``)
    :data:`DEFAULT_SWITCH_INTERVAL_MS` and on SQLite ``None`` (Python's own is kept). A value
    that is not a positive number raises ValueError naming the variable."""
    text = environ.get(SWITCH_INTERVAL_VAR, "").strip()
    if not text:
        return DEFAULT_SWITCH_INTERVAL_MS / 1000 if postgres else None
    try:
        ms = float(text)
    except ValueError:
        ms = float("nan")
    if not ms > 0 or ms == float("inf"):
        raise ValueError(f"{SWITCH_INTERVAL_VAR} must be a positive number of ms, not {text!r}")
    return ms / 1000


def set_switch_interval(postgres: bool) -> None:
    """In a served app, set the process's GIL switch interval to :func:`switch_interval_s`
    (Python's own is 5 ms; ``postgres``: the app's database is PostgreSQL). A script thread
    whose psycopg call released the GIL (the socket wait, libpq's calls) waits up to one
    interval to take it back while another thread computes (issue 33); AppTest and the CLIs
    keep Python's."""
    if served() and (seconds := switch_interval_s(postgres)) is not None:
        sys.setswitchinterval(seconds)
