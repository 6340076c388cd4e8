"""Whether the app is served (``streamlit run``) or driven by AppTest: Streamlit only, so the
modules that run before a page's imports (:mod:`app_support.navigation`,
:mod:`app_support.loading`) can ask without loading the store."""

from __future__ import annotations

from streamlit import runtime


def served() -> bool:
    """True in a served app (``streamlit run``), False under AppTest (a stand-in runtime)."""
    return runtime.exists() and type(runtime.get_instance()) is runtime.Runtime
