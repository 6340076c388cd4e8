"""Answer runs: plan every (question, system) request, checked before anything is sent, then
send them and store the answers.

Answers go to table ``answers`` (unique ``question_id, system``, :mod:`core.store.answers`): a
rerun skips stored answers and retries only failed ones. A context that does not fit the
model's window raises :class:`core.errors.ContextTooLongError` while planning, unless the
system's ``fallback = "rag"`` answers that question from retrieved passages instead (recorded
in the answer metadata).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from core.answering.systems import (
    OracleMissingError,
    System,
    book_of,
    fits,
    load_questions,
    oracle_document,
    register_system,
    retrieved_context,
)
from core.corpus.documents import count_tokens
from core.errors import ContextTooLongError
from core.llm.prompts import prompt_hash, render_prompt
from core.llm.stage import run_stage
from core.llm.types import LLMRequest
from core.store.answers import Answer, AnswerStatus, answered, save_answer
from core.store.connection import utcnow
from core.store.documents import Document
from core.store.questions import Question

if TYPE_CHECKING:
    from core.store.engine import Database

_ABSTAIN = (
    "i don't know",
    "i do not know",
    "i abstain",
    "the text does not",
    "not contain the answer",
)
#: Finish reasons of a reply cut at its token limit (OpenAI ``length``; Anthropic and Gemini
#: ``max_tokens``): with no text, the model ran out (a reasoning model's thinking used the whole
#: budget), it did not abstain.
_CUT = ("length", "max_tokens")


@dataclass
class PlannedAnswer:
    """One answer to produce: the request and how its context was obtained."""

    question_id: str
    system: System
    request: Any
    context_tokens: int
    context_used: str


def _answer_request(system: System, question: Question, doc: Document, context: str) -> LLMRequest:

    prompt = render_prompt(
        system.prompt,
        title=doc.title or doc.id,
        author=doc.author or "an unknown author",
        # the prompt delimits the question with [[QUESTION]] markers
        question=question.question.replace("[[", "[ [").replace("]]", "] ]"),
    )
    return LLMRequest(
        model=system.model,
        prompt=prompt,
        context=context,
        temperature=0.0,
        max_tokens=system.max_tokens,
        task="answer",
        fields={
            "question": question.question,
            "context": context,
            "title": doc.title or "",
        },
        params=dict(system.request_params),
        purpose="answer",
        tags={"system": system.name},
    )


def plan_answer(db: Database, system: System, question: Question) -> PlannedAnswer:
    """Build the request of ``system`` for ``question``; raise before sending if it cannot fit."""

    doc = book_of(db, question)
    used = system.context
    if system.context == "none":
        context = ""
    elif system.context == "rag":
        context = retrieved_context(db, doc.id, question.question, system.tokens)
    elif system.context == "full":
        context = doc.text
    else:
        context = oracle_document(db, question, system.oracle_suffix).text
    request = _answer_request(system, question, doc, context)
    if not fits(request):
        if system.fallback != "rag":
            raise ContextTooLongError(
                f"system {system.name!r}, question {question.id!r}: the {used} context "
                f"({doc.n_tokens:,} tokens) does not fit {system.model}'s window; "
                'set fallback = "rag" or use a longer-context model'
            )
        context = retrieved_context(db, doc.id, question.question, system.fallback_tokens)
        used = "rag-fallback"
        request = _answer_request(system, question, doc, context)
        if not fits(request):
            raise ContextTooLongError(
                f"system {system.name!r}: even the retrieval fallback "
                f"does not fit {system.model}'s window"
            )
    n_context = (
        (doc.n_tokens or count_tokens(context)) if context is doc.text else count_tokens(context)
    )  # a whole book's count is stored: not recounted
    return PlannedAnswer(question.id, system, request, n_context, used)


def plan_answers(
    db: Database, systems: list[System], questions: list[Question]
) -> list[PlannedAnswer]:
    """Every (question, system) answer not stored yet, with its request (nothing is sent)."""
    done = answered(db, [s.name for s in systems])
    out = []
    for s in systems:
        for q in questions:
            if (q.id, s.name) in done:
                continue
            try:
                out.append(plan_answer(db, s, q))
            except OracleMissingError:
                if s.if_missing != "skip":
                    raise
    return out


def _status(text: str, finish_reason: str = "") -> AnswerStatus:
    """``abstained`` for an empty reply, a declared abstention or an "I don't know"; else ``ok``."""
    low = text.strip().lower()
    if not low or finish_reason == "abstained" or any(a in low[:80] for a in _ABSTAIN):
        return AnswerStatus.ABSTAINED
    return AnswerStatus.OK


def _cut_before_text(text: str, finish_reason: str) -> str | None:
    """The error of an empty reply cut at its token limit (a failed answer, not an abstention:
    a rerun with ``--refresh`` or a larger ``max_tokens`` may answer); None otherwise."""
    if text.strip() or finish_reason.lower() not in _CUT:
        return None
    return f"empty reply cut at the token limit (finish_reason {finish_reason}); raise the system's max_tokens"


def run_answers(
    db: Database,
    planned: list[PlannedAnswer],
    *,
    run_id: str | None = None,
    progress: bool = True,
) -> dict[str, int]:
    """Send the planned requests (no transaction open) and store each answer in its own short
    transaction as its reply arrives (:func:`core.llm.stage.run_stage`); return counts."""

    if not planned:
        return {"answered": 0, "errors": 0}
    for p in {p.system.name: p.system for p in planned}.values():
        register_system(db, p)
    now = utcnow()

    def store(db: Database, p: PlannedAnswer, resp: Any) -> str:
        error = resp.error or _cut_before_text(resp.text, resp.finish_reason)
        failed = error is not None
        answer = Answer(
            question_id=p.question_id,
            system=p.system.name,
            text="" if failed else resp.text.strip(),
            status=AnswerStatus.ERROR if failed else _status(resp.text, resp.finish_reason),
            error=error or "",
            context_tokens=p.context_tokens,
            input_tokens=resp.input_tokens,
            output_tokens=resp.output_tokens,
            cost_usd=resp.cost_usd,
            cache_key=resp.cache_key or None,
            run_id=run_id,
            created_at=now,
            metadata={
                "context_used": p.context_used,
                "prompt": p.system.prompt,
                "prompt_hash": prompt_hash(p.system.prompt),
                "cache_hit": bool(resp.cache_hit),
            },
        )
        # only failed answers are re-planned, so a stored row replaced here was an error
        save_answer(db, answer)
        return "errors" if failed else "answered"

    tally = run_stage(
        db, [(p, p.request) for p in planned], store, run_id=run_id, progress=progress
    )
    return {"answered": tally.get("answered", 0), "errors": tally.get("errors", 0)}


def answer_questions(
    db: Database,
    systems: list[System],
    question_ids: list[str],
    *,
    run_id: str | None = None,
    progress: bool = True,
) -> dict[str, int]:
    """Plan (checking every context first), then answer what is not stored yet."""
    planned = plan_answers(db, systems, load_questions(db, question_ids))
    return run_answers(db, planned, run_id=run_id, progress=progress)
