"""The Rater validation page's first load on real labels, new code against the previous approach
in the same run.

1. The database: one of the alt-test authors' sets (``tests/data/alttest/<set>/``, default
   ``cebab_aspects``: 10 people, 6 LLMs, 1,008 items) written as the plain CSV a team would have
   and imported with ``import-judgments --task SET --scale ...`` (as
   ``tests/stats/test_alt_test_real_import.py`` does).
2. The page's first load: AppTest drives ``app.py`` (signed in as the tests are), opens the
   Overview, then times the Rater validation page's script run on a database file it has not
   seen (a fresh copy each time: every cache is cold, as on a server's first visit without the
   warm-up).
3. The previous approach, timed the same way on its own fresh copy, alternating with the new one:
   the page's report with every rater's items-needed simulation (the page computed all of them
   before drawing the open tab), the sensitivity curve as one alt-test per epsilon
   (:func:`old_epsilon_curve`, the previous code, kept here) and no reads shared between the
   raters (each rater's rows, labels and people-only figures read again). What it cannot undo:
   items with the same labels sharing their indicators inside one table, so the ratio
   understates the change a little.

Last line: one JSON object, ``new_first_load_s`` / ``old_first_load_s`` (medians over
``--repeats``), each run's seconds, ``ratio`` (old / new median) and the machine's load average.

    .venv/bin/python benchmarks/rater_validation_page.py [--set cebab_aspects] [--repeats 3]
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import io
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from core.__main__ import main as cli
from core.stats.alt_test import Labels, alt_test
from core.stats.alt_test_epsilon import EPSILON_GRID, EpsilonPoint
from core.stats.alt_test_metrics import Alignment, accuracy
from core.store.database import open_db
from core.views import rater_epsilon, rater_validation, scale_agreement, shared_reads
from core.views.rater_report import assemble, needed

DATA = ROOT / "tests" / "data" / "alttest"
PAGE = "pages/12_Rater_validation.py"
#: set -> the import's scale options (the authors' labels as they are; wax: from the data)
SCALES = {
    "lgbteen": ["categorical", "Yes,No,Partially,No response,Irrelevant,Ignore"],
    "10k_prompts": ["ordinal", "1,2,3,4,5"],
    "cebab_aspects": ["categorical", "Positive,Negative,unknown"],
    "wax": ["categorical", ""],
}


def build_db(name: str, folder: Path) -> Path:
    """A database with the set's labels imported as task ``name`` (people ``human:``, LLMs
    ``auto:``)."""
    files = DATA / name
    humans = json.loads((files / "human_annotations.json").read_text(encoding="utf-8"))
    llms = json.loads((files / "llm_annotations.json").read_text(encoding="utf-8"))
    rows = [(i, str(v), f"human:{h}") for h, got in humans.items() for i, v in got.items()]
    rows += [(i, str(v), f"auto:{m}") for m, got in llms.items() for i, v in got.items()]
    scale, labels = SCALES[name]
    labels = labels or ",".join(sorted({v for _, v, _ in rows}))
    path = folder / "labels.csv"
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["question_id", "verdict", "rater"])
        writer.writerows(rows)
    db = folder / "base.db"
    open_db(db).close()
    args = ["--db", str(db), "import-judgments", str(path), "--task", name, "--scale", scale]
    with contextlib.redirect_stdout(io.StringIO()):
        if cli([*args, "--labels", labels]) != 0:
            raise SystemExit(f"import of {name} failed")
    return db


def old_epsilon_curve(
    humans: Mapping[str, Mapping[Hashable, Labels]],
    rater: Mapping[Hashable, Labels],
    *,
    q: float = 0.05,
    grid: Sequence[float] = EPSILON_GRID,
    min_items: int = 30,
    min_humans: int = 3,
    alignment: Alignment = accuracy,
    table: Any = None,
) -> list[EpsilonPoint]:
    """The previous sensitivity curve: the whole alt-test (its indicator table too) rerun at each
    epsilon."""
    out = []
    for eps in sorted(set(grid)):
        result = alt_test(
            humans,
            rater,
            epsilon=eps,
            q=q,
            min_items=min_items,
            min_humans=min_humans,
            alignment=alignment,
        )
        out.append(EpsilonPoint(eps, result.winning_rate, result.advantage_prob, result.passed))
    return out


def _like(fn: Callable[..., Any], stand_in: Callable[..., Any]) -> Callable[..., Any]:
    """``stand_in`` under ``fn``'s module and name (the page's cache finds it by them)."""
    stand_in.__module__, stand_in.__qualname__ = fn.__module__, fn.__qualname__
    return stand_in


@contextlib.contextmanager
def previous_approach() -> Iterator[None]:
    """The previous page computation in place of the new one while inside."""
    report_for_choice = assemble.report_for_choice
    sections: dict[tuple[str, str, str], dict[str, Any]] = {}

    def full_report(db: Any, choice: str, task: str = "side-by-side", _: bool = True) -> Any:
        data = report_for_choice(db, choice, task, True)  # every rater's simulation
        for sec in data["raters"]:
            sections[choice, task, sec["rater"]] = sec["needed"]
        return data

    def from_report(db: Any, choice: str, task: str, rater: str) -> dict[str, Any]:
        return sections[choice, task, rater]  # the previous page read it from the report

    def computed(key: Hashable, compute: Callable[[], Any]) -> Any:
        return compute()

    saved = [
        (assemble, "report_for_choice", _like(report_for_choice, full_report)),
        (needed, "rater_needed_for_choice", _like(needed.rater_needed_for_choice, from_report)),
        (rater_epsilon, "epsilon_curve", old_epsilon_curve),
        (rater_validation, "shared", computed),
        (scale_agreement, "shared", computed),
        (shared_reads, "shared", computed),
    ]
    originals = [(module, name, getattr(module, name)) for module, name, _ in saved]
    for module, name, value in saved:
        setattr(module, name, value)
    try:
        yield
    finally:
        for module, name, value in originals:
            setattr(module, name, value)


def first_load(base: Path, folder: Path, tag: str) -> float:
    """Seconds of the page's first script run on a fresh copy of ``base``."""
    from streamlit.testing.v1 import AppTest  # the app's test driver: imported when timing

    path = folder / f"{tag}.db"
    shutil.copyfile(base, path)
    os.environ["WORKBENCH_DB"] = str(path)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=1800)
    at.query_params["name"] = "alice"
    at.run()
    at.switch_page(PAGE)
    start = time.perf_counter()
    at.run()
    seconds = time.perf_counter() - start
    if at.exception:
        raise SystemExit(f"the page failed: {[e.value for e in at.exception]}")
    if not at.header:
        raise SystemExit("the page showed no auto-rater")
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", default="cebab_aspects", choices=sorted(SCALES))
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    os.environ.pop("WORKBENCH_ACCESS_CODE", None)
    folder = Path(tempfile.mkdtemp(prefix="rater_page_"))
    try:
        base = build_db(args.set, folder)
        new: list[float] = []
        old: list[float] = []
        for i in range(args.repeats):
            new.append(first_load(base, folder, f"new{i}"))
            with previous_approach():
                old.append(first_load(base, folder, f"old{i}"))
            print(f"run {i + 1}: new {new[-1]:.2f} s, previous {old[-1]:.2f} s", flush=True)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    new_s, old_s = statistics.median(new), statistics.median(old)
    figures = {
        "set": args.set,
        "new_first_load_s": round(new_s, 2),
        "old_first_load_s": round(old_s, 2),
        "ratio": round(old_s / new_s, 1),
        "new_runs_s": [round(x, 2) for x in new],
        "old_runs_s": [round(x, 2) for x in old],
        "load_average": [round(x, 1) for x in os.getloadavg()],
    }
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
