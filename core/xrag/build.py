"""XRAG benchmark construction: per-article notes, cross-document questions, baseline items.

Each cross-document question is built from at least one single-step question of EACH article of
a pair, is at most ``MAX_WORDS`` words long and has an English answer. It is stored as a
``questions`` row (``origin='xrag'``, ``context_kind='articles'``) plus an ``xrag_items`` row
recording the pair, the type and the sub-questions it was built from.

Model-built steps (summaries, single-step QAs, cross questions) need a real model; offline they
raise ConfigError. The offline demo instead composes baseline items from XQuAD's human
questions (``compose_baseline``), named ``builder='baseline:xquad-compose'``.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from typing import Any

import sqlite_utils

from core.errors import ConfigError, InputError
from core.llm.prompts import prompt_hash, render_prompt
from core.llm.types import LLMRequest
from core.store.connection import dumps, rows, transaction, utcnow
from core.xrag.articles import get_pairs
from core.xrag.language import detect_language
from core.xrag.model_calls import ask_json, require_real_model
from core.xrag.translate import store_translation

MAX_WORDS = 25
MAX_QAS = 6
QTYPES = {
    "aggregation": "It asks for a total, count or combination of quantities or facts that the "
    "two articles report separately.",
    "comparison": "It compares one attribute (a date, number, size, outcome) of something in "
    "article A with the same attribute of something in article B.",
    "multihop": "It needs a fact from one article to find the entity or fact the other article "
    "reports about it (a bridge entity links them).",
    "set": "It asks for all items of a kind reported across both articles (a union, "
    "intersection or difference of sets).",
}
_WORDS = re.compile(r"\S+")


def word_count(text: str) -> int:
    """Whitespace-separated words (the 25-word limit is on the English question)."""
    return len(_WORDS.findall(text))


def _article(db: sqlite_utils.Database, doc_id: str) -> dict[str, Any]:
    found = rows(db, "select id, title, text from documents where id = ?", [doc_id])
    if not found:
        raise InputError(f"unknown article {doc_id!r}")
    return found[0]


def article_notes(
    db: sqlite_utils.Database, article_id: str, kind: str, language: str = "en"
) -> list[dict[str, Any]]:
    """The stored notes (``summary`` or ``qa``) of an English article, in insertion order."""
    return rows(
        db,
        "select * from xrag_article_notes where article_id = ? and kind = ? "
        "and language = ? order by id",
        [article_id, kind, language],
    )


def _article_ids(db: sqlite_utils.Database, article_ids: list[str] | None) -> list[str]:
    if article_ids:
        return article_ids
    ids = set()
    for p in get_pairs(db):
        ids.update((p["article_a"], p["article_b"]))
    return sorted(ids)


def summarize_articles(
    db: sqlite_utils.Database,
    model: str,
    article_ids: list[str] | None = None,
    *,
    run_id: str | None = None,
) -> dict[str, int]:
    """Ask ``model`` for a short summary of each paired article lacking one; store it as a note.

    Re-running asks only for the articles still without a summary (counted as ``already done``).
    """

    require_real_model(model, "summarising articles")
    stats: Counter = Counter()
    arts = []
    for a in _article_ids(db, article_ids):
        if article_notes(db, a, "summary"):
            stats["already done"] += 1
        else:
            arts.append(_article(db, a))
    reqs = [
        LLMRequest(
            model=model,
            task="summarize",
            max_tokens=400,
            prompt=render_prompt("xrag_summarize", title=a["title"], text=a["text"]),
            fields={"title": a["title"], "text": a["text"]},
            purpose="xrag-summary",
        )
        for a in arts
    ]
    replies = ask_json(db, reqs, run_id=run_id) if reqs else []
    with transaction(db):
        for art, (obj, _resp) in zip(arts, replies):
            summary = str((obj or {}).get("summary") or "").strip()
            if not summary:
                stats["unparsed"] += 1
                continue
            db["xrag_article_notes"].insert(
                {
                    "article_id": art["id"],
                    "kind": "summary",
                    "answer": summary,
                    "language": "en",
                    "provenance": dumps(
                        {
                            "builder": "llm",
                            "model": model,
                            "prompt_hash": prompt_hash("xrag_summarize"),
                        }
                    ),
                    "created_at": utcnow(),
                }
            )
            stats["stored"] += 1
    return dict(stats)


def generate_single_qas(
    db: sqlite_utils.Database,
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
    stats: Counter = Counter()
    arts = []
    for a in _article_ids(db, article_ids):
        if article_notes(db, a, "qa"):
            stats["already done"] += 1
        else:
            arts.append(_article(db, a))
    reqs = [
        LLMRequest(
            model=model,
            task="generate_questions",
            max_tokens=800,
            prompt=render_prompt(
                "xrag_single_qa", title=a["title"], text=a["text"], max_pairs=max_pairs
            ),
            fields={"title": a["title"], "text": a["text"], "max_pairs": max_pairs},
            purpose="xrag-single-qa",
        )
        for a in arts
    ]
    with transaction(db):
        for art, (obj, _) in zip(arts, ask_json(db, reqs, run_id=run_id) if reqs else []):
            qas = (obj or {}).get("qas")
            valid = (
                [
                    q
                    for q in qas
                    if isinstance(q, dict)
                    and str(q.get("question", "")).strip()
                    and str(q.get("answer", "")).strip()
                ]
                if isinstance(qas, list)
                else []
            )
            if not valid:
                stats["unparsed"] += 1
                continue
            stats["truncated"] += max(0, len(valid) - max_pairs)
            for q in valid[:max_pairs]:
                db["xrag_article_notes"].insert(
                    {
                        "article_id": art["id"],
                        "kind": "qa",
                        "question": str(q["question"]).strip(),
                        "answer": str(q["answer"]).strip(),
                        "language": "en",
                        "provenance": dumps(
                            {
                                "builder": "llm",
                                "model": model,
                                "prompt_hash": prompt_hash("xrag_single_qa"),
                            }
                        ),
                        "created_at": utcnow(),
                    }
                )
                stats["stored"] += 1
    return dict(stats)


def _summary(db: sqlite_utils.Database, article_id: str) -> str:
    """The latest stored summary of an article, or ``(no summary)``."""
    notes = article_notes(db, article_id, "summary")
    return notes[-1]["answer"] if notes else "(no summary)"


def _labelled(qas: list[dict[str, Any]], side: str) -> str:
    return (
        "\n".join(f"{side}{i}. {q['question']} -> {q['answer']}" for i, q in enumerate(qas, 1))
        or "(none)"
    )


def validate_cross_reply(
    obj: dict[str, Any] | None,
    qtype: str,
    qas_a: list[dict],
    qas_b: list[dict],
    max_words: int = MAX_WORDS,
) -> tuple[dict[str, Any] | None, str]:
    """Check a cross-question reply; ``(item, '')`` when valid else ``(None, reason)``.

    Valid: non-empty question of at most ``max_words`` words, non-empty answer that is not
    detected as another language than English, and sub-question labels naming at least one
    existing single-step QA of article A and one of article B.
    """
    if obj is None:
        return None, "unparsed"
    question, answer = str(obj.get("question") or "").strip(), str(obj.get("answer") or "").strip()
    if not question or not answer:
        return None, "empty question or answer"
    if word_count(question) > max_words:
        return None, f"question longer than {max_words} words"
    if detect_language(answer) not in (None, "en"):
        return None, "answer not in English"
    labels = obj.get("sub_questions")
    if not isinstance(labels, list):
        return None, "no sub_questions list"
    subs = []
    for label in labels:
        m = re.fullmatch(r"\s*([AB])\s*(\d+)\s*", str(label))
        pool = (qas_a if m and m.group(1) == "A" else qas_b) if m else []
        if not m or not 1 <= int(m.group(2)) <= len(pool):
            return None, f"unknown sub-question label {label!r}"
        q = pool[int(m.group(2)) - 1]
        subs.append({"article": m.group(1), "question": q["question"], "answer": q["answer"]})
    if not {"A", "B"} <= {s["article"] for s in subs}:
        return None, "sub-questions do not cover both articles"
    return {"question": question, "answer": answer, "qtype": qtype, "sub_questions": subs}, ""


def store_item(
    db: sqlite_utils.Database,
    pair: dict[str, Any],
    item: dict[str, Any],
    *,
    builder: str,
    provenance: dict[str, Any],
    run_id: str | None = None,
) -> str:
    """Insert an English cross-document question and its ``xrag_items`` row; return its id."""
    n = db.execute(
        "select count(*) from xrag_items where pair_id = ? and qtype = ?",
        [pair["id"], item["qtype"]],
    ).fetchone()[0]
    qid = f"xrag-{pair['id']}-{item['qtype']}-{n + 1}"
    now = utcnow()
    with transaction(db):
        db["questions"].insert(
            {
                "id": qid,
                "document_id": pair["article_a"],
                "context_document_id": pair["article_b"],
                "context_kind": "articles",
                "question": item["question"],
                "answers": dumps([item["answer"]]),
                "origin": "xrag",
                "qtype": item["qtype"],
                "language": "en",
                "status": "pending",
                "provenance": dumps(provenance),
                "metadata": dumps(
                    {"pair_id": pair["id"], "articles": [pair["article_a"], pair["article_b"]]}
                ),
                "run_id": run_id,
                "created_at": now,
                "updated_at": now,
            }
        )
        db["xrag_items"].insert(
            {
                "question_id": qid,
                "pair_id": pair["id"],
                "qtype": item["qtype"],
                "sub_questions": dumps(item["sub_questions"]),
                "builder": builder,
                "created_at": now,
            }
        )
    return qid


def build_cross_questions(
    db: sqlite_utils.Database,
    model: str,
    *,
    qtypes: list[str] | None = None,
    pair_ids: list[int] | None = None,
    max_words: int = MAX_WORDS,
    run_id: str | None = None,
) -> dict[str, int]:
    """One model-written question per pair and type; invalid replies are counted, not stored.

    A (pair, type) that already has a model-written item is skipped (``already done``); a
    rejected one is asked again on the next run. The prompt shows each article's summary when
    one is stored (``summarize_articles``).
    """

    require_real_model(model, "writing cross-document questions")
    qtypes = qtypes or list(QTYPES)
    unknown = set(qtypes) - set(QTYPES)
    if unknown:
        raise ConfigError(f"unknown question types {sorted(unknown)}; use {sorted(QTYPES)}")
    pairs = [p for p in get_pairs(db) if not pair_ids or p["id"] in pair_ids]
    stats: Counter = Counter()
    if not pairs:
        stats["no active pairs"] += 1
    jobs, reqs = [], []
    for pair in pairs:
        a, b = _article(db, pair["article_a"]), _article(db, pair["article_b"])
        qas_a, qas_b = article_notes(db, a["id"], "qa"), article_notes(db, b["id"], "qa")
        if not qas_a or not qas_b:
            raise ConfigError(
                f"pair {pair['id']}: single-step questions missing for one article; "
                "run `xrag build --step single-qa` first"
            )
        for qtype in qtypes:
            if db.execute(
                "select 1 from xrag_items where pair_id = ? and qtype = ? and builder = 'llm'",
                [pair["id"], qtype],
            ).fetchone():
                stats["already done"] += 1
                continue
            jobs.append((pair, qtype, qas_a, qas_b))
            reqs.append(
                LLMRequest(
                    model=model,
                    task="generate_questions",
                    max_tokens=600,
                    purpose="xrag-cross",
                    prompt=render_prompt(
                        "xrag_cross_question",
                        qtype=qtype,
                        type_definition=QTYPES[qtype],
                        max_words=max_words,
                        title_a=a["title"],
                        text_a=a["text"],
                        summary_a=_summary(db, a["id"]),
                        qas_a=_labelled(qas_a, "A"),
                        title_b=b["title"],
                        text_b=b["text"],
                        summary_b=_summary(db, b["id"]),
                        qas_b=_labelled(qas_b, "B"),
                    ),
                    fields={"qtype": qtype, "title_a": a["title"], "title_b": b["title"]},
                )
            )
    with transaction(db):
        for (pair, qtype, qas_a, qas_b), (obj, _) in zip(
            jobs, ask_json(db, reqs, run_id=run_id) if reqs else []
        ):
            item, reason = validate_cross_reply(obj, qtype, qas_a, qas_b, max_words)
            if item is None:
                stats[f"rejected: {reason}"] += 1
                continue
            store_item(
                db,
                pair,
                item,
                builder="llm",
                run_id=run_id,
                provenance={
                    "builder": "llm",
                    "model": model,
                    "prompt_hash": prompt_hash("xrag_cross_question"),
                },
            )
            stats["stored"] += 1
    return dict(stats)


def compose_baseline(
    db: sqlite_utils.Database, *, per_pair: int = 3, seed: int = 0, max_words: int = MAX_WORDS
) -> dict[str, int]:
    """Compose 'set'-style baseline items from human single-step QAs (XQuAD), no model involved.

    For each pair, up to ``per_pair`` items ``(1) <question of A> (2) <question of B>`` with the
    answer ``(1) <answer of A> (2) <answer of B>`` (first human answer each), drawn without
    repetition by a ``seed``-ed shuffle among combinations of at most ``max_words`` words.
    Translations are composed the same way from the human-translated QAs (same ``xquad_id``).
    """

    rng = random.Random(seed)
    stats: Counter = Counter()
    for pair in get_pairs(db):
        if db.execute(
            "select 1 from xrag_items where pair_id = ? and builder = ?",
            [pair["id"], "baseline:xquad-compose"],
        ).fetchone():
            stats["pairs already composed"] += 1
            continue
        qas_a = [
            q
            for q in article_notes(db, pair["article_a"], "qa")
            if q["provenance"].get("builder") == "xquad-human"
        ]
        qas_b = [
            q
            for q in article_notes(db, pair["article_b"], "qa")
            if q["provenance"].get("builder") == "xquad-human"
        ]
        combos = [
            (x, y)
            for x in qas_a
            for y in qas_b
            if word_count(x["question"]) + word_count(y["question"]) + 2 <= max_words
        ]
        rng.shuffle(combos)
        used: set[int] = set()
        made = 0
        for x, y in combos:
            if made >= per_pair or x["id"] in used or y["id"] in used:
                continue
            made += 1
            used.update((x["id"], y["id"]))
            item = {
                "question": f"(1) {x['question']} (2) {y['question']}",
                "answer": f"(1) {x['answer']} (2) {y['answer']}",
                "qtype": "set",
                "sub_questions": [
                    {
                        "article": "A",
                        "question": x["question"],
                        "answer": x["answer"],
                        "xquad_id": x["provenance"].get("xquad_id"),
                    },
                    {
                        "article": "B",
                        "question": y["question"],
                        "answer": y["answer"],
                        "xquad_id": y["provenance"].get("xquad_id"),
                    },
                ],
            }
            qid = store_item(
                db,
                pair,
                item,
                builder="baseline:xquad-compose",
                provenance={
                    "builder": "baseline:xquad-compose",
                    "xquad_ids": [x["provenance"].get("xquad_id"), y["provenance"].get("xquad_id")],
                },
            )
            stats["items"] += 1
            for lang, (tx, ty) in _human_translations(db, x, y).items():
                store_translation(
                    db,
                    qid,
                    lang,
                    f"(1) {tx['question']} (2) {ty['question']}",
                    f"(1) {tx['answer']} (2) {ty['answer']}",
                    provenance={"builder": "xquad-human-translation"},
                )
                stats["translations"] += 1
    return dict(stats)


def _human_translations(
    db: sqlite_utils.Database, x: dict, y: dict
) -> dict[str, tuple[dict, dict]]:
    """Per language, the human-translated versions of two English XQuAD notes."""
    out: dict[str, dict[str, dict]] = {}
    for note in (x, y):
        xid = note["provenance"].get("xquad_id")
        for t in rows(
            db,
            "select * from xrag_article_notes where article_id = ? and kind = 'qa' "
            "and language != 'en'",
            [note["article_id"]],
        ):
            if t["provenance"].get("xquad_id") == xid:
                out.setdefault(t["language"], {})[str(note["id"])] = t
    return {
        lang: (d[str(x["id"])], d[str(y["id"])])
        for lang, d in sorted(out.items())
        if str(x["id"]) in d and str(y["id"]) in d
    }
