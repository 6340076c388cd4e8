"""EXAM vs. side-by-side judging on one book: the same systems scored both ways, correlated.

The issue's "tie the seeds together": for one book, the EXAM scores of systems that write an
overview of the book (exam = the book's generated long-span questions) against the
Bradley-Terry ranking of the same systems from side-by-side judging of their answers.

A *book system* reads the book once through a context strategy and keeps what it read as its
**overview** (retrieval only, offline; it never sees the exam questions):

* ``bm25-entities-N`` - BM25 passages for the book's top-10 entity names (one query) up to ``N``
  tokens, in book order (:func:`core.corpus.retrieval.retrieve`);
* ``opening-N`` - the book's first passages up to ``N`` tokens;
* ``spread-N`` - passages at ``k`` evenly spaced positions ``floor((i + 1/2) P / k)`` of the ``P``
  passages, ``k`` grown until the next one would overflow ``N`` tokens.

The overview is stored (a) as the system's EXAM article for the book and (b) as the document
``<book>#exam-overview:<strategy>`` (kind ``overview``), which the same system, an ``oracle``
system of :mod:`core.answering.systems`, answers the questions from. ``experiments/exam_book_demo.toml``
names the systems (their ``suffix`` names the strategy) and the side-by-side judge.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict

import numpy as np

if TYPE_CHECKING:
    from core.store.engine import Database

from core.corpus.documents import check_replacement, upsert_document
from core.errors import ConfigError, InputError
from core.exam.articles import lead_article, retrieval_article, store_article
from core.exam.bank import derive_bank
from core.exam.bt_correlation import correlate_with_bradley_terry
from core.exam.grading import grade_bank
from core.pipeline.config import load_experiment, read_toml
from core.pipeline.experiment import run_experiment
from core.store.connection import transaction, utcnow
from core.store.documents import get_document, get_passages
from core.store.entities import latest_method_entity_names
from core.store.exam_results import BookCorrelation, replace_book_correlation
from core.store.questions import question_counts_by_document

DEMO_BOOK = "book:pg135-les-miserables-hugo-hapgood"
BOOK_EXPERIMENT = Path(__file__).resolve().parents[2] / "experiments" / "exam_book_demo.toml"
SUFFIX = "#exam-overview:"
STATUSES = ("accepted", "edited", "pending")
TOP_ENTITIES = 10
MIN_QUESTIONS = 5
#: self-rating threshold of the offline lexical answerability grade (as the CAR demo)
BOOK_THRESHOLD = 2
_STRATEGY = re.compile(r"^(bm25-entities|opening|spread)-([1-9][0-9]*)$")


def generated_counts(db: Database) -> dict[str, int]:
    """Generated questions (not rejected/discarded) per full-text document (book or story)."""
    return question_counts_by_document(db, "generated", list(STATUSES), ["book", "story"])


def pick_book(db: Database, preferred: str = DEMO_BOOK, min_questions: int = MIN_QUESTIONS) -> str:
    """``preferred`` if it has at least ``min_questions`` generated questions, else the document
    with the most (ties: smallest id); ``InputError`` when no document has enough."""
    counts = generated_counts(db)
    if counts.get(preferred, 0) >= min_questions:
        return preferred
    best = sorted(((-n, d) for d, n in counts.items() if n >= min_questions))
    if not best:
        raise InputError(
            f"no book or story has {min_questions} generated questions "
            "(run `python -m core generate DOC --model baseline` first)"
        )
    return best[0][1]


def top_entity_names(db: Database, document_id: str, n: int = TOP_ENTITIES) -> list[str]:
    """Names of the ``n`` top-ranked entities of the document's latest entity method."""
    return latest_method_entity_names(db, document_id, n)


def _spread(db: Database, document_id: str, budget: int) -> str | None:
    ps = get_passages(db, document_id)
    best: list[int] = []
    for k in range(1, len(ps) + 1):
        idx = sorted({int((i + 0.5) * len(ps) / k) for i in range(k)})
        if sum(ps[i].n_tokens for i in idx) > budget:
            break
        best = idx
    return "\n\n".join(ps[i].text for i in best) if best else None


def overview(db: Database, document_id: str, strategy: str) -> tuple[str | None, dict[str, Any]]:
    """The overview text of ``strategy`` (see module docstring) and its provenance."""

    m = _STRATEGY.match(strategy)
    if not m:
        raise ConfigError(
            f"unknown overview strategy {strategy!r}; use bm25-entities-N, opening-N or spread-N"
        )
    kind, budget = m.group(1), int(m.group(2))
    meta: dict[str, Any] = {"strategy": strategy, "budget_tokens": budget}
    if kind == "opening":
        return lead_article(db, document_id, budget), meta
    if kind == "spread":
        return _spread(db, document_id, budget), meta
    names = top_entity_names(db, document_id)
    if not names:
        doc = get_document(db, document_id)
        names = [doc.title] if doc is not None and doc.title else []
    meta["query"] = " ".join(names)
    return (retrieval_article(db, document_id, meta["query"], budget) if names else None), meta


def book_systems(config: dict[str, Any]) -> dict[str, str]:
    """``{system name: strategy}`` of the config's overview systems (``oracle`` + our suffix)."""
    out = {}
    for s in config.get("systems", []):
        suffix = str(s.get("suffix", ""))
        if s.get("kind") != "oracle" or not suffix.startswith(SUFFIX):
            raise ConfigError(
                f'system {s.get("name")!r}: a book system is kind = "oracle" with '
                f'suffix = "{SUFFIX}<strategy>"'
            )
        out[s["name"]] = suffix[len(SUFFIX) :]
    if len(out) < 3:
        raise ConfigError("a correlation needs at least 3 book systems")
    return out


class WrittenOverview(TypedDict):
    """One system's stored overview: its strategy, its tokens and whether its text changed."""

    strategy: str
    tokens: int
    changed: bool


def write_overviews(
    db: Database, document_id: str, bank_id: str, systems: dict[str, str]
) -> dict[str, WrittenOverview]:
    """Store each system's overview as its EXAM article and as ``<book>#exam-overview:<s>``.

    Returns per system the tokens and whether the overview document changed (answers already
    stored for a changed overview are kept by the experiment runner: the result says so).
    """

    book = get_document(db, document_id)
    if book is None:
        raise InputError(f"unknown document {document_id!r}")
    out: dict[str, WrittenOverview] = {}
    with transaction(db):
        for name, strategy in systems.items():
            text, meta = overview(db, document_id, strategy)
            if not text:
                raise InputError(
                    f"system {name!r}: strategy {strategy!r} finds nothing in {document_id!r}"
                )
            # Another import's document under the overview's id is refused (all rolled back).
            overview_id = f"{document_id}{SUFFIX}{strategy}"
            check_replacement(db, overview_id, text, kind="overview", source="exam", replace=False)
            doc = upsert_document(
                db,
                overview_id,
                text,
                kind="overview",
                source="exam",
                title=f"{book.title} ({strategy} overview)",
                author=book.author,
                parent_id=document_id,
                metadata=meta,
                passages=False,
            )
            store_article(db, bank_id, document_id, name, text, kind="retrieval", metadata=meta)
            out[name] = WrittenOverview(
                strategy=strategy, tokens=doc["n_tokens"], changed=doc["status"] == "updated"
            )
    return out


def _config(path_or_config: str | Path | dict[str, Any], document_id: str) -> dict[str, Any]:

    raw = dict(path_or_config) if isinstance(path_or_config, dict) else read_toml(path_or_config)
    data = dict(raw.get("data", {}))
    if list(data.get("documents") or []) != [document_id]:
        raw["name"] = f"{raw.get('name', 'exam_book')}:{document_id[:24]}"
    data.update(documents=[document_id], origin="generated", status=list(STATUSES))
    raw["data"] = data
    return raw


def store_correlation(
    db: Database,
    document_id: str,
    exam_run_id: str,
    experiment: str,
    rater: str,
    result: dict[str, Any],
    per_system: list[dict[str, Any]],
    n_questions: int,
) -> None:
    """Insert or replace the stored correlation of (book, EXAM run, rater)."""
    replace_book_correlation(
        db,
        BookCorrelation(
            document_id=document_id,
            exam_run_id=exam_run_id,
            experiment=experiment,
            rater=rater,
            n_systems=result["n_systems"],
            n_questions=n_questions,
            spearman=result["spearman"],
            kendall=result["kendall"],
            spearman_ties=result.get("spearman_ties"),
            kendall_ties=result.get("kendall_ties"),
            repeats=result.get("repeats"),
            seed=result.get("seed"),
            n_judgments=result.get("n_judgments"),
            n_decisive=result.get("n_decisive"),
            bt_estimate=result.get("bt_estimate", ""),
            systems=per_system,
            created_at=utcnow(),
        ),
    )


def build_book_demo(
    db: Database,
    document_id: str | None = None,
    *,
    config: str | Path | dict[str, Any] = BOOK_EXPERIMENT,
    n_boot: int = 200,
    repeats: int = 10,
    seed: int = 0,
    progress: bool = False,
) -> dict[str, Any]:
    """EXAM of overview-writing systems vs. their side-by-side Bradley-Terry ranking, one book.

    1. book: ``document_id``, else :func:`pick_book` (the demo book, else the story with the
       most generated questions); 2. exam bank = its generated questions (:func:`derive_bank`);
    3. each system's overview (never built from the exam) stored as article and document;
    4. EXAM grading, offline (lexical self-rating >= ``BOOK_THRESHOLD``);
    5. the experiment ``config``: the systems answer the same questions from their overviews
       (``offline:extractive``), judged side by side by ``offline:lexical`` in both orders;
    6. Spearman / Kendall (plain and with the 1-SE tie rule) of EXAM vs. Bradley-Terry, stored in
       ``exam_book_correlations``. Idempotent: reruns replace articles, grades and the stored
       correlation, and the experiment runner skips stored answers and judgments.
    """

    started = time.perf_counter()
    document_id = document_id or pick_book(db)
    raw = _config(config, document_id)
    exp = load_experiment(raw)
    systems = book_systems(raw)
    judge = exp.pairwise_judges[0] if exp.pairwise_judges else None
    if judge is None:
        raise ConfigError(f"experiment {exp.name!r} has no side-by-side judge")
    bank = derive_bank(db, document_id)
    bank_id = bank["bank_id"]
    overviews = write_overviews(db, document_id, bank_id, systems)
    run_id = grade_bank(
        db,
        bank_id,
        verification="self_rating",
        threshold=BOOK_THRESHOLD,
        systems=list(systems),
        run_id=f"exam:{bank_id}:book-demo",
    )
    experiment = run_experiment(db, raw, progress=progress)
    try:
        corr = correlate_with_bradley_terry(
            db,
            run_id,
            document_id,
            rater=judge.rater,
            systems=list(systems),
            n_boot=n_boot,
            repeats=repeats,
            seed=seed,
        )
    except InputError as exc:  # no decisive verdict: offline answers that only copy sentences
        return {
            "document_id": document_id,
            "exam_run_id": run_id,
            "experiment": exp.name,
            "n_questions": bank["n_questions"],
            "error": f"no Bradley-Terry ranking of the overviews ({exc}); nothing stored",
        }
    per_system = [
        {
            "system": s,
            "strategy": systems[s],
            "tokens": overviews[s]["tokens"],
            "exam": corr["exam"][s],
            "exam_se": corr["exam_se"][s],
            "bt": corr["bradley_terry"][s],
            "bt_se": corr["bradley_terry_se"][s],
        }
        for s in systems
    ]
    store_correlation(
        db, document_id, run_id, exp.name, judge.rater, corr, per_system, bank["n_questions"]
    )
    return {
        "document_id": document_id,
        "bank_id": bank_id,
        "exam_run_id": run_id,
        "experiment": exp.name,
        "rater": judge.rater,
        "n_questions": bank["n_questions"],
        "n_judgments": corr["n_judgments"],
        "n_decisive": corr["n_decisive"],
        "n_questions_decisive": corr["n_questions_decisive"],
        "bt_estimate": corr["bt_estimate"],
        "systems": per_system,
        "stale_answers": [s for s, o in overviews.items() if o["changed"]],
        **{
            k: corr[k]
            for k in (
                "n_systems",
                "spearman",
                "kendall",
                "spearman_ties",
                "kendall_ties",
                "repeats",
                "seed",
            )
        },
        "answers": experiment.get("answers"),
        "judges": experiment.get("judges"),
        "seconds": round(time.perf_counter() - started, 2),
    }


def ranks(values: Iterable[float]) -> list[int]:
    """1-based competition ranks, higher value first (ties share the better rank)."""
    v = np.asarray(list(values), dtype=float)
    return [int((v > x).sum()) + 1 for x in v]
