"""XRAG per-article notes: imported human single-step QAs, and model-written summaries and
single-step QAs of the paired articles.

Both steps are LLM stages (:func:`core.llm.stage.run_stage`): the requests are planned first,
sent with no transaction open, and each reply's notes are stored in their own transaction as it
arrives, so an interrupted run keeps what was paid for and a rerun asks only for what is missing.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.corpus.tabular import optional_text, read_records, require_text
from core.errors import ConfigError, InputError
from core.llm.prompts import prompt_hash, render_prompt
from core.llm.stage import run_stage
from core.llm.types import LLMRequest, LLMResponse, require_real_model
from core.store.connection import dumps, transaction, utcnow
from core.store.documents import document_ids, get_document
from core.store.xrag import add_article_note, article_notes, qa_note_sources
from core.xrag.articles import LANGUAGE_CODE, get_pairs
from core.xrag.model_calls import ArticleText, json_reply

if TYPE_CHECKING:
    from core.store.engine import Database

MAX_QAS = 6


def article(db: Database, doc_id: str) -> ArticleText:
    """``id, title, text`` of an article (InputError when unknown)."""
    found = get_document(db, doc_id)
    if found is None:
        raise InputError(f"unknown article {doc_id!r}")
    return ArticleText(id=found.id, title=found.title, text=found.text)


def latest_summary(db: Database, article_id: str) -> str:
    """The latest stored summary of an article, or ``(no summary)``."""
    notes = article_notes(db, article_id, "summary")
    return notes[-1]["answer"] if notes else "(no summary)"


def _article_ids(db: Database, article_ids: list[str] | None) -> list[str]:
    if article_ids:
        return article_ids
    ids: set[str] = set()
    for p in get_pairs(db):
        ids.update((p["article_a"], p["article_b"]))
    return sorted(ids)


def _provenance(model: str, prompt: str) -> str:
    return dumps({"builder": "llm", "model": model, "prompt_hash": prompt_hash(prompt)})


def _todo(
    db: Database, article_ids: list[str] | None, kind: str, stats: Counter[str]
) -> list[ArticleText]:
    """The articles without a ``kind`` note yet (the others are counted as ``already done``)."""
    todo = []
    for a in _article_ids(db, article_ids):
        if article_notes(db, a, kind):
            stats["already done"] += 1
        else:
            todo.append(article(db, a))
    return todo


def summarize_articles(
    db: Database,
    model: str,
    article_ids: list[str] | None = None,
    *,
    run_id: str | None = None,
) -> dict[str, int]:
    """Ask ``model`` for a short summary of each paired article lacking one; store it as a note.

    Re-running asks only for the articles still without a summary (counted as ``already done``).
    """

    require_real_model(model, "summarising articles")
    stats: Counter[str] = Counter()
    planned = [
        (
            a,
            LLMRequest(
                model=model,
                task="summarize",
                max_tokens=400,
                prompt=render_prompt("xrag_summarize", title=a["title"], text=a["text"]),
                fields={"title": a["title"], "text": a["text"]},
                purpose="xrag-summary",
            ),
        )
        for a in _todo(db, article_ids, "summary", stats)
    ]

    def store(db: Database, art: ArticleText, resp: LLMResponse) -> str:
        summary = str((json_reply(resp) or {}).get("summary") or "").strip()
        if not summary:
            return "unparsed"
        add_article_note(
            db,
            {
                "article_id": art["id"],
                "kind": "summary",
                "answer": summary,
                "language": "en",
                "provenance": _provenance(model, "xrag_summarize"),
                "created_at": utcnow(),
            },
        )
        return "stored"

    return run_stage(db, planned, store, run_id=run_id, counts=stats)


def valid_qas(obj: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The ``qas`` of a reply that have a non-empty question and answer."""
    qas = (obj or {}).get("qas")
    if not isinstance(qas, list):
        return []
    return [
        q
        for q in qas
        if isinstance(q, dict)
        and str(q.get("question", "")).strip()
        and str(q.get("answer", "")).strip()
    ]


def generate_single_qas(
    db: Database,
    model: str,
    article_ids: list[str] | None = None,
    *,
    max_pairs: int = MAX_QAS,
    run_id: str | None = None,
) -> dict[str, int]:
    """Ask ``model`` for 1..``max_pairs`` single-step QAs per article; store valid ones.

    An article that already has English single-step QAs (model-written or imported) is skipped
    (``already done``), so re-running never takes an article past ``MAX_QAS``.
    """

    require_real_model(model, "writing single-step questions")
    if not 1 <= max_pairs <= MAX_QAS:
        raise ConfigError(f"max_pairs must be between 1 and {MAX_QAS}")
    stats: Counter[str] = Counter()
    planned = [
        (
            a,
            LLMRequest(
                model=model,
                task="generate_questions",
                max_tokens=800,
                prompt=render_prompt(
                    "xrag_single_qa", title=a["title"], text=a["text"], max_pairs=max_pairs
                ),
                fields={"title": a["title"], "text": a["text"], "max_pairs": max_pairs},
                purpose="xrag-single-qa",
            ),
        )
        for a in _todo(db, article_ids, "qa", stats)
    ]

    def store(db: Database, art: ArticleText, resp: LLMResponse) -> str:
        valid = valid_qas(json_reply(resp))
        if not valid:
            return "unparsed"
        stats["truncated"] += max(0, len(valid) - max_pairs)
        for q in valid[:max_pairs]:
            add_article_note(
                db,
                {
                    "article_id": art["id"],
                    "kind": "qa",
                    "question": str(q["question"]).strip(),
                    "answer": str(q["answer"]).strip(),
                    "language": "en",
                    "provenance": _provenance(model, "xrag_single_qa"),
                    "created_at": utcnow(),
                },
            )
            stats["stored"] += 1
        return "articles stored"  # one a reply ("stored" counts the QAs)

    return run_stage(db, planned, store, run_id=run_id, counts=stats)


def import_single_qas(db: Database, path: str | Path, *, builder: str = "xquad-human") -> int:
    """Import human single-step QAs (``id, article_id, language, question, answers``) as notes.

    ``article_id`` is the ENGLISH article; ``xquad_id`` (optional) links the language versions of
    one QA. At most six QAs per article and language are kept. Re-importing adds nothing.
    """
    records = read_records(path, ["id", "article_id", "language", "question", "answers"])
    known = set(document_ids(db, ["article"]))
    todo = []
    for line, rec in records:
        lang = str(rec.get("language") or "").strip().lower()
        if not LANGUAGE_CODE.match(lang):
            raise InputError(
                f"language {rec.get('language')!r} is not an ISO 639-1 code such as 'en'",
                path=str(path),
                line=line,
                column="language",
            )
        rec["language"] = lang
        for column in ("id", "article_id", "question"):  # text (ids: or whole numbers)
            rec[column] = require_text(rec, column, path, line)
        if rec.get("xquad_id") is not None:
            rec["xquad_id"] = optional_text(rec, "xquad_id", path, line)
        if rec["article_id"] not in known:
            raise InputError(
                f"unknown article {rec['article_id']!r}",
                path=str(path),
                line=line,
                column="article_id",
            )
        answers = rec["answers"]
        if isinstance(answers, str):
            answers = [answers]
        if (
            not isinstance(answers, list)
            or not answers
            or not all(isinstance(a, str) and a.strip() for a in answers)
        ):
            raise InputError("answers must be a non-empty list of texts", path=str(path), line=line)
        todo.append(rec)
    done = {
        (r["article_id"], r["language"], r["provenance"].get("source_id"))
        for r in qa_note_sources(db)
    }
    per: dict[tuple[str, str], int] = defaultdict(int)
    for art, lang, _ in done:
        per[(art, lang)] += 1
    added = 0
    with transaction(db):
        for rec in todo:
            key = (rec["article_id"], rec["language"])
            if (*key, rec["id"]) in done or per[key] >= 6:
                continue
            per[key] += 1
            add_article_note(
                db,
                {
                    "article_id": rec["article_id"],
                    "kind": "qa",
                    "language": rec["language"],
                    "question": str(rec["question"]).strip(),
                    "answer": str(rec["answers"][0]).strip()
                    if isinstance(rec["answers"], list)
                    else str(rec["answers"]).strip(),
                    "provenance": dumps(
                        {
                            "builder": builder,
                            "source_id": rec["id"],
                            "xquad_id": rec.get("xquad_id") or rec["id"],
                            "answers": rec["answers"],
                        }
                    ),
                    "created_at": utcnow(),
                },
            )
            added += 1
    return added
