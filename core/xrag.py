"""Cross-lingual RAG (XRAG): the public entry points of the XRAG builder and evaluation.

The work is split by job: :mod:`core.xrag_articles` (import, pairing), :mod:`core.xrag_build`
(notes, cross-document questions, baseline items), :mod:`core.xrag_translate`,
:mod:`core.xrag_retrieval` (distractors), :mod:`core.xrag_review` (quality control),
:mod:`core.xrag_judges` (panel), :mod:`core.xrag_language` (lingua), :mod:`core.xrag_eval`
(settings, runs) and :mod:`core.xrag_views` (tables for the app and the report).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import sqlite_utils

from core.errors import InputError
from core.xrag_articles import import_articles, import_single_qas, pair_articles
from core.xrag_build import compose_baseline
from core.xrag_eval import SETTINGS, evaluate
from core.xrag_llm import TARGET_LANGUAGES
from core.xrag_retrieval import select_distractors

DEMO_MODEL = "offline:extractive"


def demo_folder(demo_dir: str | Path) -> Path:
    """``demo_dir`` itself if it holds the XRAG sample, else its ``xrag/`` subfolder."""
    path = Path(demo_dir)
    for candidate in (path, path / "xrag"):
        if (candidate / "articles.jsonl").is_file() and (candidate / "qas.jsonl").is_file():
            return candidate
    raise InputError("no XRAG demo sample (articles.jsonl, qas.jsonl)", path=str(path))


def build_demo(db: sqlite_utils.Database, demo_dir: str | Path, *,
               model: str = DEMO_MODEL) -> dict[str, Any]:
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
        "evaluation": evaluate(db, model, settings=SETTINGS, languages=TARGET_LANGUAGES,
                               controlled=True),
    }
    summary["seconds"] = round(time.perf_counter() - started, 2)
    return summary
