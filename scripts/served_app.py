"""The app served and opened in a real browser, for the scripts that drive it from outside a test
(``scripts/app_screenshots.py``, ``benchmarks/app_pages.py`` and the benchmarks built on it):
``streamlit run app.py`` on a free loopback port, waited for until healthy and stopped in one
place, Debian's Chromium, and a page opened and waited for until its script run is idle.

No pytest here (the browser tests have ``tests/browser_server.py``, which fails or skips a test
instead of stopping a script); nothing in ``core/`` or the app imports this module.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
#: Debian's chromium, driven by the ``playwright`` PyPI package (never ``playwright install``).
CHROMIUM = "/usr/bin/chromium"
#: True once the connected app's script run has finished (Streamlit's own state attributes).
IDLE_JS = (
    "() => { const app = document.querySelector('[data-testid=\"stApp\"]');"
    " return !!app && app.getAttribute('data-test-connection-state') === 'CONNECTED'"
    " && app.getAttribute('data-test-script-state') === 'notRunning'; }"
)
#: The app's connection and script state as one line (for an error report).
STATE_JS = (
    "() => { const app = document.querySelector('[data-testid=\"stApp\"]');"
    " return app ? 'connection ' + app.getAttribute('data-test-connection-state')"
    " + ', script ' + app.getAttribute('data-test-script-state') : 'no app'; }"
)
#: Seconds a server may take to answer its health check.
STARTUP_S = 120


def free_port() -> int:
    """A loopback port free now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def free_ports(count: int, tries: int = 50) -> int:
    """A loopback port ``p`` with ``p .. p + count - 1`` all free now (a proxy on ``p`` and its
    servers on the ports after it, as ``scripts/serve_cluster.py`` takes them)."""
    for _ in range(tries):
        base = free_port()
        with contextlib.ExitStack() as held:
            try:
                for p in range(base + 1, base + count):
                    held.enter_context(socket.socket()).bind(("127.0.0.1", p))
            except OSError:
                continue
        return base
    raise RuntimeError(f"no {count} consecutive free loopback ports in {tries} tries")


def _healthy(base: str) -> bool:
    try:
        return bool(urllib.request.urlopen(f"{base}/_stcore/health", timeout=5).status == 200)
    except OSError:
        return False


def serve(
    env: dict[str, str], log: Path, folder: Path = ROOT, port: int | None = None
) -> tuple[subprocess.Popen[bytes], str]:
    """``streamlit run app.py`` in ``folder`` (the project by default) on ``port`` (a free loopback
    port by default; a given one, e.g. a killed server's again, appends to ``log``),
    with ``env`` added to this process's environment (e.g. ``WORKBENCH_DB``) and its output to
    ``log`` (a file: a full pipe would block it); returns ``(process, base URL)`` once its health
    check answers. A server that does not start stops the script with the log's tail."""
    mode = "wb" if port is None else "ab"
    port = free_port() if port is None else port
    full = {**os.environ, "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false", **env}
    with log.open(mode) as out:  # the child keeps its own handle
        proc = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port)]
            + ["--server.address", "127.0.0.1", "--server.headless", "true"],
            cwd=folder,
            env=full,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    base = f"http://127.0.0.1:{port}"
    wait_healthy(proc, base, log)
    return proc, base


def wait_healthy(
    proc: subprocess.Popen[bytes], base: str, log: Path, what: str = "streamlit"
) -> None:
    """Wait until ``base``'s health check (``/_stcore/health``) answers; a process that exits or
    does not answer within :data:`STARTUP_S` is stopped and stops the script with the log's
    tail (``what`` names it)."""
    deadline = time.monotonic() + STARTUP_S
    while time.monotonic() < deadline and proc.poll() is None:
        if _healthy(base):
            return
        time.sleep(0.3)
    stop(proc)
    raise SystemExit(f"{what} did not start: " + log.read_text(errors="replace")[-2000:])


def stop(proc: subprocess.Popen[bytes]) -> None:
    """Stop a server :func:`serve` started (terminate, then kill)."""
    proc.terminate()
    try:
        proc.wait(20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(20)


@contextlib.contextmanager
def served(env: dict[str, str], log: Path, folder: Path = ROOT) -> Iterator[str]:
    """:func:`serve` for the block; yields the base URL and stops the server after it."""
    proc, base = serve(env, log, folder)
    try:
        yield base
    finally:
        stop(proc)


def idle(page: Any, timeout_s: float = 120) -> None:
    """Wait until the connected app's script run has finished (call it after waiting for
    something the run draws, so a run not started yet is not taken for one finished)."""
    page.wait_for_function(IDLE_JS, timeout=timeout_s * 1000)


def open_idle(page: Any, url: str, ready: str | None = None, timeout_s: float = 120) -> None:
    """Open ``url`` in ``page`` and wait until its title (``h1``) shows (and the exact text
    ``ready``, when given) and the script run is idle."""
    page.goto(url)
    page.locator("h1").first.wait_for(timeout=timeout_s * 1000)
    if ready is not None:
        page.get_by_text(ready, exact=True).first.wait_for(
            state="attached", timeout=timeout_s * 1000
        )
    idle(page, timeout_s)
