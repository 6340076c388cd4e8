"""What the pages show: tables and records assembled from the store (pages call this, never SQL).

Nothing here imports Streamlit. Untrusted text (books, model answers) is returned as plain text;
:func:`escape_markdown` / :func:`highlight_markdown` (:mod:`core.views.text`) make it safe for
``st.markdown``. This module holds the Overview and the exports and re-exports each page's
views: :mod:`core.views.review`, :mod:`core.views.disputes`, :mod:`core.views.judgments`
(Side by side, Browse), :mod:`core.views.run`, :mod:`core.views.exam_book`. The Agreement and
Leaderboard pages' tables and plotly figures live in :mod:`core.views.figures`.
"""

from __future__ import annotations

import io
import json
from typing import TYPE_CHECKING, TypedDict

import pandas as pd

from core.annotation.base import Progress, required_annotations
from core.annotation.pairwise import pairwise_items
from core.annotation.task_registry import task_names
from core.annotation.tasks import task_progress
from core.corpus.spreadsheet import spreadsheet_frame
from core.store.answers import imported_answer_counts
from core.store.connection import table_counts
from core.store.documents import document_totals
from core.store.judgment_counts import (
    count_judgments,
    imported_verdict_counts,
    judge_models,
    summary_by_rater,
)
from core.store.judgments import JudgmentStatus
from core.store.questions import generator_models, pending_review_count, review_summary_by_origin
from core.store.resolutions import resolved_dispute_count
from core.store.runs import RunStatus, count_runs, recent_runs
from core.store.setups import setup_models
from core.views.text import InertMarkdown

if TYPE_CHECKING:
    from core.store.engine import Database


from core.views.disputes import dispute_ids

#: Model-id prefixes of the key-free baselines (algorithms, not language models).
OFFLINE_PREFIXES = ("offline", "baseline", "rule")
#: Model-id prefixes of answers imported from elsewhere (not produced in this workbench).
IMPORTED_PREFIXES = ("prd:", "imported:")


#: Document kinds as people read them (a stored kind not listed here is shown as stored).
KIND_WORDS = {"story-missing": "story without its text (summary only)"}


class ImportedSource(TypedDict):
    """An evaluation imported from elsewhere (:func:`imported_sources`)."""

    source: str  # the source file's name
    answers: int
    verdicts: int
    about: InertMarkdown | str  # the project's description of a known set, else ""


class Overview(TypedDict):
    """What the Overview page shows (:func:`overview`)."""

    empty: bool  # no documents and no questions
    counts: dict[str, int]  # rows per table
    datasets: pd.DataFrame
    by_origin: pd.DataFrame
    judgments: pd.DataFrame
    runs: pd.DataFrame
    attention: dict[str, int]  # what needs human attention -> how many
    k: int  # annotations required per item
    models: list[str]
    made_here: list[str]  # the models not imported from elsewhere
    offline_only: bool
    imported: list[ImportedSource]
    side_by_side_items: int
    total_cost_usd: float


def overview(db: Database) -> Overview:
    """Counts, datasets, runs and what needs human attention."""
    counts = table_counts(db)
    empty = counts.get("documents", 0) == 0 and counts.get("questions", 0) == 0
    datasets = pd.DataFrame(document_totals(db))
    if "kind" in datasets:
        datasets["kind"] = [KIND_WORDS.get(k, k) for k in datasets["kind"]]
    by_origin = pd.DataFrame(review_summary_by_origin(db))
    judgments = pd.DataFrame(summary_by_rater(db))
    runs = pd.DataFrame(
        [
            {
                "id": r.id,
                "kind": r.kind,
                "name": r.name,
                "status": str(r.status),
                "started_at": r.started_at,
                "finished_at": r.finished_at,
                "n_calls": r.n_calls,
                "input_tokens": r.input_tokens,
                "output_tokens": r.output_tokens,
                "cost_usd": r.cost_usd,
            }
            for r in recent_runs(db, 50)
        ]
    )
    k = required_annotations(db)
    shown = dispute_ids(db) if counts.get("disputes", 0) else []  # one per answer text
    n_disputes = len(shown)
    resolved = resolved_dispute_count(db, shown)
    attention = {
        "questions pending review": pending_review_count(db),
        "disputes without a resolution": int(n_disputes - resolved),
        "unparsed judge replies": count_judgments(db, JudgmentStatus.UNPARSED),
        "runs still running or failed": count_runs(
            db, (RunStatus.RUNNING, RunStatus.FAILED, RunStatus.INTERRUPTED)
        ),
    }
    models = sorted(setup_models(db) | generator_models(db) | judge_models(db))
    made_here = [m for m in models if not m.startswith(IMPORTED_PREFIXES)]
    return {
        "empty": empty,
        "counts": counts,
        "datasets": datasets,
        "by_origin": by_origin,
        "judgments": judgments,
        "runs": runs,
        "attention": attention,
        "k": k,
        "models": models,
        "made_here": made_here,
        "offline_only": bool(made_here)
        and all(m.split(":", 1)[0] in OFFLINE_PREFIXES for m in made_here),
        "imported": imported_sources(db),
        "side_by_side_items": len(pairwise_items(db)),
        "total_cost_usd": float(runs["cost_usd"].sum()) if len(runs) else 0.0,
    }


PRD_ABOUT = (
    "**PRD Vicuna80** (questions `vicuna80-*`): the answers of five LLMs (GPT-4, GPT-3.5, "
    "Claude, Bard, Vicuna-13B) to the 80 Vicuna questions, GPT-4's pairwise reviews of them in "
    "both presentation orders (rater `auto:gpt-4 (PRD)`), three anonymous human ratings per "
    "question and ordered pair (slots `human:prd-crowd#1..3`) and their strict majority "
    "(`human:crowd-majority`). Real answers and real raters, made elsewhere and imported: "
    "from the PRD repository (github.com/bcdnlp/PRD, Li, Patel and Du 2023, arXiv:2307.02762; "
    "MIT license). Side by side shows these answers blind; Agreement compares GPT-4 with the "
    "crowd."
)


def my_queues(db: Database, name: str) -> dict[str, Progress]:
    """Task -> ``name``'s progress on their own queue (:func:`core.annotation.tasks.task_progress`:
    the numbers the task's page and ``queue NAME --task TASK`` show)."""
    return {task: task_progress(db, name, task) for task in task_names(db)}


def imported_sources(db: Database) -> list[ImportedSource]:
    """Evaluations imported from elsewhere (``import-answers`` / ``import-judgments``): per
    source file the answers and verdicts it brought, and a description of known sets (PRD)."""
    answers, verdicts = imported_answer_counts(db), imported_verdict_counts(db)
    return [
        {
            "source": source,
            "answers": answers.get(source, 0),
            "verdicts": verdicts.get(source, 0),
            # the project's own Markdown about a known source: inert, rendered as written
            "about": InertMarkdown(PRD_ABOUT) if source == "prd_vicuna80" else "",
        }
        for source in sorted({*answers, *verdicts})
    ]


def export_bytes(frame: pd.DataFrame, fmt: str) -> bytes:
    """A table as CSV or JSON Lines bytes (for ``st.download_button``); CSV cells that a
    spreadsheet would run as a formula are written as text (:mod:`core.corpus.spreadsheet`)."""
    if fmt == "csv":
        buf = io.StringIO()
        spreadsheet_frame(
            frame.assign(
                **{
                    c: frame[c].map(json.dumps)
                    for c in frame.columns
                    if frame[c].map(lambda v: isinstance(v, (list, dict))).any()
                }
            )
        ).to_csv(buf, index=False)
        return buf.getvalue().encode("utf-8")
    return "".join(
        json.dumps(r, ensure_ascii=False) + "\n" for r in frame.to_dict("records")
    ).encode("utf-8")
