"""Translations of XRAG questions and answers into German, Spanish, Chinese and Arabic.

A translation is a ``questions`` row with ``parent_id`` = the English question, ``language`` set,
id ``<english id>.<lang>``, the same articles and type, and status ``pending`` until reviewed.
A model translation whose question lingua detects as another language is rejected (counted).
Translating is an LLM stage (:func:`core.llm.stage.run_stage`): each reply's translation is
stored in its own transaction as it arrives.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from core.errors import InputError
from core.llm.prompts import prompt_hash, render_prompt
from core.llm.stage import run_stage
from core.llm.types import LLMRequest, LLMResponse, require_real_model
from core.store.connection import transaction, utcnow
from core.store.questions import (
    Question,
    QuestionOrigin,
    QuestionStatus,
    child_questions,
    get_question,
    insert_question,
    question_exists,
)
from core.store.xrag import english_xrag_questions
from core.xrag.language import detect_language
from core.xrag.model_calls import TARGET_LANGUAGES, json_reply, language_name

if TYPE_CHECKING:
    from core.store.engine import Database


def store_translation(
    db: Database,
    parent_id: str,
    language: str,
    question: str,
    answer: str,
    *,
    provenance: dict[str, Any],
    run_id: str | None = None,
) -> str | None:
    """Insert the ``language`` version of question ``parent_id``; None if it already exists."""
    language_name(language)
    p = get_question(db, parent_id)
    if p is None:
        raise InputError(f"unknown question {parent_id!r}")
    qid = f"{parent_id}.{language}"
    if question_exists(db, qid):
        return None
    now = utcnow()
    with transaction(db):
        insert_question(
            db,
            Question(
                id=qid,
                document_id=p.document_id,
                context_document_id=p.context_document_id,
                context_kind=p.context_kind,
                question=question.strip(),
                answers=[answer.strip()],
                origin=QuestionOrigin.XRAG,
                qtype=p.qtype,
                language=language,
                parent_id=parent_id,
                status=QuestionStatus.PENDING,
                provenance=provenance,
                metadata=p.metadata,
                run_id=run_id,
                created_at=now,
                updated_at=now,
            ),
        )
    return qid


def english_items(
    db: Database, statuses: tuple[str, ...] = ("pending", "accepted", "edited")
) -> list[dict[str, Any]]:
    """English XRAG questions with one of ``statuses`` (discarded/rejected ones left out)."""
    return english_xrag_questions(db, statuses)


def translate_questions(
    db: Database,
    model: str,
    languages: tuple[str, ...] = TARGET_LANGUAGES,
    *,
    run_id: str | None = None,
) -> dict[str, int]:
    """Ask ``model`` to translate every English item lacking a version in each language."""

    require_real_model(model, "translating questions")
    jobs, reqs = [], []
    for item in english_items(db):
        for lang in languages:
            name = language_name(lang)
            if question_exists(db, f"{item['id']}.{lang}"):
                continue
            answer = item["answers"][0] if item["answers"] else ""
            jobs.append((item, lang))
            reqs.append(
                LLMRequest(
                    model=model,
                    task="translate",
                    max_tokens=400,
                    purpose="xrag-translate",
                    prompt=render_prompt(
                        "xrag_translate",
                        language_name=name,
                        question=item["question"],
                        answer=answer,
                    ),
                    fields={"language": lang, "question": item["question"], "answer": answer},
                )
            )
    provenance = {
        "builder": "llm",
        "model": model,
        "prompt_hash": prompt_hash("xrag_translate"),
    }

    def store(db: Database, job: tuple[dict[str, Any], str], resp: LLMResponse) -> str:
        item, lang = job
        obj = json_reply(resp) or {}
        q, a = str(obj.get("question") or ""), str(obj.get("answer") or "")
        if not q.strip() or not a.strip():
            return "unparsed"
        detected = detect_language(q)
        if detected is not None and detected != lang:
            return f"rejected: question detected as {detected}"
        store_translation(db, item["id"], lang, q, a, run_id=run_id, provenance=provenance)
        return f"stored {lang}"

    return run_stage(db, list(zip(jobs, reqs)), store, run_id=run_id)


def translations_of(db: Database, question_id: str) -> dict[str, Question]:
    """The stored translations of an English question, by language."""
    return {q.language: q for q in child_questions(db, question_id, origin=QuestionOrigin.XRAG)}
