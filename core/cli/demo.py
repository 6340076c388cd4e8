"""The key-free demo: bundled real data imported and run through the offline baselines.

Steps (each idempotent, each reported with its time):
1. NarrativeQA sample (official layout) from ``demo/narrativeqa``.
2. The bundled book(s) from ``demo/books``.
3. Entities of every full text (built-in proper-noun extractor) and long-span questions from the
   offline ``baseline:entity-cooccurrence`` generator (named as a baseline; no LLM).
4. The offline NarrativeQA experiment ``experiments/demo_offline.toml``: extractive answerers with
   no / retrieval / full / summary context, lexical and similarity raters, a side-by-side
   tournament in both orders, and the disputes between ground-truth and context raters.
5. The XRAG demo on the bundled XQuAD sample (offline answerer, rule-based judge panel).
6. The EXAM demo on the bundled TREC CAR Y3 sample.
7. EXAM meets side-by-side on one book: four offline overview writers of Les Misérables, scored by
   EXAM on the book's generated questions and ranked by Bradley-Terry from side-by-side judging of
   their answers; the two leaderboards' rank correlation.

Between steps 2 and 3 (and with ``quick`` too, as it is an import): the PRD Vicuna80 set
(``demo/prd_vicuna80``: real answers of five LLMs, GPT-4's pairwise reviews in both orders and
anonymous human ratings; see its SOURCE.md), imported with the ``prd-vicuna80`` layout of
:mod:`core.corpus.evaluation_layouts`.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from core.store.engine import Database


from core.store.connection import transaction
from core.store.documents import document_ids
from core.store.experiments import (
    Experiment,
    ExperimentStatus,
    restore_experiment,
    stored_experiments,
)
from core.store.runs import discard_idle_runs, run_ids
from core.store.settings import get_setting, update_setting

DEMO_DIR = Path(__file__).resolve().parents[2] / "demo"
DEMO_ANNOTATIONS_PER_ITEM = 2


#: Each step's name in the summary and the words its progress line says.
STEPS = {
    "narrativeqa": "NarrativeQA sample",
    "books": "bundled book",
    "prd_vicuna80": "PRD Vicuna-80 answers and reviews",
    "generated_questions": "entities and long-span questions (offline baseline)",
    "experiment": "offline NarrativeQA experiment (answers, raters, side by side)",
    "xrag": "XRAG demo (XQuAD sample)",
    "exam": "EXAM demo (TREC CAR sample)",
    "exam_book": "EXAM meets side by side on Les Misérables",
}


def build_demo(
    db: Database,
    demo_dir: Path | None = None,
    *,
    quick: bool = False,
    progress: bool = False,
) -> dict[str, Any]:
    """Build (or refresh) the demo database; return what each step did and how long it took.

    ``progress``: one line per step on stderr (and the steps' own bars on a terminal). A re-run
    with nothing changed changes nothing: the runs it starts that made no fresh model call and
    wrote no row are deleted with their cached ``llm_calls`` (:func:`discard_idle_runs`).
    """
    demo_dir = demo_dir or DEMO_DIR
    summary: dict[str, Any] = {}
    bars = progress and sys.stderr.isatty()  # no bar noise in a log or a pipe
    runs_before = run_ids(db)
    experiments_before = {e.name: e for e in stored_experiments(db)}
    if get_setting(db, "annotations_per_item") == "":
        # Two annotations per item, so two people meet on the same items and their agreement
        # (and adjudication of their disagreements) appears. A value set earlier is kept.
        update_setting(db, "annotations_per_item", DEMO_ANNOTATIONS_PER_ITEM)
    n_steps = 3 if quick else len(STEPS)

    def step(name: str, fn: Callable[[], Any]) -> None:
        line = f"demo: {len(summary) + 1}/{n_steps} {STEPS[name]} ..."
        if progress:  # the line's end waits for the step, unless bars come between
            print(line, end="\n" if bars else "", file=sys.stderr, flush=True)
        start = time.perf_counter()
        try:
            result = fn()
        except BaseException:
            if progress:  # the error's own line starts on a line of its own
                print(" failed", file=sys.stderr, flush=True)
            raise
        summary[name] = {"result": result, "seconds": round(time.perf_counter() - start, 2)}
        if progress:
            done = f"done in {summary[name]['seconds']:.1f} s"
            print(f"{line} {done}" if bars else f" {done}", file=sys.stderr, flush=True)

    from core.corpus.books import (
        import_books,
    )
    from core.corpus.narrativeqa import (
        import_narrativeqa,
    )

    step(
        "narrativeqa",
        lambda: import_narrativeqa(db, demo_dir / "narrativeqa", progress=bars).as_dict(),
    )
    step("books", lambda: [r["id"] for r in import_books(db, demo_dir / "books")])
    step("prd_vicuna80", lambda: import_prd_demo(db, demo_dir))
    if not quick:
        _model_steps(db, demo_dir, step, bars)
    _discard_idle_runs(db, runs_before, experiments_before)
    return summary


def _discard_idle_runs(
    db: Database, runs_before: set[str], experiments_before: dict[str, Experiment]
) -> None:
    """Delete the runs of this build that changed nothing (:func:`discard_idle_runs`). An
    experiment's row points at its latest run: for an idle re-run it points back at the run
    before it, as it was."""
    new = run_ids(db) - runs_before
    done = ExperimentStatus.DONE
    with transaction(db):
        moved = [
            exp
            for exp in stored_experiments(db)
            if exp.run_id in new
            and exp.status == done
            and exp.name in experiments_before
            and experiments_before[exp.name].status == done
        ]
        for exp in moved:
            restore_experiment(db, experiments_before[exp.name])
        idle = discard_idle_runs(db, sorted(new))
        for exp in moved:
            if exp.run_id not in idle:  # the run did something: its experiment row stays on it
                restore_experiment(db, exp)


def _model_steps(
    db: Database, demo_dir: Path, step: Callable[[str, Callable[[], Any]], None], bars: bool
) -> None:
    """Steps 4-8: the offline generation, experiment, XRAG and EXAM runs."""
    from core.exam.book_case import (
        build_book_demo as build_exam_book_demo,
    )
    from core.exam.workflow import (
        build_demo as build_exam_demo,
    )
    from core.generation.questions import (
        generate_questions,
    )
    from core.pipeline.experiment import (
        run_experiment,
    )
    from core.xrag.workflow import (
        build_demo as build_xrag_demo,
    )

    def generate_all() -> dict[str, Any]:
        from tqdm import (
            tqdm,
        )

        full_texts = document_ids(db, ["book", "story"])
        out = {}
        for doc_id in tqdm(
            full_texts, desc="documents", unit="doc", disable=None if bars else True
        ):
            out[doc_id] = generate_questions(
                db, doc_id, "baseline", n_entities=8, per_entity=2, progress=False
            )["kept"]
        return out

    step("generated_questions", generate_all)
    step(
        "experiment",
        lambda: _experiment_summary(run_experiment(db, DEMO_EXPERIMENT, progress=bars)),
    )
    step("xrag", lambda: _short(build_xrag_demo(db, demo_dir)))
    step("exam", lambda: _short(build_exam_demo(db, demo_dir)))
    step("exam_book", lambda: _short(build_exam_book_demo(db, progress=bars)))


def import_prd_demo(db: Database, demo_dir: Path) -> dict[str, Any]:
    """Import the bundled PRD Vicuna80 folder (idempotent); rows inserted per table."""
    from core.corpus.evaluation_layouts import (
        read_prd_vicuna80,
    )
    from core.corpus.evaluations import (
        store_evaluation,
    )

    folder = demo_dir / "prd_vicuna80"
    if not folder.is_dir():
        return {"skipped": f"no {folder}"}
    counts = store_evaluation(db, read_prd_vicuna80(folder))
    return {table: c["inserted"] for table, c in counts.items()}


DEMO_EXPERIMENT = Path(__file__).resolve().parents[2] / "experiments" / "demo_offline.toml"


def _experiment_summary(result: dict[str, Any]) -> dict[str, Any]:
    """The experiment run's digest: name, question count, answers, judges and disputes."""
    keep = ("experiment", "questions", "answers", "judges", "disputes")
    digest: dict[str, Any] = _short({k: v for k, v in result.items() if k in keep})
    return digest


def _short(result: Any) -> Any:
    """A printable digest of a step's result (scalars and short lists only)."""
    if isinstance(result, dict):
        return {
            k: _short(v)
            for k, v in result.items()
            if isinstance(v, (int, float, str, dict)) or (isinstance(v, list) and len(v) <= 5)
        }
    return result


#: What the summary counts, in its words (table, singular, plural).
COUNTED = (
    ("documents", "document", "documents"),
    ("questions", "question", "questions"),
    ("answers", "answer", "answers"),
    ("judgments", "judgment", "judgments"),
    ("disputes", "dispute", "disputes"),
)


def summary_text(
    db_label: str, seconds: float, before: dict[str, int], after: dict[str, int]
) -> str:
    """The demo's closing lines for a person: what the database holds (and what this build
    added, or that it changed nothing), where to open it and which page to start on."""
    held = ", ".join(
        f"{after.get(t, 0):,} {one if after.get(t, 0) == 1 else many}" for t, one, many in COUNTED
    )
    added = {t: after.get(t, 0) - before.get(t, 0) for t in after}
    if not any(added.values()):
        change = "nothing changed: the database already held this demo"
    else:
        grew = [f"{n:,} {t}" for t, n in sorted(added.items(), key=lambda x: -x[1]) if n > 0][:4]
        change = f"added {', '.join(grew)}" if grew else "rows changed"
    return "\n".join(
        [
            f"Demo database ready: {db_label} ({change}; {seconds:.0f} s).",
            f"It holds {held}.",
            f"Open it:  make run (or python -m core --db {db_label} serve), then "
            "http://127.0.0.1:8501",
            "Start on: Overview (what is here and where to start), then Side by side and "
            "NarrativeQA disputes.",
            f"Details:  python -m core --db {db_label} demo --json (every step's result)",
        ]
    )
