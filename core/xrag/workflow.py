"""Cross-lingual RAG (XRAG): the public entry points of the XRAG builder and evaluation.

The work is split by job: :mod:`core.xrag.articles` (import, pairing), :mod:`core.xrag.notes`
(summaries, single-step QAs), :mod:`core.xrag.build` (cross-document questions),
:mod:`core.xrag.baseline` (XQuAD baseline items), :mod:`core.xrag.translate`,
:mod:`core.xrag.distractors` (distractors), :mod:`core.annotation.guideline` (quality control),
:mod:`core.xrag.judges` (panel), :mod:`core.xrag.language` (lingua), :mod:`core.xrag.evaluate`
(settings, runs) and :mod:`core.views.xrag` (tables for the app and the report).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.errors import InputError
from core.xrag.articles import import_articles, pair_articles
from core.xrag.baseline import compose_baseline
from core.xrag.distractors import select_distractors
from core.xrag.evaluate import SETTINGS, evaluate
from core.xrag.model_calls import TARGET_LANGUAGES
from core.xrag.notes import import_single_qas

if TYPE_CHECKING:
    from core.store.engine import Database

DEMO_MODEL = "offline:extractive"


def demo_folder(demo_dir: str | Path) -> Path:
    """``demo_dir`` itself if it holds the XRAG sample, else its ``xrag/`` subfolder."""
    path = Path(demo_dir)
    for candidate in (path, path / "xrag"):
        if (candidate / "articles.jsonl").is_file() and (candidate / "qas.jsonl").is_file():
            return candidate
    raise InputError("no XRAG demo sample (articles.jsonl, qas.jsonl)", path=str(path))


def build_demo(db: Database, demo_dir: str | Path, *, model: str = DEMO_MODEL) -> dict[str, Any]:
    """Import the bundled XQuAD sample, build baseline items and run the offline evaluation.

    XQuAD stands in for XRAG data: two paragraphs of one XQuAD article play two related articles
    (paired with one shared title entity, since XQuAD titles name one entity), XQuAD's human
    translations give the non-English articles and questions, and publication dates are synthetic.
    Every step is idempotent; a second call only re-reads.
    """
    folder, started = demo_folder(demo_dir), time.perf_counter()
    summary: dict[str, Any] = {
        "articles": import_articles(db, folder / "articles.jsonl", source="xquad"),
        "single_qas": import_single_qas(db, folder / "qas.jsonl"),
        "pairs": pair_articles(db, min_shared=1),
        "items": compose_baseline(db),
        "distractors": select_distractors(db, languages=TARGET_LANGUAGES),
        "evaluation": evaluate(
            db, model, settings=SETTINGS, languages=TARGET_LANGUAGES, controlled=True
        ),
    }
    summary["seconds"] = round(time.perf_counter() - started, 2)
    return summary
