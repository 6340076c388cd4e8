"""The question-review guideline (one checklist spec for every question) and XRAG's label statistics.

The guideline is the XRAG annotation guideline; the Review page and
:func:`core.annotation.reviews.record_review` (the one write path of reviews) use it for every question:

* ``CHECKLIST_FIELDS`` for an English cross-document question (two articles: per article
  ``Sufficient`` / ``Some`` / ``None``);
* ``SINGLE_DOCUMENT_FIELDS`` for any other English question (the same items, with "long span"
  instead of the per-article support);
* ``TRANSLATION_FIELDS`` for a translation (a question with a ``parent_id``).

:func:`review_outcome` checks a reviewer's explicit decision (``accept`` / ``reject`` /
``edit``, the Review page's Accept / Reject / Save edit buttons) against the checklist
(:func:`decision_problem`: Accept is refused when the checklist says not intelligible, not
answerable or answer not correct; an edit needs an edited question or a corrected answer; Reject
needs nothing more), or derives one from the checklist when none is given (``apply_review``,
scripts). The question's status is then set by :func:`core.annotation.reviews.record_review`:

* ``discarded`` when any annotator's current review says either article alone is
  ``Sufficient`` (the question does not need both articles), whatever the decisions; its
  translations are discarded too;
* otherwise the majority of the current reviews' decisions: ``accepted``,
  ``rejected`` or ``edited`` (an XRAG question's edit replaces its text or reference answer, the
  original kept in its metadata); a tie between different decisions (one accept, one reject) is
  ``disputed`` until an adjudicator settles it, and a settled decision is the status.

:func:`apply_review` is the XRAG entry point of that same write path.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from core.errors import InputError
from core.store.questions import Question, QuestionOrigin
from core.store.reviews import ReviewDecision

SUPPORT = ("Sufficient", "Some", "None")
_QUESTION_FIELDS: list[dict[str, Any]] = [
    {
        "name": "intelligible",
        "type": "bool",
        "required": True,
        "label": "The question is intelligible and reads naturally",
    },
    {
        "name": "answerable",
        "type": "bool",
        "required": True,
        "label": "The question can be answered from the two articles",
    },
    {
        "name": "answer_correct",
        "type": "bool",
        "required": True,
        "label": "The reference answer is correct",
    },
    {
        "name": "correction",
        "type": "text",
        "required": False,
        "label": "Corrected answer (required when the answer is not correct)",
    },
]
CHECKLIST_FIELDS: list[dict[str, Any]] = [
    *_QUESTION_FIELDS,
    {
        "name": "support_a",
        "type": "choice",
        "choices": list(SUPPORT),
        "required": True,
        "label": "How much of the answer does article A alone give?",
    },
    {
        "name": "support_b",
        "type": "choice",
        "choices": list(SUPPORT),
        "required": True,
        "label": "How much of the answer does article B alone give?",
    },
]
SINGLE_DOCUMENT_FIELDS: list[dict[str, Any]] = [
    *_QUESTION_FIELDS[:1],
    {**_QUESTION_FIELDS[1], "label": "The question can be answered from the source"},
    *_QUESTION_FIELDS[2:],
    {
        "name": "long_span",
        "type": "bool",
        "required": False,
        "label": "Answering needs several distant passages (long span)",
    },
]
TRANSLATION_FIELDS: list[dict[str, Any]] = [
    {
        "name": "translation_ok",
        "type": "bool",
        "required": True,
        "label": "The translation keeps the meaning of the English question and answer",
    },
    {
        "name": "edited_question",
        "type": "text",
        "required": False,
        "label": "Corrected translation of the question (optional)",
    },
    {
        "name": "edited_answer",
        "type": "text",
        "required": False,
        "label": "Corrected translation of the answer (optional)",
    },
]


def is_cross_document(question: Question) -> bool:
    """An English XRAG question (origin ``xrag``, no parent): it needs two articles."""
    return question.origin == QuestionOrigin.XRAG and not question.parent_id


def checklist_fields(question: Question) -> list[dict[str, Any]]:
    """The field spec for a question row: translation fields when it has a ``parent_id``,
    the cross-document checklist for an English XRAG question, else the single-document one."""
    if question.parent_id:
        return TRANSLATION_FIELDS
    return CHECKLIST_FIELDS if is_cross_document(question) else SINGLE_DOCUMENT_FIELDS


def validate_checklist(
    fields: list[dict[str, Any]], checklist: dict[str, Any], partial: bool = False
) -> dict[str, Any]:
    """Check names, types and required fields; return the cleaned checklist (InputError).

    ``partial=True`` (a checklist that accompanies an explicit decision) skips the required check.
    """
    if not isinstance(checklist, dict):
        raise InputError("checklist must be a mapping of field name to value")
    spec = {f["name"]: f for f in fields}
    unknown = sorted(set(checklist) - set(spec))
    if unknown:
        raise InputError(f"unknown checklist fields {unknown}; expected {sorted(spec)}")
    out: dict[str, Any] = {}
    for name, f in spec.items():
        value = checklist.get(name)
        if value is None or (f["type"] == "text" and not str(value).strip()):
            if f["required"] and not partial:
                raise InputError(f"checklist field {name!r} is required", column=name)
            continue
        if f["type"] == "bool" and not isinstance(value, bool):
            raise InputError(f"checklist field {name!r} must be true or false", column=name)
        if f["type"] == "choice" and value not in f["choices"]:
            raise InputError(f"checklist field {name!r} must be one of {f['choices']}", column=name)
        out[name] = str(value).strip() if f["type"] == "text" else value
    return out


@dataclass(frozen=True)
class Outcome:
    """What a review decides: its own ``decision``, whether the question is ``discarded`` (with
    the ``reason``), and the edited texts it carries."""

    decision: str
    reason: str
    discarded: bool = False
    edited_question: str | None = None
    edited_answer: str | None = None


def sufficient_reason(checklists: list[dict[str, Any]]) -> str:
    """Why the question is discarded ("article A alone answers it ...") or ``""``."""
    for c in checklists:
        for side in ("a", "b"):
            if c.get(f"support_{side}") == "Sufficient":
                return (
                    f"article {side.upper()} alone answers it (Sufficient): both articles "
                    "are not needed"
                )
    return ""


_NOT = {
    "intelligible": "not intelligible",
    "answerable": "not answerable from the source",
    "answer_correct": "the answer is not correct",
}


def decision_problem(
    question: Question,
    checklist: dict[str, Any],
    decision: str,
    edited_question: str | None = None,
    edited_answer: str | None = None,
) -> str:
    """Why an explicit ``decision`` is refused for this checklist (a sentence), or ``""``.

    ``accept``: refused when the checklist says not intelligible / not answerable / answer not
    correct (a translation: meaning not kept), or when an edit was entered. ``edit``: needs an
    edited question or a corrected answer (a translation: a corrected text), and a corrected
    answer when the answer is marked not correct. ``reject``: never refused.
    """
    c = checklist
    if question.parent_id:
        edited = (
            edited_question or c.get("edited_question") or edited_answer or c.get("edited_answer")
        )
        if decision == ReviewDecision.ACCEPT and c.get("translation_ok") is False:
            return (
                "Accept is refused: the checklist says the translation does not keep the "
                "meaning. Choose Reject, or Save edit with a corrected translation."
            )
        if decision == ReviewDecision.ACCEPT and edited:
            return (
                "Accept is refused: you entered a corrected translation. Choose Save edit "
                "to keep it, or clear it to accept."
            )
        if decision == ReviewDecision.EDIT and not edited:
            return (
                "Save edit needs a corrected translation of the question or of the answer; "
                "to turn the translation down choose Reject."
            )
        return ""
    ea = edited_answer or c.get("correction")
    if decision == ReviewDecision.ACCEPT:
        said = [text for name, text in _NOT.items() if c.get(name) is False]
        if said:
            return (
                f"Accept is refused: the checklist says {' / '.join(said)}. Choose Reject, "
                "or Save edit with an edited question or a corrected answer."
            )
        if edited_question or ea:
            return (
                "Accept is refused: you entered an edited question or a corrected answer. "
                "Choose Save edit to keep it, or clear it to accept."
            )
    if decision == ReviewDecision.EDIT:
        if not (edited_question or ea):
            return (
                "Save edit needs an edited question or a corrected answer; to turn the "
                "question down choose Reject."
            )
        if c.get("answer_correct") is False and not ea:
            return (
                "Save edit: the checklist says the answer is not correct, so give the "
                "corrected answer (or choose Reject)."
            )
    return ""


def review_outcome(
    question: Question,
    checklist: dict[str, Any],
    others: Sequence[dict[str, Any]] = (),
    decision: str | None = None,
    edited_question: str | None = None,
    edited_answer: str | None = None,
) -> Outcome:
    """Apply the guideline to a validated ``checklist`` (``others``: the other annotators' current
    checklists).

    An explicit ``decision`` (the reviewer's Accept / Reject / Save edit) is checked by
    :func:`decision_problem` (InputError) and kept as given; ``None`` derives it from the
    checklist (a cross-document question whose own checklist says Sufficient: ``reject``). The
    Sufficient filter discards a cross-document question whatever the decision. Edited texts
    are kept only by an ``edit``.
    """
    c = checklist
    if decision is not None:
        problem = decision_problem(question, c, decision, edited_question, edited_answer)
        if problem:
            raise InputError(problem)
    if question.parent_id:
        eq = edited_question or c.get("edited_question")
        ea = edited_answer or c.get("edited_answer")
        if decision is None:
            decision = "edit" if eq or ea else "accept" if c["translation_ok"] else "reject"
        reason = {
            "edit": "translation corrected by the reviewer",
            "accept": "",
            "reject": "translation rejected",
        }[decision]
        if decision != ReviewDecision.EDIT:
            eq = ea = None
        return Outcome(decision, reason, False, eq, ea)
    eq, ea = edited_question, edited_answer or c.get("correction")
    cross = is_cross_document(question)
    own = sufficient_reason([c]) if cross else ""
    if decision is None:
        if own:
            decision = "reject"
        elif not c["intelligible"] or not c["answerable"]:
            decision = "reject"
        elif not c["answer_correct"]:
            if not ea:
                raise InputError(
                    "answer_correct is false: give the corrected answer", column="correction"
                )
            decision = "edit"
        else:
            decision = "edit" if eq else "accept"
        reason = {
            "reject": "not intelligible or not answerable from the source",
            "edit": "answer or question corrected by the reviewer",
            "accept": "",
        }[decision]
    else:
        reason = {
            "reject": "rejected by the reviewer",
            "edit": "answer or question corrected by the reviewer",
            "accept": "",
        }[decision]
    if decision != ReviewDecision.EDIT:
        eq = ea = None
    if own:
        return Outcome(decision, own, True, eq, ea)
    why = sufficient_reason(list(others)) if cross else ""
    if why:
        return Outcome(decision, f"another reviewer: {why}", True, eq, ea)
    return Outcome(decision, reason, False, eq, ea)
