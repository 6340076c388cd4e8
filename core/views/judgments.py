"""What the Side by side and Browse pages show: one question's answers and judgments."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, TypedDict

import pandas as pd

from core.store.answers import question_answers
from core.store.disputes import question_disputes
from core.store.judgments import (
    JudgmentKind,
    JudgmentStatus,
    PairwiseVerdict,
    RaterKind,
    effective_judgments,
    question_judgments,
)
from core.store.questions import get_question
from core.store.resolutions import effective_resolutions
from core.store.reviews import question_reviews
from core.views.review_records import QuestionRecord, question_record
from core.views.row_records import (
    DisputeRow,
    JudgmentRow,
    ResolvedRow,
    ReviewRow,
    dispute_row,
    judgment_row,
    resolved_row,
    review_row,
)

if TYPE_CHECKING:
    from core.store.engine import Database
    from core.store.questions import Question


class QuestionText(TypedDict, total=False):
    """A question's text and ids (:func:`question_text`; empty when there is no such question)."""

    id: str
    question: str
    document_id: str | None
    context_document_id: str | None
    origin: str


def question_text(db: Database, question_id: str) -> QuestionText:
    """The question's text and ids (no system names, no answers)."""
    return text_of(get_question(db, question_id))


def text_of(q: Question | None) -> QuestionText:
    """:func:`question_text` of a question already read (empty for None)."""
    if q is None:
        return {}
    return {
        "id": q.id,
        "question": q.question,
        "document_id": q.document_id,
        "context_document_id": q.context_document_id,
        "origin": str(q.origin),
    }


_AB = re.compile(r"(?<![\w'])([AB])(?![\w'])")
_AB_BEFORE = re.compile(r"(?i)(?:answer|response|system|output)\s*$|\(\s*$")
_AB_AFTER = re.compile(r"(?i)^\s*(?:[:=),.;]|-?\d|$|(?:is|was|wins|better|scores?)\b)")


def swap_ab(text: str) -> str:
    """``text`` with the answer labels A and B exchanged (for a rationale shown in the other
    order): "A 0.29, B 0.57" -> "B 0.29, A 0.57", "answer A" -> "answer B". An article
    ("A man ...") is left alone."""
    text = text or ""

    def swap(m: re.Match[str]) -> str:
        before, after = text[: m.start()], text[m.end() :]
        if _AB_BEFORE.search(before) or _AB_AFTER.match(after):
            return "B" if m.group(1) == PairwiseVerdict.A else "A"
        return m.group(1)

    return _AB.sub(swap, text)


def auto_verdicts_shown(db: Database, item: dict[str, Any]) -> pd.DataFrame:
    """The auto-raters' effective pairwise verdicts on ``item``, translated to the shown order."""
    out = []
    pair = {item["system_a"], item["system_b"]}
    for r in effective_judgments(
        db, kind=JudgmentKind.PAIRWISE, rater_kind=RaterKind.AUTO, question_id=item["question_id"]
    ):
        if {r.system_a, r.system_b} != pair:
            continue
        verdict, rationale = r.verdict, r.rationale
        if r.system_a != item["system_a"]:  # stored in the other order: flip both
            if verdict in (PairwiseVerdict.A, PairwiseVerdict.B):
                verdict = "B" if verdict == PairwiseVerdict.A else "A"
            rationale = swap_ab(rationale)
        out.append(
            {
                "rater": r.rater,
                "verdict (as shown)": verdict or f"({r.status})",
                "rationale": rationale,
            }
        )
    return pd.DataFrame(out, columns=["rater", "verdict (as shown)", "rationale"])


class AnswerShown(TypedDict):
    """A system's answer as Browse shows it (status as its text)."""

    id: int
    system: str
    text: str
    status: str
    error: str
    context_tokens: int
    cost_usd: float


class HumanVerdict(TypedDict):
    """A person's effective verdict on the question (Browse's "Human labels")."""

    rater: str
    kind: str
    system_a: str | None
    system_b: str | None
    verdict: str | None
    status: str
    rationale: str
    created_at: str


class BrowseDetail(TypedDict):
    """One question as Browse shows it (:func:`browse_detail`); the rows of ``absolute``,
    ``pairwise`` (each with ``superseded``), ``reviews``, ``disputes`` and ``resolutions`` are the
    store's records as dicts (``dataclasses.asdict``), their columns those of the store record."""

    question: QuestionRecord
    answers: list[AnswerShown]
    absolute: list[JudgmentRow]
    pairwise: list[JudgmentRow]
    reviews: list[ReviewRow]
    disputes: list[DisputeRow]
    resolutions: list[ResolvedRow]
    human_verdicts: list[HumanVerdict]


def browse_detail(db: Database, question_id: str) -> BrowseDetail | None:
    """One question: every system's answer, every rater's verdicts (evidence, raw reply) and the
    human labels."""
    q = get_question(db, question_id)
    if q is None:
        return None
    answers: list[AnswerShown] = [
        {
            "id": a.id,
            "system": a.system,
            "text": a.text,
            "status": str(a.status),
            "error": a.error,
            "context_tokens": a.context_tokens,
            "cost_usd": a.cost_usd,
        }
        for a in question_answers(db, question_id)
    ]
    judgments = [judgment_row(j, gone) for j, gone in question_judgments(db, question_id)]
    return {
        "question": question_record(q),
        "answers": answers,
        "absolute": [j for j in judgments if j["kind"] == JudgmentKind.ABSOLUTE],
        "pairwise": [j for j in judgments if j["kind"] == JudgmentKind.PAIRWISE],
        "reviews": [review_row(r) for r in question_reviews(db, question_id)],
        "disputes": [dispute_row(d) for d in question_disputes(db, question_id)],
        "resolutions": [
            resolved_row(r) for r in effective_resolutions(db, question_id=question_id)
        ],
        "human_verdicts": [
            {
                "rater": j["rater"],
                "kind": j["kind"],
                "system_a": j["system_a"],
                "system_b": j["system_b"],
                "verdict": j["verdict"],
                "status": j["status"],
                "rationale": j["rationale"],
                "created_at": j["created_at"],
            }
            for j in judgments
            if j["rater_kind"] == RaterKind.HUMAN
            and not j["superseded"]
            and j["status"] != JudgmentStatus.WITHDRAWN
        ],
    }


def evidence_table(evidence: Any) -> pd.DataFrame:
    """A judgment's evidence list as a table (quote, verified, score)."""
    items = evidence if isinstance(evidence, list) else []
    out = [
        {
            "quote": e.get("quote", "") if isinstance(e, dict) else str(e),
            "verified": bool(e.get("verified")) if isinstance(e, dict) else False,
            "score": e.get("score") if isinstance(e, dict) else None,
        }
        for e in items
    ]
    return pd.DataFrame(out, columns=["quote", "verified", "score"])
