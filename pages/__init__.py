"""Shared Streamlit helpers of the pages (Streamlit does not list ``__init__.py`` as a page).

Connection per script run (``database()``), the sidebar sign-in, cached reads keyed on what
changed, and safe rendering of untrusted text. Logic lives in ``core``; this is presentation only.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import importlib
import os
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import urlencode, urlsplit

import streamlit as st
from streamlit import runtime
from streamlit.logger import get_logger
from streamlit.runtime.pages_manager import PagesManager
from streamlit.runtime.scriptrunner import add_script_run_ctx, get_script_run_ctx

from core.annotation.identity import (
    Annotator,
    authorise,
    resume_session,
    sign_in_open,
    sign_out,
)
from core.annotation.throttle import start_session_throttled
from core.errors import DatabaseFileError, WorkbenchError
from core.stats.agreement import KAPPA_CI_MIN_ITEMS
from core.stats.ranking_settings import RankingSettings
from core.store.accounts import accounts_exist
from core.store.connection import default_db_path
from core.store.database import open_db, opened
from core.store.fingerprints import answers_fingerprint, data_version, judgments_version
from core.store.settings import url_setting
from core.views.evidence_panel import evidence_passages, evidence_query, passage_window
from core.views.figures import agreement_overview
from core.views.gold import LEAVE_ONE_OUT, gold_agreement, gold_size, people_agreement
from core.views.gold import MIN_ITEMS as GOLD_MIN_ITEMS
from core.views.guidelines import task_guideline
from core.views.judgments import evidence_table
from core.views.leaderboard import PAGE_RANKING, LiveLeaderboard, LiveResult, pairwise_raters
from core.views.preload import preload
from core.views.rater_report.assemble import report_data
from core.views.review import searchable_documents
from core.views.team import team_view
from core.views.text import escape_markdown, inert_table, md, split_code_blocks

EMPTY_HINT = (
    "The database is empty. Build the key-free demo with `make run` (or "
    "`python -m core demo`), or import data with `python -m core import ...`."
)


#: What the pages show first (their widgets' defaults), also computed by the start-up warm-up.
AGREEMENT_KIND = "pairwise"
GOLD_TASK = "side-by-side"
LEADERBOARD_SOURCE = "both"

_log = get_logger(__name__)  # Streamlit's logger: its lines reach the server's log


def _served() -> bool:
    """True in a served app (``streamlit run``), False under AppTest (a stand-in runtime)."""
    return runtime.exists() and type(runtime.get_instance()) is runtime.Runtime


def db_path() -> str:
    """The database path (``$WORKBENCH_DB`` or ``data/workbench.db``)."""
    return str(default_db_path())


@contextlib.contextmanager
def database() -> Iterator[Any]:
    """A migrated connection for this script run, closed afterwards. A missing or broken
    database file stops the page with its one-line reason (the app never creates one)."""
    try:
        db = open_db(db_path(), create=False)
    except DatabaseFileError as exc:
        st.error(md(exc))
        st.stop()
    try:
        yield db
    finally:
        db.conn.close()


def _through_app_navigation() -> None:
    """Run a page opened by its own URL through ``app.py``'s navigation.

    Streamlit starts in its older folder mode when ``pages/`` sits next to ``app.py``: until some
    script calls ``st.navigation``, a page opened directly (``/Agreement``) runs without
    ``app.py`` and the sidebar lists the folder's files plus an "app" entry. Such a run turns the
    folder mode off (it is process-wide: no later session sees it) and reruns, now through
    ``app.py``, which opens the same page from the URL.
    """
    # Only in a served app: AppTest (a stand-in runtime) sets the flag again before each run.
    if PagesManager.uses_pages_directory and _served():
        PagesManager.uses_pages_directory = False
        st.rerun()


def setup(title: str) -> None:
    """Page config and title (and, once per server process, the warm-up: :func:`warm_up`)."""
    _through_app_navigation()
    warm_up()
    st.set_page_config(page_title=f"{title} - Long-Span QA Workbench", layout="wide")
    st.title(md(title))


# ------------------------------------------------------------------------------------------
# Sign-in
# ------------------------------------------------------------------------------------------


#: The browser cookie that holds the session id (set and cleared by :func:`_cookie`).
SESSION_COOKIE = "workbench_session"
#: Runs in the page (st.html, not an iframe), so ``document.cookie`` is the app's origin's. The
#: value is a URL-safe random id made by core, or empty: nothing from the data reaches it.
_COOKIE_JS = '<script data-workbench="cookie">document.cookie = "{name}={value}; path=/; SameSite=Strict{extra}";</script>'
_COOKIE_DAYS = 30


def _handshake_cookie() -> str:
    """The session cookie the browser sent when this page was (re)loaded ("" if none, and
    under AppTest, whose stand-in client has no cookies)."""
    if not _served():
        return ""
    value = st.context.cookies.get(SESSION_COOKIE)
    return value if isinstance(value, str) else ""


def _cookie(value: str | None) -> None:
    """Set the session cookie to ``value`` (None: clear it). Not HttpOnly (a script sets it)."""
    if not _served():
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


def current_annotator(db) -> Annotator | None:
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
            st.session_state["signed_in"] = ("", sign_in_open(db, name))
            return st.session_state["signed_in"][1]
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


def run_page(navigation: Any, reraise: bool | None = None) -> None:
    """Run the navigation's page; an error shows one plain message (no traceback, no server
    path) and is logged with its traceback. ``reraise`` (default: under AppTest) raises it again,
    so tests see every failure."""
    try:
        navigation.run()
    except Exception:  # reason: no traceback to visitors; st.stop/st.rerun are BaseException
        ref = hashlib.sha256(f"{time.time_ns()}".encode()).hexdigest()[:8]
        _log.exception("page failed (reference %s)", ref)
        if (not _served()) if reraise is None else reraise:
            raise
        st.error(f"This page failed. The details are in the server's log (reference {md(ref)}).")


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
    return _cached(db_path(), judgments_version(db), _ref(fn), tuple(args))


def cached_answers(db, fn: Callable[..., Any], *args: Any) -> Any:
    """Like :func:`cached_view` but keyed on the answers only (a verdict does not invalidate)."""
    return _cached(db_path(), answers_fingerprint(db), _ref(fn), tuple(args))


@st.cache_resource(show_spinner=False, max_entries=32)
def _live_board(path: str, file_id: tuple, source: str, rater: str | None) -> LiveLeaderboard:
    """One thread-safe incremental leaderboard per database file, verdict source and rater."""
    return LiveLeaderboard(source, rater)


def live_leaderboard(
    db, source: str, rater: str | None, settings: RankingSettings, group: str | None = None
) -> LiveResult:
    """The live leaderboard of one system group (default: the largest); reads only new judgments."""
    path = db_path()
    try:
        st_ = os.stat(path)
        file_id = (st_.st_dev, st_.st_ino)
    except OSError:
        file_id = ()
    return _live_board(path, file_id, source, rater).view(db, settings, group)


# ------------------------------------------------------------------------------------------
# Warm-up: once per server process, the imports and the costliest first views, in the background
# ------------------------------------------------------------------------------------------


def warm_views(db) -> None:
    """Compute, through the same caches the pages use, the default views whose first computation
    reads every judgment: Agreement's first tab (the rater pairs and the gold block), the live
    leaderboard's default board (and its rater list), the Team page's table and the Rater
    validation page's report (the alt-test and its simulation for every auto-rater)."""
    cached_judgments(db, agreement_overview, AGREEMENT_KIND)
    for fn in (people_agreement, gold_size, gold_agreement):
        cached_view(db, fn, GOLD_TASK)
    cached_view(db, team_view, GOLD_TASK)
    cached_judgments(db, pairwise_raters, LEADERBOARD_SOURCE)
    live_leaderboard(db, LEADERBOARD_SOURCE, None, PAGE_RANKING)
    cached_view(db, report_data)


def _warm_up(path: str) -> None:
    started = time.perf_counter()
    for line in preload():
        _log.warning("warm-up: not imported: %s", line)
    # The modules now loaded live as long as the process: move them out of the garbage
    # collector's sight (gc.freeze), so a full collection no longer walks them (about 0.25 s each
    # on 2 cores, and Python starts one on its own when enough objects were allocated).
    gc.collect()
    gc.freeze()
    try:
        if os.path.exists(path):
            with opened(path) as db:
                warm_views(db)
    except Exception:  # reason: a warm-up failure must not stop the app; the page shows it
        _log.exception("warm-up: a default view failed (its page will compute it on visit)")
    _log.info("warm-up done in %.2f s", time.perf_counter() - started)


@st.cache_resource(show_spinner=False)
def _warm_up_thread(path: str) -> threading.Thread:
    thread = threading.Thread(target=_warm_up, args=(path,), name="workbench-warm-up", daemon=True)
    add_script_run_ctx(thread, get_script_run_ctx())  # the caches need a script context
    thread.start()
    return thread


def warm_up() -> None:
    """Start, once per server process and database, a background thread that imports what the
    pages load on first use (:func:`core.views.preload.preload`) and computes
    :func:`warm_views`: so the first visit to a page after the server started does not pay for
    them. Off under AppTest and with ``WORKBENCH_WARM_UP=0``."""
    if _served() and os.environ.get("WORKBENCH_WARM_UP", "1") != "0":
        _warm_up_thread(db_path())


# ------------------------------------------------------------------------------------------
# Safe rendering of untrusted text
# ------------------------------------------------------------------------------------------


def untrusted(text: str, label: str | None = None) -> None:
    """Render untrusted text (a book passage, a model answer): its prose as escaped Markdown,
    its fenced code blocks verbatim as code (``st.code``, long lines wrapped), in order."""
    if label:
        st.caption(escape_markdown(label))
    segments = split_code_blocks(text) if text else []
    if not segments:
        st.markdown("*(empty)*")
    for seg in segments:
        if seg.kind == "code":
            st.code(seg.text, language=seg.language, wrap_lines=True)
        else:
            st.markdown(escape_markdown(seg.text))


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


# ------------------------------------------------------------------------------------------
# Agreement with gold (the Team and the Agreement page)
# ------------------------------------------------------------------------------------------


def gold_block(db, task: str = "side-by-side") -> None:
    """Agreement between people (pairwise kappa) and of every rater with gold, with intervals."""
    st.subheader("Agreement between people and with gold")
    pairs = cached_view(db, people_agreement, task)
    st.markdown("**Between people**: Cohen's kappa over the items both labelled.")
    if len(pairs):
        st.table(inert_table(pairs))
    else:
        st.caption("No two people have labelled the same items yet.")
    n_gold = cached_view(db, gold_size, task)
    st.markdown(
        f"**With gold**: {md(n_gold)} {md(task)} item(s) have a gold label (the adjudicated label, "
        "else the gold sources' label, else the label of more than half, and at least two, of the "
        "people). " + LEAVE_ONE_OUT
    )
    table = cached_view(db, gold_agreement, task)
    if len(table):
        st.table(inert_table(table))
    st.caption(
        f"Cohen's kappa with a 95% large-sample interval (from {KAPPA_CI_MIN_ITEMS} items on); "
        f"fewer than {GOLD_MIN_ITEMS} shared items: too few items."
    )


# ------------------------------------------------------------------------------------------
# Decision screens: guideline, evidence beside the answers, keys, deep links, scroll to top
# ------------------------------------------------------------------------------------------


def guideline(task: str, expanded: bool = False) -> None:
    """The task's guideline (``guidelines/<task>.md``, the project's own Markdown)."""
    with st.expander("Guidelines", expanded=expanded):
        st.markdown(md(task_guideline(task)))  # project Markdown: md() keeps it as written


def short(text: str, n: int = 80) -> str:
    """``text`` cut to ``n`` characters (with an ellipsis), for confirmations and pickers."""
    text = " ".join((text or "").split())
    return text if len(text) <= n else text[: n - 1] + "…"


def evidence_beside(db, question_id: str, question: str, answers: list[str], key: str) -> bool:
    """The passages most relevant to the question and the answers (BM25), matched words in
    bold, each with a *Read further* expander that pages through the neighbouring passages.
    An item without a source document gets one line saying so; False then (nothing to search)."""
    hits = cached_answers(db, evidence_passages, question_id, question, tuple(answers))
    if not hits and not searchable_documents(db, question_id):  # e.g. imported PRD answers
        st.caption("This item has no source document.")
        return False
    st.markdown("**Evidence** (best BM25 passages for the question and the answers)")
    if not hits:
        st.caption("No passage of the source shares a word with the question or the answers.")
        return True
    query = evidence_query(question, answers)
    for n, hit in enumerate(hits):
        st.caption(
            f"{escape_markdown(hit['document'])} · passage {md(hit['idx'])} of "
            f"{md(hit['n_passages'])} · BM25 {md(hit['score'])}"
        )
        highlighted(hit["markdown"])
        key_base = f"{key}_further_{n}_{hit['document_id']}_{hit['position']}"
        # a toggle, not an expander: the neighbours are read and rendered only when asked for
        if st.toggle(f"Read further around passage {md(hit['idx'])}", key=f"{key_base}_on"):
            pos = st.number_input(
                "Passage (previous / next with - / +)",
                min_value=0,
                max_value=hit["n_passages"] - 1,
                value=hit["position"],
                step=1,
                key=key_base,
            )
            window = passage_window(db, hit["document_id"], int(pos), query, radius=1)
            with st.container(border=True):
                for p in window["passages"]:
                    st.caption(
                        f"Full text, passage {md(p['idx'])}"
                        + (" (this one)" if p["centre"] else "")
                    )
                    highlighted(p["markdown"])
    return True


def deep_link_id() -> str | None:
    """The question id of a deep link ``?q=QUESTION_ID`` (None when absent)."""
    value = st.query_params.get("q")
    return str(value) if value else None


def app_base_url() -> str:
    """The app's address for links: the ``base_url`` setting, else the browser's own origin."""
    with database() as db:
        configured = url_setting(db, "base_url")
    if configured:
        return configured
    parts = urlsplit(st.context.url or "")
    return f"{parts.scheme}://{parts.netloc}" if parts.scheme and parts.netloc else ""


def share_link(page: str, question_id: str) -> None:
    """A copyable, absolute deep link to ``question_id`` on ``page`` (no secret: the sign-in is
    the reader's own; the code block has a copy button)."""
    st.caption("Link to this item")
    st.code(f"{app_base_url()}/{page}?{urlencode({'q': question_id})}", language=None)


# Runs in the page (not an iframe) so it can scroll Streamlit's main container; the marker is
# a hex digest, so nothing from the data reaches the script.
_SCROLL_TOP = (
    '<script data-workbench="scroll" data-item="{marker}">'
    "for (const el of [window.parent.document.querySelector('[data-testid=\"stMain\"]'),"
    " window.parent.document.querySelector('section.main'), document.scrollingElement]) "
    "{{ if (el) {{ el.scrollTop = 0; }} }} window.scrollTo(0, 0);"
    "</script>"
)


def scroll_to_top(item_key: str) -> None:
    """After a submit: bring the page back to the top so the next item's question is in view."""
    marker = hashlib.sha256(item_key.encode("utf-8")).hexdigest()[:16]
    st.html(_SCROLL_TOP.format(marker=marker), unsafe_allow_javascript=True)


#: Shown under a decision page's text boxes (Streamlit ignores shortcut keys typed in them).
TYPING_HINT = "Shortcut keys are off while typing here: press Esc (or Tab) to leave the box."
#: Shown under a checklist of radio buttons chosen with the keyboard.
CHOICE_HINT = "With the keyboard: Tab to a question, arrows to choose, Esc to use the keys again."

# Runs in the page (not an iframe), once per browser tab. Streamlit ignores shortcut keys while
# an input has the focus, a radio button or a checkbox included: after a click on one of those
# (a keyboard user keeps the focus, to move on with Tab and the arrows), or Esc in any input,
# the focus leaves the control so the keys work again. Constant text, no data.
_KEYS_BACK = (
    "<script data-workbench='keys'>if (!window.__workbenchKeys) {"
    " window.__workbenchKeys = true; let pointer = 0;"
    " const isInput = (t) => t && ['INPUT', 'TEXTAREA', 'SELECT'].includes(t.tagName);"
    " const isChoice = (t) => isInput(t) && (t.type === 'radio' || t.type === 'checkbox');"
    " document.addEventListener('pointerdown', () => { pointer = Date.now(); }, true);"
    " document.addEventListener('click', () => { if (Date.now() - pointer < 2000) {"
    " setTimeout(() => { const a = document.activeElement; if (isChoice(a)) { a.blur(); } },"
    " 50); } }, true);"
    " document.addEventListener('keydown', (e) => {"
    " if (e.key === 'Escape' && isInput(e.target)) { e.target.blur(); } }, true); }</script>"
)


def keys_after_choices() -> None:
    """Keep a decision page's shortcut keys working after a click on a radio button or a
    checkbox, and let Esc leave a text box (see :data:`TYPING_HINT`)."""
    st.html(_KEYS_BACK, unsafe_allow_javascript=True)
