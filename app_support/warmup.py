"""The start-up warm-up: once per server process, in a background thread, import what the pages
load on first use and compute the costliest default views through the pages' own caches. Also
the defaults those views use (the pages' widgets start on them)."""

from __future__ import annotations

import gc
import os
import threading
import time

import streamlit as st
from streamlit.logger import get_logger
from streamlit.runtime.scriptrunner import add_script_run_ctx, get_script_run_ctx

from app_support.caching import (
    cached_answers_each,
    cached_judgments,
    cached_view,
    live_leaderboard,
)
from app_support.connection import db_path, served
from core.annotation.pairwise import identical_items, pairwise_items, split_pair_key
from core.annotation.task_names import SIDE_BY_SIDE_TASK
from core.store.database import opened, postgres_url
from core.store.engine import Database
from core.store.planner import optimize
from core.views.evidence_panel import warm_indexes
from core.views.figures import agreement_overview
from core.views.gold import gold_agreement, gold_size, people_agreement
from core.views.leaderboard import PAGE_RANKING, pairwise_raters
from core.views.preload import preload
from core.views.rater_epsilon import stored_choice
from core.views.rater_report.assemble import first_task, report_for_choice, report_tasks
from core.views.rater_report.needed import rater_needed_for_choice
from core.views.team import team_view

#: What the pages show first (their widgets' defaults), also computed by the start-up warm-up.
AGREEMENT_KIND = "pairwise"
GOLD_TASK = SIDE_BY_SIDE_TASK
LEADERBOARD_SOURCE = "both"

_log = get_logger(__name__)  # Streamlit's logger: its lines reach the server's log


def warm_views(db: Database) -> None:
    """Compute, through the same caches the pages use, the default views whose first computation
    reads every judgment: Agreement's first tab (the rater pairs and the gold block), the live
    leaderboard's default board (and its rater list), the Team page's table and the Rater
    validation page's report (the alt-test for every auto-rater, at the task's remembered
    epsilon, and the items-needed simulation of the rater its first tab shows). And Side by
    side's items and the BM25 indexes of their documents (:func:`warm_indexes`): otherwise the
    label that first shows a document's item builds its index (issue 37)."""
    cached_judgments(db, agreement_overview, AGREEMENT_KIND)
    for fn in (people_agreement, gold_size, gold_agreement):
        cached_view(db, fn, GOLD_TASK)
    cached_view(db, team_view, GOLD_TASK)
    cached_judgments(db, pairwise_raters, LEADERBOARD_SOURCE)
    live_leaderboard(db, LEADERBOARD_SOURCE, None, PAGE_RANKING)
    rater_task = first_task(cached_judgments(db, report_tasks))
    choice = stored_choice(db, rater_task).text
    report = cached_view(db, report_for_choice, choice, rater_task, False)
    for sec in report["raters"][:1]:  # the simulation of the tab the page opens on
        cached_view(db, rater_needed_for_choice, choice, rater_task, sec["rater"])
    items, _ = cached_answers_each(db, pairwise_items, identical_items)
    warm_indexes(db, dict.fromkeys(split_pair_key(key)[0] for key in items))


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
        if postgres_url(path) is not None or os.path.exists(path):  # a URL: no file to check
            with opened(path) as db:
                warm_views(db)
                # the views read every judgment: the planner's statistics for those tables are
                # made now, at start-up, rather than by the first page run that closes
                optimize(db)
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
    if served() and os.environ.get("WORKBENCH_WARM_UP", "1") != "0":
        _warm_up_thread(db_path())
