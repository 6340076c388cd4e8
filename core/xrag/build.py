"""XRAG cross-document questions: one model-written question per article pair and type.

Each cross-document question is built from at least one single-step question of EACH article of
a pair (:mod:`core.xrag.notes`), is at most ``MAX_WORDS`` words long and has an English answer.
It is stored as a ``questions`` row (``origin='xrag'``, ``context_kind='articles'``) plus an
``xrag_items`` row recording the pair, the type and the sub-questions it was built from.

Model-built steps need a real model; offline they raise NeedsRealModelError. The offline demo
instead composes baseline items from XQuAD's human questions (:mod:`core.xrag.baseline`).
Building is an LLM stage (:func:`core.llm.stage.run_stage`): each valid reply is stored in its
own transaction as it arrives, never with a transaction held over the network run.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import TYPE_CHECKING, Any

from core.errors import ConfigError
from core.llm.prompts import prompt_hash, render_prompt
from core.llm.stage import run_stage
from core.llm.types import LLMRequest, LLMResponse, require_real_model
from core.store.connection import dumps, transaction, utcnow
from core.store.questions import Question, QuestionOrigin, QuestionStatus, insert_question
from core.store.xrag import add_xrag_item, article_notes, xrag_item_count, xrag_item_exists
from core.xrag.articles import get_pairs
from core.xrag.language import detect_language
from core.xrag.model_calls import json_reply
from core.xrag.notes import article, latest_summary

if TYPE_CHECKING:
    from core.store.engine import Database

MAX_WORDS = 25
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
#: One planned cross question: the pair, the question type, the single-step QAs of A and of B.
_CrossJob = tuple[dict[str, Any], str, list[dict[str, Any]], list[dict[str, Any]]]


def word_count(text: str) -> int:
    """Whitespace-separated words (the 25-word limit is on the English question)."""
    return len(_WORDS.findall(text))


def _labelled(qas: list[dict[str, Any]], side: str) -> str:
    return (
        "\n".join(f"{side}{i}. {q['question']} -> {q['answer']}" for i, q in enumerate(qas, 1))
        or "(none)"
    )


def validate_cross_reply(
    obj: dict[str, Any] | None,
    qtype: str,
    qas_a: list[dict[str, Any]],
    qas_b: list[dict[str, Any]],
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
    db: Database,
    pair: dict[str, Any],
    item: dict[str, Any],
    *,
    builder: str,
    provenance: dict[str, Any],
    run_id: str | None = None,
) -> str:
    """Insert an English cross-document question and its ``xrag_items`` row; return its id."""
    n = xrag_item_count(db, pair["id"], item["qtype"])
    qid = f"xrag-{pair['id']}-{item['qtype']}-{n + 1}"
    now = utcnow()
    with transaction(db):
        insert_question(
            db,
            Question(
                id=qid,
                document_id=pair["article_a"],
                context_document_id=pair["article_b"],
                context_kind="articles",
                question=item["question"],
                answers=[item["answer"]],
                origin=QuestionOrigin.XRAG,
                qtype=item["qtype"],
                language="en",
                status=QuestionStatus.PENDING,
                provenance=provenance,
                metadata={
                    "pair_id": pair["id"],
                    "articles": [pair["article_a"], pair["article_b"]],
                },
                run_id=run_id,
                created_at=now,
                updated_at=now,
            ),
        )
        add_xrag_item(
            db,
            {
                "question_id": qid,
                "pair_id": pair["id"],
                "qtype": item["qtype"],
                "sub_questions": dumps(item["sub_questions"]),
                "builder": builder,
                "created_at": now,
            },
        )
    return qid


def build_cross_questions(
    db: Database,
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
    stats: Counter[str] = Counter()
    if not pairs:
        stats["no active pairs"] += 1
    planned = []
    for pair in pairs:
        a, b = article(db, pair["article_a"]), article(db, pair["article_b"])
        qas_a, qas_b = article_notes(db, a["id"], "qa"), article_notes(db, b["id"], "qa")
        if not qas_a or not qas_b:
            raise ConfigError(
                f"pair {pair['id']}: single-step questions missing for one article; "
                "run `xrag build --step single-qa` first"
            )
        for qtype in qtypes:
            if xrag_item_exists(db, pair["id"], builder="llm", qtype=qtype):
                stats["already done"] += 1
                continue
            request = LLMRequest(
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
                    summary_a=latest_summary(db, a["id"]),
                    qas_a=_labelled(qas_a, "A"),
                    title_b=b["title"],
                    text_b=b["text"],
                    summary_b=latest_summary(db, b["id"]),
                    qas_b=_labelled(qas_b, "B"),
                ),
                fields={"qtype": qtype, "title_a": a["title"], "title_b": b["title"]},
            )
            planned.append(((pair, qtype, qas_a, qas_b), request))
    provenance = {
        "builder": "llm",
        "model": model,
        "prompt_hash": prompt_hash("xrag_cross_question"),
    }

    def store(db: Database, job: _CrossJob, resp: LLMResponse) -> str:
        pair, qtype, qas_a, qas_b = job
        item, reason = validate_cross_reply(json_reply(resp), qtype, qas_a, qas_b, max_words)
        if item is None:
            return f"rejected: {reason}"
        store_item(db, pair, item, builder="llm", run_id=run_id, provenance=provenance)
        return "stored"

    return run_stage(db, planned, store, run_id=run_id, counts=stats)
