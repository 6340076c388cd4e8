"""Screenshots of the labelling screens and Browse at 1280x800 and 390x844, for the docs.

Serves the app over a copy of a demo database (``--db``, never changed; by default
``python -m core demo`` is built into a temporary folder) with what the screens need added
through ``core``: two people's different verdicts on one side-by-side pair (so Adjudication has an
item) and a small custom label task (so Label has one). Each page is opened in a fresh headless
Chromium page (Debian's ``/usr/bin/chromium`` through the ``playwright`` PyPI package; never
``playwright install``) at the top, nothing scrolled, and its first screen saved as
``OUT/<page>_<width>.png`` (``docs/img`` by default).

    .venv/bin/python scripts/app_screenshots.py [--db data/workbench.db] [--out docs/img]
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from core.annotation.identity import sign_in_open  # noqa: E402 (after the sys.path line)
from core.annotation.pairwise import (  # noqa: E402
    blind_item,
    split_pair_key,
    submit_verdict,
)
from core.annotation.tasks import task_items  # noqa: E402
from core.store.database import open_db  # noqa: E402
from core.views.review import question_ids  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
SIZES = ((1280, 800), (390, 844))
#: file stem -> (address, the text that says the page has drawn its item)
PAGES = {
    "side_by_side": ("Side_by_side?name=dana", "Answer A"),
    "disputes": ("NarrativeQA_disputes?name=dana", "Model answer"),
    "review": ("Review_questions?name=dana", "Question"),
    "adjudication": ("Adjudication?name=carol", "Settled label"),
    "label": ("Label?name=dana", "Item"),
    "browse": ("Browse?name=dana", "Browse"),
}
#: The custom task added for the Label page (its items: the demo's first generated questions).
TASK = "helpfulness"
_IDLE_JS = (
    "() => { const app = document.querySelector('[data-testid=\"stApp\"]');"
    " return !!app && app.getAttribute('data-test-connection-state') === 'CONNECTED'"
    " && app.getAttribute('data-test-script-state') === 'notRunning'; }"
)


def _core(db: Path, *args: str) -> None:
    """``python -m core --db DB ARGS``; stops the script with its output when it fails."""
    done = subprocess.run(
        [sys.executable, "-m", "core", "--db", str(db), *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    if done.returncode:
        raise SystemExit(f"python -m core {' '.join(args)}: {done.stdout}{done.stderr}")


def prepare(db_path: Path, work: Path) -> None:
    """Add two people's different verdicts on one pair and the custom task :data:`TASK`."""
    db = open_db(db_path)
    try:
        keys = task_items(db, "side-by-side")
        key = next((k for k in keys if split_pair_key(k)[0].startswith("gen")), keys[0])
        for name, verdict in (("ann1", "A"), ("ann2", "None")):
            who = sign_in_open(db, name)
            submit_verdict(db, blind_item(db, key, name), who, verdict, "")
        questions = question_ids(db, origin="generated")[:5]
    finally:
        db.close()
    items = work / "items.csv"
    items.write_text("item,question_id\n" + "".join(f"q{i},{q}\n" for i, q in enumerate(questions)))
    _core(
        db_path, "tasks", "define", TASK, "--scale", "ordinal",
        "--labels", "unhelpful,partly helpful,helpful",
        "--guideline", "How helpful is the question to a reader of the book?",
    )  # fmt: skip
    _core(db_path, "tasks", "add-items", TASK, str(items))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def serve(db_path: Path, log: Path) -> tuple[subprocess.Popen[bytes], str]:
    """``streamlit run app.py`` over ``db_path`` on a free loopback port, once healthy."""
    port = _free_port()
    env = {**os.environ, "WORKBENCH_DB": str(db_path), "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "0"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port)]
        + ["--server.address", "127.0.0.1", "--server.headless", "true"],
        cwd=ROOT,
        env=env,
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            if urllib.request.urlopen(f"{base}/_stcore/health", timeout=5).status == 200:
                return proc, base
        except OSError:
            time.sleep(0.3)
    proc.kill()
    raise SystemExit("streamlit did not start: " + log.read_text(errors="replace")[-2000:])


def shoot(base: str, out: Path, chromium: str) -> list[Path]:
    """Every page of :data:`PAGES` at both sizes, its first screen once drawn and idle."""
    from playwright.sync_api import sync_playwright  # reason: optional browser dependency

    saved = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, headless=True)
        try:
            for stem, (address, ready) in PAGES.items():
                for width, height in SIZES:
                    page = browser.new_page(viewport={"width": width, "height": height})
                    page.set_default_timeout(180_000)
                    page.goto(f"{base}/{address}")
                    page.get_by_text(ready, exact=True).first.wait_for(state="attached")
                    page.wait_for_function(_IDLE_JS)
                    page.wait_for_timeout(1500)  # code blocks, charts and panes settle
                    page.evaluate("() => window.scrollTo(0, 0)")
                    path = out / f"{stem}_{width}.png"
                    page.screenshot(path=str(path))
                    saved.append(path)
                    print(path, flush=True)
                    page.close()
        finally:
            browser.close()
    return saved


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", help="a demo database (copied, not changed)")
    parser.add_argument("--out", default=str(ROOT / "docs" / "img"))
    parser.add_argument("--chromium", default=CHROMIUM)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="screenshots_"))
    try:
        db_path = work / "workbench.db"
        if args.db:
            shutil.copyfile(args.db, db_path)
        else:
            _core(db_path, "demo")
        prepare(db_path, work)
        out = Path(args.out).resolve()
        out.mkdir(parents=True, exist_ok=True)
        proc, base = serve(db_path, work / "streamlit.log")
        try:
            shoot(base, out, args.chromium)
        finally:
            proc.terminate()
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
