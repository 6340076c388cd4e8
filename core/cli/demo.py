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

import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from core.store.engine import Database


from core.store.documents import document_ids
from core.store.settings import get_setting, update_setting

DEMO_DIR = Path(__file__).resolve().parents[2] / "demo"
DEMO_ANNOTATIONS_PER_ITEM = 2


def build_demo(
    db: Database,
    demo_dir: Path | None = None,
    *,
    quick: bool = False,
    progress: bool = False,
) -> dict[str, Any]:
    """Build (or refresh) the demo database; return what each step did and how long it took."""
    demo_dir = demo_dir or DEMO_DIR
    summary: dict[str, Any] = {}
    if get_setting(db, "annotations_per_item") == "":
        # Two annotations per item, so two people meet on the same items and their agreement
        # (and adjudication of their disagreements) appears. A value set earlier is kept.
        update_setting(db, "annotations_per_item", DEMO_ANNOTATIONS_PER_ITEM)

    def step(name: str, fn: Callable[[], Any]) -> None:
        start = time.perf_counter()
        result = fn()
        summary[name] = {"result": result, "seconds": round(time.perf_counter() - start, 2)}
        if progress:
            print(f"demo: {name} done in {summary[name]['seconds']} s", flush=True)

    from core.corpus.books import (
        import_books,
    )
    from core.corpus.narrativeqa import (
        import_narrativeqa,
    )

    step(
        "narrativeqa",
        lambda: import_narrativeqa(db, demo_dir / "narrativeqa", progress=progress).as_dict(),
    )
    step("books", lambda: [r["id"] for r in import_books(db, demo_dir / "books")])
    step("prd_vicuna80", lambda: import_prd_demo(db, demo_dir))
    if quick:
        return summary

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
        full_texts = document_ids(db, ["book", "story"])
        out = {}
        for doc_id in full_texts:
            out[doc_id] = generate_questions(
                db, doc_id, "baseline", n_entities=8, per_entity=2, progress=False
            )["kept"]
        return out

    step("generated_questions", generate_all)
    step(
        "experiment",
        lambda: _experiment_summary(run_experiment(db, DEMO_EXPERIMENT, progress=progress)),
    )
    step("xrag", lambda: _short(build_xrag_demo(db, demo_dir)))
    step("exam", lambda: _short(build_exam_demo(db, demo_dir)))
    step("exam_book", lambda: _short(build_exam_book_demo(db, progress=progress)))
    return summary


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
