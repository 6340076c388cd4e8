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
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from served_app import CHROMIUM, open_idle, served  # noqa: E402 (scripts/, the script's own folder)

from core.annotation.identity import sign_in_open  # noqa: E402 (after the sys.path line)
from core.annotation.pairwise import (  # noqa: E402
    blind_item,
    split_pair_key,
    submit_verdict,
)
from core.annotation.tasks import task_items  # noqa: E402
from core.store.database import open_db  # noqa: E402
from core.views.review import question_ids  # noqa: E402

SIZES = ((1280, 800), (390, 844))
#: file stem -> (address, the text that says the page has drawn its item)
PAGES = {
    "side_by_side": ("Side_by_side?name=dana", "Answer A"),
    "disputes": ("NarrativeQA_disputes?name=dana", "Model answer"),
    "review": ("Review_questions?name=dana", "Question"),
    "adjudication": ("Adjudication?name=carol", "Why (optional)"),
    "label": ("Label?name=dana", "Guideline"),
    "browse": ("Browse?name=dana", "Browse"),
}
#: The custom task added for the Label page (its items: the demo's first generated questions).
TASK = "helpfulness"


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
                    open_idle(page, f"{base}/{address}", ready, timeout_s=180)
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
        with served({"WORKBENCH_DB": str(db_path)}, work / "streamlit.log") as base:
            shoot(base, out, args.chromium)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
