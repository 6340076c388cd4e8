"""Page speed in a real browser on the demo database plus 100,000 stored verdicts.

1. The database: the key-free demo (``python -m core demo``; built once into the work folder, or
   ``--demo-db PATH``) plus synthetic auto-rater verdicts on the demo's own answer pairs until
   ``--verdicts`` (100,000) judgments are stored.
2. AppTest (no browser): every page's warm script run (``max_page_s``) and the leaderboard's
   recompute after a human verdict + its polling interval (``verdict_to_leaderboard_s``).
3. Headless Chromium (Playwright, ``/usr/bin/chromium``; never ``playwright install``) against
   ``streamlit run app.py``: its first visit, by a page's own URL (``/Leaderboard``: the
   server's first script run, which imports everything; ``first_visit_loading_s``: navigation
   start -> the page's "Loading Leaderboard..." line shown, ``first_visit_s``: -> title shown
   and the script idle; ``first_visit_floor_s``: the one-line page's own first visit, below);
   then, after its start-up warm-up
   (``app_support.warmup.warm_up``: the imports and the costliest default views, in the
   background; ``warm_up_s`` is how long it took; ``--no-warm-up`` serves without it): the first load of each page in a fresh browser
   context (page rendered and the script idle; ``first_load_max_s``: the slowest page's first load
   in this server; ``first_load_median_max_s``: the slowest page's median over ``--load-repeats``
   rounds of fresh contexts, each a new visitor; ``first_load_floor_s``: the median first load
   of a one-line Streamlit page served beside it, loaded between them: the framework's own
   floor on this machine; ``first_load_over_floor_s``: each page's median minus that floor, and
   ``pages_over_budget``: the pages over the issue's budget, floor + 0.8 s); every page's second
   visit in the same browser right after its first (a reload, the sign-in cookie and the
   server's caches warm: ``reruns_s``, ``rerun_max_s``); every one of the
   15 pages, signed in where it needs it, and a table of them all printed at the end;
   ``problems``: an exception a page showed, a script error in the browser, a traceback or
   Python warning in the server's log (expected empty); on Side by side, keyboard verdict (key
   ``1``..``4``) -> next item rendered and the script idle, for one annotator
   (``action_p50_s``, ``action_p95_s``) and for four annotators at once (``action_p95_4_s``;
   an action not confirmed within 120 s is listed in ``errors_4`` with what the page showed).
4. The tabs of Agreement and Leaderboard (only the open tab runs): each other tab opened by its
   link (``?section=...``) in a fresh context, counted as a first load, and by a click on its
   freshly loaded page: click -> the tab's content shown (sent by the rerun) and the script idle
   (``tab_click_max_s``).

Last line: one JSON object.

    .venv/bin/python benchmarks/app_pages.py [--verdicts 100000] [--actions 30] [--no-warm-up]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import quote_plus

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from core.annotation.identity import sign_in_open
from core.annotation.pairwise import blind_item, submit_verdict, verdict_queue
from core.store.connection import transaction, utcnow
from core.store.database import open_db
from core.views.sections import PAGE_SECTIONS
from scripts.served_app import CHROMIUM, IDLE_JS, STATE_JS, idle, open_idle, serve, stop

POLL_S = 2.0
PAGE_SLUGS = {
    "Overview": "",
    "Review questions": "Review_questions",
    "NarrativeQA disputes": "NarrativeQA_disputes",
    "Side by side": "Side_by_side",
    "Agreement": "Agreement",
    "Leaderboard": "Leaderboard",
    "Browse": "Browse",
    "Run": "Run",
    "EXAM": "EXAM",
    "Cross lingual": "Cross_lingual",
    "Adjudication": "Adjudication",
    "Team": "Team",
    "Rater validation": "Rater_validation",
    "Entities": "Entities",
    "Label": "Label",
}
#: Pages that need a signed-in person (open mode: a name in the link signs in).
SIGNED_IN = {
    "Review questions", "NarrativeQA disputes", "Side by side", "Run", "Adjudication",
    "Entities", "Label",
}  # fmt: skip
#: The issue's budget: a page's first load within the floor (a one-line page) + this.
BUDGET_OVER_FLOOR_S = 0.8
# the app's state in the browser: scripts/served_app.py (the names team_bench imports from here)
_IDLE_JS = IDLE_JS
_STATE_JS = STATE_JS
#: The open tab is the one named and its panel has content (a closed tab's panel is not in the
#: page and a newly opened one is empty until the script's rerun has sent its elements).
_TAB_SHOWN_JS = (
    '(name) => { const t = document.querySelector(\'[role="tab"][aria-selected="true"]\');'
    " const p = document.querySelector('[role=\"tabpanel\"]');"
    " return !!t && t.innerText.trim() === name && !!p && p.innerText.trim().length > 0; }"
)
_CHARTS_DRAWN_JS = (
    "() => [...document.querySelectorAll('[data-testid=\"stPlotlyChart\"]')]"
    ".every(c => !!c.querySelector('.main-svg'))"
)
#: Resolves once the browser's main thread is quiet: three 100 ms timers in a row each fire
#: less than 30 ms late (charts drawn, nothing left from the page load).
_SETTLED_JS = (
    "() => new Promise(done => { let quiet = 0; let last = performance.now();"
    " const tick = () => { const now = performance.now(); quiet = now - last < 130 ? quiet + 1 : 0;"
    " last = now; if (quiet >= 3) done(true); else setTimeout(tick, 100); };"
    " setTimeout(tick, 100); })"
)
#: Logs every change of the script state with the open panel's text length
#: (``window.__states``, shown when a tab does not show).
_WATCH_STATES_JS = (
    "() => { window.__states = []; const t0 = performance.now();"
    " const app = document.querySelector('[data-testid=\"stApp\"]');"
    " new MutationObserver(() => { const p = document.querySelector('[role=\"tabpanel\"]');"
    " window.__states.push([Math.round(performance.now() - t0),"
    " app.getAttribute('data-test-script-state'), p ? p.innerText.length : -1,"
    " location.search]); }).observe(app, {attributes: true}); }"
)
_PROGRESS_JS = (
    "() => { const p = document.querySelector('[data-testid=\"stProgress\"]');"
    " return p ? p.innerText : ''; }"
)


def demo_db(work: Path, given: str | None) -> Path:
    """A copy of the demo database (built with ``python -m core demo`` when not given)."""
    target = work / "bench.db"
    if given:
        src = open_db(given)  # checkpoints the WAL into the file
        src.conn.execute("pragma wal_checkpoint(truncate)")
        src.conn.close()
        shutil.copy(given, target)
        return target
    env = {**os.environ, "WORKBENCH_DB": str(target)}
    subprocess.run(
        [sys.executable, "-m", "core", "demo"],
        cwd=ROOT,
        env=env,
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    return target


def add_verdicts(path: Path, total: int) -> int:
    """Store auto-rater pairwise verdicts on the demo's answer pairs until ``total`` judgments
    exist; return how many were added."""
    db = open_db(path)
    have = db["judgments"].count
    pairs = list(
        db.execute(
            "select a.question_id, a.system, a.id, b.system, b.id from answers a join answers b "
            "on a.question_id = b.question_id and a.system < b.system "
            "where a.status = 'ok' and b.status = 'ok'"
        )
    )
    rng = random.Random(0)
    now = utcnow()

    def rows():
        for n in range(max(0, total - have)):
            q, s1, a1, s2, a2 = pairs[n % len(pairs)]
            flip = rng.random() < 0.5
            yield {
                "kind": "pairwise",
                "question_id": q,
                "rater": f"auto:bench-{n // len(pairs) % 4}",
                "rater_kind": "auto",
                "criterion": "better",
                "system_a": s2 if flip else s1,
                "system_b": s1 if flip else s2,
                "answer_a_id": a2 if flip else a1,
                "answer_b_id": a1 if flip else a2,
                "order_shown": "ba" if flip else "ab",
                "verdict": rng.choice(["A", "B", "B", "Equal"]),
                "status": "ok",
                "created_at": now,
            }

    with transaction(db):
        db["judgments"].insert_all(rows(), batch_size=5000)
    added = db["judgments"].count - have
    db.conn.close()
    return added


def comparisons(at) -> int:
    for m in at.markdown:
        found = re.search(r"(\d+) comparisons", m.value)
        if found:
            return int(found.group(1))
    raise RuntimeError("no leaderboard on the page: " + str([e.value for e in at.exception]))


def apptest_figures(path: Path, warm_runs: int) -> dict:
    """Warm script-run time of every page and the leaderboard's recompute after a verdict."""
    from streamlit.testing.v1 import AppTest  # reason: heavy, only for this part

    os.environ["WORKBENCH_DB"] = str(path)
    pages = sorted(f"pages/{p.name}" for p in (ROOT / "pages").glob("[0-9]*.py"))
    warm_max = 0.0
    for page in pages:
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=300).run()
        at.session_state["annotator"] = "bench"
        at.switch_page(page)
        at.run()
        if at.exception:
            raise SystemExit(f"{page}: {[e.value for e in at.exception]}")
        warm = []
        for _ in range(warm_runs):
            t = time.perf_counter()
            at.run()
            warm.append(time.perf_counter() - t)
        warm_max = max(warm_max, min(warm))
        print(f"apptest {page:34s} warm {min(warm):6.3f} s", flush=True)
    lb = AppTest.from_file(str(ROOT / "app.py"), default_timeout=300).run()
    lb.switch_page("pages/5_Leaderboard.py").run()
    before = comparisons(lb)
    db = open_db(path)
    key = verdict_queue(db, "bench")[0]
    submit_verdict(db, blind_item(db, key, "bench"), sign_in_open(db, "bench"), "A")
    db.conn.close()
    t = time.perf_counter()
    lb.run()
    recompute = time.perf_counter() - t
    if comparisons(lb) != before + 1:  # the verdict's pair may sit in another system group
        print("note: the verdict is not in the leaderboard's default group", flush=True)
    return {
        "max_page_s": round(warm_max, 3),
        "verdict_to_leaderboard_s": round(recompute + POLL_S, 2),
    }


def start_server(path: Path, log: Path, warm_up: bool = True) -> tuple[subprocess.Popen, str]:
    """``streamlit run app.py`` over ``path`` (``warm_up=False``: with ``WORKBENCH_WARM_UP=0``)."""
    env = {"WORKBENCH_DB": str(path), "WORKBENCH_WARM_UP": "1" if warm_up else "0"}
    return serve(env, log)


_WARM_UP_DONE = re.compile(r"warm-up done in ([0-9.]+) s")


def wait_warm_up(log: Path, timeout_s: float = 180) -> float:
    """Wait for the app's start-up warm-up (``app_support.warmup.warm_up``: imports and the
    costliest default views, in a background thread) to log that it is done; return the seconds
    it took."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        found = _WARM_UP_DONE.search(log.read_text(errors="replace"))
        if found:
            return float(found.group(1))
        time.sleep(0.2)
    raise SystemExit("the app's warm-up did not finish: " + log.read_text(errors="replace")[-2000:])


def server_rss_mb(pid: int) -> float | None:
    """The server's resident memory now (MB, Linux ``/proc``), None where unavailable."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    found = re.search(r"VmRSS:\s+(\d+) kB", status)
    return round(int(found.group(1)) / 1024, 1) if found else None


#: What went wrong on a page, as shown or thrown in the browser: "URL: what" (filled by
#: :func:`_open`; the run's ``problems``).
PROBLEMS: list[str] = []
_EXCEPTIONS_JS = (
    "() => Array.from(document.querySelectorAll('[data-testid=\"stException\"]'))"
    ".map(e => e.innerText.slice(0, 300))"
)


def _open(browser, url: str):
    """``url`` in a fresh browser context, waited for until its title shows and the script is
    idle: ``(context, page, seconds taken)``. An exception the page shows or a script error in
    the browser is added to :data:`PROBLEMS`."""
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    page.on("pageerror", lambda exc: PROBLEMS.append(f"{url}: browser error {exc}"))
    t = time.perf_counter()
    open_idle(page, url)
    took = round(time.perf_counter() - t, 3)
    PROBLEMS.extend(f"{url}: shown exception {e!r}" for e in page.evaluate(_EXCEPTIONS_JS))
    return context, page, took


def _rerun(page) -> float:
    """The page's second visit in the same browser (a reload: the sign-in cookie and the
    server's caches warm): reload -> title shown and script idle, in seconds."""
    t = time.perf_counter()
    page.reload()
    page.locator("h1").first.wait_for(timeout=120_000)
    idle(page)
    return round(time.perf_counter() - t, 3)


def _first_load(browser, url: str, reruns: dict[str, float] | None = None) -> float:
    """``url``'s load in a fresh context; with ``reruns``, its rerun too (keyed by the URL)."""
    context, page, took = _open(browser, url)
    if reruns is not None:
        reruns[url] = _rerun(page)
    context.close()
    return took


def page_urls(base: str) -> dict[str, str]:
    """Every page (signed in where it needs it), then each later tab of Agreement and
    Leaderboard by its link."""
    urls = {
        name: f"{base}/{slug}" + ("?name=bench-view" if name in SIGNED_IN else "")
        for name, slug in PAGE_SLUGS.items()
    }
    for name, tabs in PAGE_SECTIONS.items():
        for tab in tabs[1:]:
            urls[f"{name} / {tab}"] = f"{base}/{PAGE_SLUGS[name]}?section={quote_plus(tab)}"
    return urls


FLOOR_APP = 'import streamlit as st\n\nst.title("Floor")\nst.write("One line of text.")\n'
FLOOR = "(floor: a one-line Streamlit page)"


def first_loads(
    browser, base: str, repeats: int, floor: str | None
) -> tuple[dict[str, list[float]], dict[str, float]]:
    """Each page (and each later tab, by its link) opened in a fresh context, ``repeats`` rounds
    (the first round is each page's first load in this server, the later ones a new visitor's
    load with the server's caches warm): navigation start -> title shown and script idle; in
    the first round each page's second visit too (:func:`_rerun`). ``floor``: the URL of a one-line
    Streamlit page (the framework's own first load on this machine), loaded at the start,
    middle and end of every round (key :data:`FLOOR`). Returns (loads, reruns) by page name."""
    out: dict[str, list[float]] = {}
    reruns: dict[str, float] = {}
    urls = list(page_urls(base).items())
    for round_ in range(repeats):
        for n, (name, url) in enumerate(urls):
            if floor and n in (0, len(urls) // 2, len(urls) - 1):
                out.setdefault(FLOOR, []).append(_first_load(browser, floor))
            by_url: dict[str, float] | None = {} if round_ == 0 else None
            out.setdefault(name, []).append(_first_load(browser, url, by_url))
            if by_url is not None:
                reruns[name] = by_url[url]
            print(
                f"{'first load' if round_ == 0 else 'next visit'} {name:34s} "
                f"{out[name][-1]:6.3f} s" + (f"   rerun {reruns[name]} s" if round_ == 0 else ""),
                flush=True,
            )
    return out, reruns


def server_log_problems(log: Path) -> list[str]:
    """Tracebacks and Python warnings the server logged (the first line of each)."""
    lines = log.read_text(errors="replace").splitlines()
    found = re.compile(r"Traceback \(most recent call last\)|\w+Warning\b|Exception\b")
    return [line.strip()[:300] for line in lines if found.search(line)]


def page_table(loads: dict[str, list[float]], reruns: dict[str, float], floor: float) -> None:
    """Print each page's first load, median load, second visit and how far the median is over
    the floor, marking a page over the budget (floor + :data:`BUDGET_OVER_FLOOR_S`)."""
    print(f"{'page':44s} {'first':>7s} {'median':>7s} {'again':>7s} {'over floor':>10s}")
    for name, values in loads.items():
        over = statistics.median(values) - floor
        rerun = reruns.get(name)
        print(
            f"{name:44s} {values[0]:7.3f} {statistics.median(values):7.3f} "
            f"{'-' if rerun is None else f'{rerun:7.3f}':>7s} {over:+10.3f}"
            + ("  OVER BUDGET" if over > BUDGET_OVER_FLOOR_S else ""),
            flush=True,
        )


#: The page opened by its own URL as the app server's first visit (its loading state measured).
FIRST_VISIT = "Leaderboard"
#: Milliseconds from navigation start until the main pane first showed "Loading <page>"
#: (``window.__loadingAt``), watched from the page's first byte.
_LOADING_AT_JS = (
    "(page) => { window.__loadingAt = null; new MutationObserver(() => {"
    " const m = document.querySelector('[data-testid=\"stMain\"]');"
    " if (window.__loadingAt === null && m && m.innerText.includes('Loading ' + page))"
    " window.__loadingAt = performance.now(); })"
    ".observe(document, {subtree: true, childList: true, characterData: true}); }"
)


def first_visit(browser, url: str, page_name: str | None) -> dict[str, float | None]:
    """A server's first visit (its first script run: the imports), in a fresh context:
    navigation start -> the page's loading line shown (``loading_s``; ``page_name`` None: not
    watched) and -> title shown and script idle (``idle_s``)."""
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    if page_name is not None:
        page.add_init_script(f"({_LOADING_AT_JS})({json.dumps(page_name)})")
    t = time.perf_counter()
    open_idle(page, url, timeout_s=180)
    idle_s = round(time.perf_counter() - t, 3)
    at = page.evaluate("() => window.__loadingAt") if page_name is not None else None
    context.close()
    print(
        f"first visit {url}: loading line at {'-' if at is None else f'{at / 1000:.3f}'} s,"
        f" idle at {idle_s:.3f} s",
        flush=True,
    )
    return {"loading_s": None if at is None else round(at / 1000, 3), "idle_s": idle_s}


def start_floor_server(work: Path) -> tuple[subprocess.Popen, str]:
    """``streamlit run`` of :data:`FLOOR_APP` (Streamlit's defaults) on a free loopback port."""
    folder = work / "floor_app"
    folder.mkdir(exist_ok=True)
    (folder / "app.py").write_text(FLOOR_APP)
    return serve({}, work / "floor.log", folder)


def tab_clicks(browser, base: str) -> dict[str, float]:
    """Each later tab opened by a click, on its page freshly loaded and fully drawn (charts
    included, and the browser's main thread quiet, so the time is not the first tab's drawing):
    click -> the clicked tab open, its content shown (sent by the script's rerun) and the script
    idle."""
    out = {}
    for name, tabs in PAGE_SECTIONS.items():
        for tab in tabs[1:]:
            context, page, _ = _open(browser, f"{base}/{PAGE_SLUGS[name]}")
            page.wait_for_function(_CHARTS_DRAWN_JS, timeout=120_000)
            page.evaluate(_SETTLED_JS)
            page.evaluate(_WATCH_STATES_JS)
            t = time.perf_counter()
            page.get_by_role("tab", name=tab, exact=True).click()
            try:
                page.wait_for_function(
                    f"(name) => ({_TAB_SHOWN_JS})(name) && ({_IDLE_JS})()",
                    arg=tab,
                    timeout=60_000,
                )
            except Exception as exc:
                states = page.evaluate("() => window.__states")
                shown = page.evaluate(
                    "() => { const p = document.querySelector('[role=\"tabpanel\"]');"
                    " return p ? p.innerText.slice(0, 300) : null; }"
                )
                raise SystemExit(
                    f"{name} / {tab}: the tab did not show after a click: script states "
                    f"{states}, panel {shown!r}"
                ) from exc
            label = f"{name} / {tab}"
            out[label] = round(time.perf_counter() - t, 3)
            print(f"tab click  {label:34s} {out[label]:6.3f} s", flush=True)
            context.close()
    return out


def sign_in(page, base: str, name: str) -> None:
    page.goto(f"{base}/Side_by_side")
    page.get_by_label("Annotator name").fill(name)
    page.get_by_role("button", name="Sign in").click()
    page.get_by_role("heading", name="Answer A").first.wait_for(timeout=120_000)
    idle(page)


def _done(page) -> int:
    found = re.search(r"(\d+) of", page.evaluate(_PROGRESS_JS) or "")
    return int(found.group(1)) if found else -1


_SHOWN_JS = (
    '() => Array.from(document.querySelectorAll(\'[data-testid="stAlert"],'
    ' [data-testid="stException"]\')).map(e => e.innerText.slice(0, 300))'
)


def keyboard_actions(
    base: str,
    name: str,
    n: int,
    out: list[float],
    start: threading.Barrier | None,
    errors: list[str] | None = None,
) -> None:
    """``n`` keyboard verdicts on Side by side: key press -> progress shows one more done, the
    next item is rendered and the script is idle. An action not confirmed within 120 s is an
    error (appended to ``errors`` with the progress and the messages the page showed; the page
    is then reloaded and the next action made); without ``errors`` it raises."""
    from playwright.sync_api import sync_playwright  # reason: optional browser dependency

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True)
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        sign_in(page, base, name)
        if start is not None:
            start.wait()
        rng = random.Random(name)
        for k in range(n):
            page.locator("h1").first.click()  # focus on the page, not an input
            before = _done(page)
            t = time.perf_counter()
            key = rng.choice("1234")
            page.keyboard.press(key)
            try:
                page.wait_for_function(
                    f"() => {{ const m = ({_PROGRESS_JS})().match(/(\\d+) of/);"
                    f" return m && Number(m[1]) > {before}; }}",
                    timeout=120_000,
                )
                page.get_by_role("heading", name="Answer A").first.wait_for(timeout=120_000)
                idle(page)
            except Exception as exc:  # reason: playwright's TimeoutError; report, go on
                if errors is None:
                    raise
                shown = page.evaluate(_SHOWN_JS)
                progress = page.evaluate(_PROGRESS_JS)
                errors.append(
                    f"{name} action {k + 1} (key {key}, {before} done before): not confirmed "
                    f"({type(exc).__name__}); progress {progress!r}; page showed {shown}"
                )
                print("error:", errors[-1], flush=True)
                page.reload()
                page.get_by_role("heading", name="Answer A").first.wait_for(timeout=120_000)
                idle(page)
                continue
            out.append(time.perf_counter() - t)
        browser.close()


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[max(0, round(0.95 * (len(ordered) - 1)))]


def browser_figures(path: Path, work: Path, actions: int, warm_up: bool, load_repeats: int) -> dict:
    from playwright.sync_api import sync_playwright  # reason: optional browser dependency

    log = work / "streamlit.log"
    proc, base = start_server(path, log, warm_up)
    floor_proc, floor = start_floor_server(work)
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True)
            # each server's first script run imports everything: the app's is a page's URL
            visit = first_visit(browser, f"{base}/{FIRST_VISIT}", FIRST_VISIT)
            floor_visit = first_visit(browser, floor, None)
            browser.close()
        warm_up_s = wait_warm_up(log) if warm_up else None
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True)
            # the browser's own start (its first navigation) is not a page's: one plain-text
            # request first, in a context of its own (no app script or style is fetched)
            spare = browser.new_context()
            spare.new_page().goto(f"{base}/_stcore/health")
            spare.close()
            loads, reruns = first_loads(browser, base, load_repeats, floor)
            page_table(  # now, not after the keyboard actions: a failure there keeps it
                {k: v for k, v in loads.items() if k != FLOOR},
                reruns,
                statistics.median(loads[FLOOR]),
            )
            clicks = tab_clicks(browser, base)
            browser.close()
        one: list[float] = []
        keyboard_actions(base, "bench-solo", actions, one, None)
        print(
            f"one annotator: p50 {statistics.median(one):.3f} s, p95 {p95(one):.3f} s", flush=True
        )
        four: list[float] = []
        four_errors: list[str] = []
        barrier = threading.Barrier(4)
        threads = [
            threading.Thread(
                target=keyboard_actions,
                args=(base, f"bench-{i}", actions, four, barrier, four_errors),
            )
            for i in range(4)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        print(
            f"four annotators: p50 {statistics.median(four):.3f} s, p95 {p95(four):.3f} s",
            flush=True,
        )
        rss_mb = server_rss_mb(proc.pid)
    finally:
        for server in (proc, floor_proc):
            stop(server)
    floor_loads = loads.pop(FLOOR)
    floor_s = statistics.median(floor_loads)
    over = {k: round(statistics.median(v) - floor_s, 3) for k, v in loads.items()}
    problems = PROBLEMS + server_log_problems(log)
    for problem in problems:
        print("problem:", problem, flush=True)
    return {
        "pages": len(PAGE_SLUGS),
        "first_visit_loading_s": visit["loading_s"],
        "first_visit_s": visit["idle_s"],
        "first_visit_floor_s": floor_visit["idle_s"],
        "first_load_over_floor_max_s": max(over.values()),
        "first_load_over_floor_s": over,
        "pages_over_budget": sorted(k for k, v in over.items() if v > BUDGET_OVER_FLOOR_S),
        "rerun_max_s": max(reruns.values()),
        "reruns_s": reruns,
        "problems": problems,
        "action_p50_s": round(statistics.median(one), 3),
        "action_p95_s": round(p95(one), 3),
        "action_p95_4_s": round(p95(four), 3) if four else None,
        "errors_4": four_errors,
        "warm_up_s": warm_up_s,
        "first_load_max_s": max(v[0] for v in loads.values()),
        "first_loads_s": {k: v[0] for k, v in loads.items()},
        "first_load_median_max_s": max(statistics.median(v) for v in loads.values()),
        "first_loads_median_s": {k: statistics.median(v) for k, v in loads.items()},
        "first_load_floor_s": floor_s,
        "tab_click_max_s": max(clicks.values()),
        "tab_clicks_s": clicks,
        "server_rss_mb": rss_mb,
        "n_actions": len(one),
        "n_actions_4": len(four),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--demo-db", help="an existing demo database (copied, not changed)")
    parser.add_argument("--verdicts", type=int, default=100_000)
    parser.add_argument("--actions", type=int, default=30)
    parser.add_argument("--warm-runs", type=int, default=2)
    parser.add_argument(
        "--load-repeats",
        type=int,
        default=3,
        help="rounds of fresh-context loads of every page (the first is each page's first)",
    )
    parser.add_argument("--skip-apptest", action="store_true")
    parser.add_argument(
        "--no-warm-up",
        action="store_true",
        help="serve with WORKBENCH_WARM_UP=0: first loads pay the imports and default views",
    )
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench_app_"))
    t = time.perf_counter()
    path = demo_db(work, args.demo_db)
    added = add_verdicts(path, args.verdicts)
    print(f"demo database + {added:,} verdicts in {time.perf_counter() - t:.1f} s", flush=True)
    result: dict = {}
    if not args.skip_apptest:
        result.update(apptest_figures(path, args.warm_runs))
    result.update(
        browser_figures(
            path, work, args.actions, warm_up=not args.no_warm_up, load_repeats=args.load_repeats
        )
    )
    result["judgments"] = args.verdicts
    print(json.dumps(result))


if __name__ == "__main__":
    main()
