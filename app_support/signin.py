"""The sidebar sign-in: a one-use ``?token=`` link or a pasted token exchanged for a server-side
session kept in a cookie, open mode (a name alone while no accounts exist), sign-out, and the
gate every page passes (:func:`sign_in_sidebar`, :func:`require_annotator`)."""

from __future__ import annotations

import streamlit as st

from app_support.connection import database, served
from core.annotation.identity import (
    Annotator,
    authorise,
    resume_session,
    sign_in_open,
    sign_out,
)
from core.annotation.throttle import start_session_throttled
from core.errors import WorkbenchError
from core.store.accounts import accounts_exist
from core.store.engine import Database
from core.views.text import escape_markdown, md

#: The browser cookie that holds the session id (set and cleared by :func:`_cookie`).
SESSION_COOKIE = "workbench_session"
#: Runs in the page (st.html, not an iframe), so ``document.cookie`` is the app's origin's. The
#: value is a URL-safe random id made by core, or empty: nothing from the data reaches it.
_COOKIE_JS = '<script data-workbench="cookie">document.cookie = "{name}={value}; path=/; SameSite=Strict{extra}";</script>'
_COOKIE_DAYS = 30


def _handshake_cookie() -> str:
    """The session cookie the browser sent when this page was (re)loaded ("" if none, and
    under AppTest, whose stand-in client has no cookies)."""
    if not served():
        return ""
    value = st.context.cookies.get(SESSION_COOKIE)
    return value if isinstance(value, str) else ""


def _cookie(value: str | None) -> None:
    """Set the session cookie to ``value`` (None: clear it). Not HttpOnly (a script sets it)."""
    if not served():
        return  # AppTest has no browser
    secure = "; Secure" if (st.context.url or "").startswith("https:") else ""
    extra = f"; max-age={_COOKIE_DAYS * 86400}{secure}" if value else f"; max-age=0{secure}"
    script = _COOKIE_JS.format(name=SESSION_COOKIE, value=value or "", extra=extra)
    st.html(script, unsafe_allow_javascript=True)


def _drop_sign_in() -> None:
    """Forget this browser session's sign-in (the cookie sent at load time is ignored from now)."""
    cached = st.session_state.pop("signed_in", None)
    st.session_state["ended_session"] = (cached[0] if cached else "") or _handshake_cookie()
    for key in ("token", "name"):
        if key in st.query_params:
            del st.query_params[key]


def _client() -> str:
    """The client whose failed sign-ins are throttled: its address as the server saw it
    ("local" on localhost and under AppTest, whose stand-in context has no address)."""
    address = st.context.ip_address
    return address if isinstance(address, str) and address else "local"


def current_annotator(db: Database) -> Annotator | None:
    """The signed-in annotator of this browser session, else None.

    A ``?token=`` link is used once: its token leaves the address bar at once (used or not) and
    is exchanged for a server-side session (:func:`start_session`) whose id is kept in the
    session state and in a cookie (:data:`SESSION_COOKIE`), so a reload or another tab resumes
    it and a copied address bar carries no secret. A wrong, used, revoked or ended sign-in is
    dropped with one error line.
    """
    token = st.query_params.get("token")
    if token:
        del st.query_params["token"]  # the secret never stays in the address bar
        try:
            who, session_id = start_session_throttled(db, token, _client())
            before = st.session_state.get("signed_in")
            if before:
                sign_out(db, before[1])  # this browser's earlier session ends: one per browser
            st.session_state["signed_in"] = (session_id, who)
            return who
        except WorkbenchError as exc:  # a used or wrong link: say so; a session still counts
            st.sidebar.error(md(exc))
    try:
        cached = st.session_state.get("signed_in")
        if cached:
            return authorise(db, cached[1])  # ended, revoked or given a fresh link? refused
        cookie = _handshake_cookie()
        if cookie and cookie != st.session_state.get("ended_session"):
            who = resume_session(db, cookie)
            st.session_state["signed_in"] = (cookie, who)
            return who
        name = st.query_params.get("name")
        if name and not accounts_exist(db):
            who = sign_in_open(db, name)
            st.session_state["signed_in"] = ("", who)
            return who
    except WorkbenchError as exc:
        _drop_sign_in()
        st.sidebar.error(md(exc))
    return None


def _keep_cookie() -> None:
    """Bring the browser's cookie in line with this session: set it after a sign-in, clear it
    after a sign-out or a refused session (only when it differs from what the browser sent)."""
    cached = st.session_state.get("signed_in")
    session_id = cached[0] if cached else ""
    if session_id and _handshake_cookie() != session_id:
        _cookie(session_id)
    elif not session_id and _handshake_cookie():
        _cookie(None)


def sign_in_sidebar() -> Annotator | None:
    """Render the sidebar sign-in (and the open-mode notice); return the signed-in annotator."""
    with database() as db:
        who = current_annotator(db)
        open_mode = not accounts_exist(db)
    with st.sidebar:
        _keep_cookie()
        if open_mode:
            st.warning(
                "**Open mode**: no accounts exist, so anyone can sign in with a name alone. "
                "Create accounts with `python -m core annotators add NAME` to require tokens."
            )
        if who:
            role = "open mode" if who.open_mode else who.role
            st.markdown(f"Signed in as **{escape_markdown(who.name)}** ({md(role)})")
            if st.button("Sign out", key="sign_out"):
                with database() as db:
                    sign_out(db, who)  # ends the session on the server
                _drop_sign_in()
                st.rerun()
            if who.open_mode and st.query_params.get("name") != who.name:
                st.query_params["name"] = who.name  # no secret: open mode has none
            return who
        with st.form("sign_in", clear_on_submit=True):
            st.markdown("**Sign in**")
            if open_mode:
                name = st.text_input("Annotator name", key="sign_in_name")
            else:
                name = ""
                st.caption(
                    "Open your personal link, or paste its token (from `python -m core "
                    "annotators add` or `annotators link`): a token works once."
                )
            token = st.text_input("Token", type="password", key="sign_in_code")
            if st.form_submit_button("Sign in"):
                try:
                    with database() as db:
                        if token.strip():
                            who, session_id = start_session_throttled(db, token.strip(), _client())
                            st.session_state["signed_in"] = (session_id, who)
                        else:
                            who = sign_in_open(db, name)
                            st.session_state["signed_in"] = ("", who)
                            st.query_params["name"] = who.name
                    st.rerun()
                except WorkbenchError as exc:
                    st.error(md(exc))
    if not open_mode:  # accounts exist: no page shows anything to a visitor without one
        st.info(SIGN_IN_FIRST)
        st.stop()
    return None


#: What every page shows a visitor who is not signed in once accounts exist (and nothing else).
SIGN_IN_FIRST = "Sign in in the sidebar with your personal link or token to see this page."


def require_annotator(role: str = "annotator") -> Annotator:
    """The signed-in annotator allowed to act as ``role``; otherwise a hint and stop the page."""
    who = sign_in_sidebar()
    if not who:
        st.info("Sign in in the sidebar (your personal token, or a name in open mode) first.")
        st.stop()
    if not who.may(role):
        st.error(f"This page needs the {md(role)} role; you are signed in as {md(who.role)}.")
        st.stop()
    return who
