"""What the real-browser tests share: the browser requirement, a loopback port, polling,
``streamlit run app.py`` over a database, started and stopped in one place, and the waits on a
page (a finished script run, a sidebar move, a sign-in)."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from app_support.signin import SESSION_COOKIE
from scripts import served_app

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"


def scaled(seconds: float) -> float:
    """``seconds`` stretched for a busy machine: times ``BROWSER_WAIT_SCALE`` when set, else
    times the 1-minute load average per core, clamped to [1, 4]. Only the bound of a wait on a
    condition is scaled (a passing test never sleeps it out); nothing waits a fixed time."""
    if factor := os.environ.get("BROWSER_WAIT_SCALE"):
        return seconds * float(factor)
    try:
        load = os.getloadavg()[0] / (os.cpu_count() or 1)
    except OSError:  # no load average on this platform
        load = 1.0
    return seconds * min(4.0, max(1.0, load))


STARTUP_S = scaled(180)
#: The bound of one wait on a page (a script run, a navigation, a locator): generous, CI runs
#: the whole suite on 2 shared cores; waits return as soon as they can.
WAIT_S = scaled(90)

#: The app's state in the browser, shared with the scripts that serve the app
#: (``scripts/served_app.py``): its script run finished, and its state as one line.
IDLE_JS = served_app.IDLE_JS
STATE_JS = served_app.STATE_JS


def idle(page: Any) -> None:
    """Wait until the connected app's script run has finished (Streamlit's own state flag).

    Call it after waiting for something the new run renders (or writes), so that a run which
    has not started yet is not mistaken for one that has finished.
    """
    page.wait_for_function(IDLE_JS, timeout=WAIT_S * 1000)


def nav(page: Any, name: str, slug: str) -> None:
    """Move to another page through the sidebar (the session, and its sign-in, stay)."""
    sidebar = page.locator('[data-testid="stSidebarNav"]')
    link = sidebar.get_by_role("link", name=name, exact=True)
    more = page.locator('[data-testid="stSidebarNavViewButton"]')
    if not link.count() and more.count() and "more" in more.inner_text():
        more.click()  # the navigation lists the first pages; the rest behind "View N more"
    link.click()
    page.wait_for_url(re.compile(rf"/{slug}(\?.*)?$"))
    page.get_by_role("heading", level=1, name=name).wait_for()
    idle(page)


def checklist_item(page: Any, label: str) -> Any:
    """The Review checklist's item ``label``: its question and a button per choice."""
    return page.locator("[class*='st-key-item_chk_']").filter(has_text=label)


def choose(page: Any, label: str, choice: str = "Yes") -> None:
    """Click ``choice`` of the Review checklist's item ``label`` and wait until it shows
    chosen (drawn filled: a primary button) and the script is idle."""
    item = checklist_item(page, label)
    # the button's name is "Yes 1", its text "Yes1" (the key shown on it follows the choice)
    pattern = re.compile("^" + re.escape(choice) + "(?![A-Za-z])")
    item.get_by_role("button", name=pattern).first.click()
    item.locator('[data-testid="stBaseButton-primaryFormSubmit"]').filter(
        has_text=pattern
    ).first.wait_for()
    idle(page)


def decision_key(page: Any, prefix: str, name: str) -> str:
    """The widget key of the decision button ``name`` (its label; the shortcut key shown on it
    may follow) drawn for the item on the page now, among the keys starting with ``prefix``
    (``adj_settle_``): keys are bound to the item (``<name>_<digest>``,
    :func:`app_support.workspace.item_bound`), so the key names the item as well."""
    pattern = re.compile("^" + re.escape(name) + "(?![A-Za-z])")
    boxes = page.locator(f"[class*='st-key-{prefix}']")
    box = boxes.filter(has=page.get_by_role("button", name=pattern))
    classes = box.first.get_attribute("class", timeout=WAIT_S * 1000) or ""
    return next(c for c in classes.split() if c.startswith(f"st-key-{prefix}"))[len("st-key-") :]


def click_decision(
    page: Any, prefix: str, name: str, done: Callable[[], object], what: str
) -> None:
    """Click the decision button ``name`` of the item on the page once the page has settled,
    and wait until ``done()`` (what the click stores).

    The page's run must be over (:func:`idle`), and the button clicked is the one drawn for the
    item shown then, found by its item-bound key (:func:`decision_key`), not by its label: a
    label is the same on every item, so a locator by label follows whichever button a rerun
    draws next. When the button is replaced between finding it and clicking it (a rerun drew
    the page again), the click never reached the server: the page is waited for again and the
    same item's button clicked, as long as ``done()`` is still false (a click that reached the
    server is never repeated); if that item's button is gone, the test fails saying what the
    page shows instead."""
    idle(page)
    key = decision_key(page, prefix, name)
    button = page.locator(f".st-key-{key}").get_by_role("button")
    deadline = time.monotonic() + WAIT_S
    while True:
        try:
            button.click(timeout=scaled(10) * 1000)
            break
        except Exception as exc:  # playwright's TimeoutError: the button kept being replaced
            idle(page)
            if done():
                break
            if time.monotonic() > deadline or not button.count():
                main = page.locator('[data-testid="stMain"]').inner_text()[:2000]
                raise AssertionError(
                    f"{what}: {name!r} of {key} not clicked ({page.evaluate(STATE_JS)}; "
                    f"{button.count()} such button on the page); the page shows:\n{main}"
                ) from exc
    wait_for(done, what=what)


def signed_in_as(page: Any, name: str) -> None:
    """Wait until the sidebar says ``name`` is signed in."""
    page.locator('[data-testid="stSidebar"]').get_by_text(f"Signed in as {name}").wait_for()


def session_cookie(page: Any) -> dict[str, Any] | None:
    """The session cookie of ``page``'s browser context, or None."""
    found = [c for c in page.context.cookies() if c["name"] == SESSION_COOKIE]
    return dict(found[0]) if found else None


def signed_in_by_link(page: Any, name: str) -> None:
    """After opening ``name``'s one-use link: wait for the sign-in, the end of the run, the
    token to leave the address bar and the session cookie. The cookie is set by a script in
    the sidebar whose component the browser loads on first use, so it can land a moment after
    "Signed in as" shows; a reload before it would lose the sign-in."""
    page.locator('[data-testid="stSidebar"]').wait_for()
    signed_in_as(page, name)
    idle(page)
    wait_for(lambda: "token" not in page.url, what="the token to leave")
    wait_for(lambda: session_cookie(page), what="the session cookie")


def missing(what: str) -> None:
    """Fail when CI=true (the browser tests must run there), otherwise skip."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"{what} is required when CI=true")
    pytest.skip(f"{what} not installed")


def require_browser() -> str:
    """Debian's chromium and the playwright package, or skip (fail under CI); the chromium path."""
    if not Path(CHROMIUM).exists():
        missing("chromium (apt-get install chromium)")
    try:
        import playwright.sync_api  # noqa: F401  (optional test dependency)
    except ImportError:
        missing("the playwright PyPI package (never `playwright install`)")
    return CHROMIUM


free_port = served_app.free_port


def wait_for(
    predicate: Callable[[], object], timeout: float | None = None, what: str = "condition"
) -> None:
    """Poll ``predicate`` (exceptions count as not yet) until true or ``timeout`` seconds
    (default :func:`scaled` 90)."""
    timeout = scaled(90) if timeout is None else timeout
    deadline = time.monotonic() + timeout
    while True:
        try:
            if predicate():
                return
        except Exception:  # e.g. an element re-rendered while being read
            pass
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(0.2)


def _healthy(base: str) -> bool:
    try:
        status: int = urllib.request.urlopen(f"{base}/_stcore/health", timeout=5).status
        return status == 200
    except OSError:
        return False


@contextlib.contextmanager
def streamlit_app(db_path: Path | str, log_path: Path) -> Iterator[str]:
    """``streamlit run app.py`` on a free loopback port over ``db_path`` (a SQLite path or a
    PostgreSQL URL, given as ``$WORKBENCH_DB``): the one server of :func:`streamlit_servers`;
    yields the base URL.

    The server's output goes to ``log_path`` (a file, not a pipe: a full pipe would block it);
    a server that does not start fails the test with the log's tail.
    """
    with streamlit_servers(db_path, [log_path]) as [base]:
        yield base


@contextlib.contextmanager
def streamlit_servers(target: str | Path, log_paths: list[Path]) -> Iterator[list[str]]:
    """``len(log_paths)`` servers of ``streamlit run app.py`` over one database (``target``: a
    SQLite path or a PostgreSQL URL, as ``WORKBENCH_DB``), each on its own loopback port,
    started together (they start in parallel, so K servers take about as long as one); yields
    their base URLs in the order of ``log_paths``."""
    with contextlib.ExitStack() as stack:
        env = {
            **os.environ,
            "WORKBENCH_DB": str(target),
            "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false",
        }
        procs: list[tuple[subprocess.Popen[bytes], str, Path]] = []
        for log_path in log_paths:
            port = free_port()
            log = stack.enter_context(open(log_path, "wb"))
            proc = subprocess.Popen(
                [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port)]
                + ["--server.address", "127.0.0.1", "--server.headless", "true"],
                cwd=ROOT,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
            stack.callback(served_app.stop, proc)
            procs.append((proc, f"http://127.0.0.1:{port}", log_path))
        for proc, base, log_path in procs:
            try:
                wait_for(
                    lambda proc=proc, base=base: _healthy(base) or proc.poll() is not None,
                    STARTUP_S,
                    "streamlit to start",
                )
                if proc.poll() is not None:
                    raise AssertionError(f"streamlit exited with {proc.returncode}")
            except AssertionError as exc:
                pytest.fail(f"{exc}: {log_path.read_text(errors='replace')[-2000:]}")
        yield [base for _, base, _ in procs]


@contextlib.contextmanager
def admin_beside(target: str | Path, name: str) -> Iterator[dict[str, Any]]:
    """While the block runs, what an admin and a colleague do beside a team (issue 38, item 1):
    ``python -m core queue NAME`` in a loop (its own process, as docs/team.md suggests for
    following progress), a long book import in a loop (``import-book`` of a generated book of
    about 1 MB, a new document id each time: the long writer a team meets), and, on SQLite, a
    plain ``sqlite3`` reader opening and closing the file at about 20 Hz. Yields the tally
    ``{"queue_runs", "queue_failures", "imports", "import_failures", "reads"}``; after the block
    every ``queue`` run and every import must have succeeded, and one of each must have
    finished."""
    import sqlite3
    import tempfile
    import threading

    stop = threading.Event()
    tally: dict[str, Any] = {
        "queue_runs": 0,
        "queue_failures": [],
        "imports": 0,
        "import_failures": [],
        "reads": 0,
    }
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    argv = [sys.executable, "-m", "core", "--db", str(target), "queue", name]
    book = Path(tempfile.mkdtemp(prefix="beside-")) / "book.txt"
    words = "river lantern orchard harbour meadow violin granite thimble".split()
    book.write_text(
        "\n\n".join(
            f"Chapter {i}. " + " ".join(words[(i * k) % len(words)] for k in range(1, 150)) + "."
            for i in range(1000)
        ),
        encoding="utf-8",
    )

    def queue_loop() -> None:
        while not stop.is_set():
            done = subprocess.run(
                [*argv, "--task", "side-by-side"], capture_output=True, text=True, env=env
            )
            tally["queue_runs"] += 1
            if done.returncode != 0:
                tally["queue_failures"].append(done.stderr[-500:])

    def import_loop() -> None:
        n = 0
        while not stop.is_set():
            n += 1
            done = subprocess.run(
                [sys.executable, "-m", "core", "--db", str(target), "import-book", str(book)]
                + ["--id", f"beside-book-{n}", "--title", f"Beside {n}"],
                capture_output=True,
                text=True,
                env=env,
            )
            tally["imports"] += 1
            if done.returncode != 0:
                tally["import_failures"].append(done.stderr[-500:])

    def sqlite3_loop() -> None:
        while not stop.wait(0.05):
            plain = sqlite3.connect(str(target))
            try:
                plain.execute("select count(*) from judgments").fetchone()
            finally:
                plain.close()
            tally["reads"] += 1

    loops = [threading.Thread(target=f, daemon=True) for f in (queue_loop, import_loop)]
    if not str(target).startswith("postgres"):
        loops.append(threading.Thread(target=sqlite3_loop, daemon=True))
    for loop in loops:
        loop.start()
    try:
        yield tally
    finally:
        stop.set()
        for loop in loops:
            loop.join(timeout=scaled(60))
        shutil.rmtree(book.parent, ignore_errors=True)
    assert tally["queue_runs"] >= 1 and not tally["queue_failures"], tally
    assert tally["imports"] >= 1 and not tally["import_failures"], tally
