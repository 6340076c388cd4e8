"""Judge requests: the prompt of one judge call, with answers that cannot break out of it.

Answers are wrapped in markers carrying a random nonce per call, and marker-like text inside an
answer (``[[``, ``]]``) is neutralised (:func:`core.llm.prompts.neutralise`), so an answer cannot close its section or pose as
instructions. A question that chooses between named characters (``metadata.candidates``) puts
them, neutralised the same way, in the prompt's candidates section with the rule that an answer
naming several of them, or the wrong one, is not correct (the section is left out otherwise).
A context that does not fit the model's window falls back to ``rag`` only when the
judge says so (``fallback = "rag"``); otherwise it is a :class:`ContextTooLongError`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from core.answering.systems import book_of, fits, retrieved_context
from core.errors import ConfigError, ContextTooLongError
from core.judging.specs import Judge
from core.judging.tournament import Comparison
from core.llm.prompts import neutralise, new_nonce, render_prompt
from core.llm.types import LLMRequest
from core.store.answers import Answer
from core.store.documents import Document
from core.store.questions import Question

if TYPE_CHECKING:
    from core.store.engine import Database

_NOTES = {
    "none": "You are not given the text: rely on what you know about the book.",
    "rag": "Passages selected from the book, in book order, are given above: base your "
    "judgement on them.",
    "full": "The full text of the book is given above: base your judgement on it.",
}


@dataclass
class JudgeItem:
    """One planned judge call and what is needed to store its judgment."""

    judge: Judge
    question: Question
    request: LLMRequest
    source: str
    context_used: str
    answer: Answer | None = None
    comparison: Comparison | None = None
    answer_a: Answer | None = None
    answer_b: Answer | None = None


def _candidates(question: Question) -> list[str]:
    """The characters ``question`` chooses between (``metadata.candidates``, two or more), else
    an empty list."""
    candidates = question.metadata.get("candidates")
    if isinstance(candidates, list) and len(candidates) > 1:
        return [str(c) for c in candidates]
    return []


def _listed(items: Sequence[str], nonce: str) -> str:
    """``items`` as prompt data: neutralised, one ``- item`` a line."""
    return "\n".join(f"- {neutralise(item, nonce)}" for item in items)


def _rater_context(db: Database, judge: Judge, doc: Document, query: str, mode: str) -> str:

    if mode == "none":
        return ""
    if mode == "full":
        return doc.text
    return retrieved_context(db, doc.id, query, judge.tokens)


def build_request(
    db: Database,
    judge: Judge,
    question: Question,
    answers: Sequence[str],
    *,
    nonce: str | None = None,
) -> tuple[LLMRequest, str, str]:
    """The request of ``judge`` for ``question`` and one (absolute) or two (pairwise) answers
    in the order shown. Returns ``(request, source text for evidence, context used)``."""

    nonce = nonce or new_nonce()
    doc = book_of(db, question)
    refs = [str(r) for r in question.answers]
    if judge.spec.references and not refs:
        raise ConfigError(
            f"judge {judge.name!r} needs reference answers; question {question.id!r} has none"
        )
    query = " ".join([question.question, *answers])
    mode = judge.context
    context = _rater_context(db, judge, doc, query, mode)
    values: dict[str, Any] = {
        "title": doc.title or doc.id,
        "nonce": nonce,
        "question": neutralise(question.question, nonce),
    }
    fields: dict[str, Any] = {"question": question.question, "context": context}
    candidates = _candidates(question)
    # the characters the question chooses between: the prompt's section (absent when there are
    # none) tells the judge that naming several of them, or the wrong one, is no answer
    values["candidates"] = _listed(candidates, nonce)
    if candidates:
        fields["candidates"] = candidates
    if judge.pairwise:
        values["answer_a"], values["answer_b"] = (neutralise(a, nonce) for a in answers)
        fields["answer_a"], fields["answer_b"] = answers
    else:
        values["answer"] = neutralise(answers[0], nonce)
        fields["answer"] = answers[0]
    if judge.spec.references:
        values["references"] = _listed(refs, nonce)
        fields["references"] = refs

    def make(ctx: str, used: str) -> LLMRequest:
        prompt = render_prompt(judge.spec.prompt, context_note=_NOTES[used], **values)
        return LLMRequest(
            model=judge.model,
            prompt=prompt,
            context=ctx,
            temperature=0.0,
            max_tokens=judge.max_tokens,
            task=judge.spec.task,
            fields={**fields, "context": ctx},
            purpose="judge",
            tags={"judge": judge.name},
        )

    request = make(context, mode)
    if not fits(request):
        if judge.fallback != "rag":
            raise ContextTooLongError(
                f"judge {judge.name!r}, question {question.id!r}: the {mode} context does not "
                f'fit {judge.model}\'s window; set fallback = "rag" or use context = "rag"'
            )
        context = _rater_context(db, judge, doc, query, "rag")
        request, mode = make(context, "rag"), "rag-fallback"
    source = "\n".join(refs) if judge.spec.references else doc.text
    return request, source, mode
