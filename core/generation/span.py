"""Span fraction of a question: how much of the book its evidence spans, and the flag below the
minimum (``MIN_SPAN_FRACTION``).

span fraction = (last evidence offset - first evidence offset) / book length (characters), where
an evidence offset is the start of a passage (or sentence) the question was built from: the
offline generator's evidence sentences, or the passages an LLM question's context was made of
(the entity's mention passages when the whole book was the context). 0 with fewer than two
offsets. A question whose span fraction is below the minimum is flagged
(``metadata.span_flag = True``): it may not need the whole book.

A long span may still mean only the book's two ends (a main character's first and last
appearance), so beside it each question stores its spread: ``evidence_n`` offsets, of which
``evidence_at_ends`` lie in the first or last ``END_ZONE`` (10 %) of the book.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, TypedDict

from core.generation.entity_store import entity_passage_indexes
from core.store.documents import get_passages
from core.store.questions import questions_by_id

if TYPE_CHECKING:
    from core.store.engine import Database

#: Default minimum span fraction (``generate --min-span-fraction``): evidence at least 20 % of the
#: book apart.
MIN_SPAN_FRACTION = 0.2
#: Evidence this close to either end of the book counts as "at the ends" (spread).
END_ZONE = 0.1
#: The offline generator keeps the share of a question set's evidence offsets at the ends below
#: this when the book has questions enough with evidence elsewhere (else its note says so).
MAX_END_SHARE = 1 / 3


def at_ends(offset: int, length: int) -> bool:
    """True when ``offset`` lies in the first or last ``END_ZONE`` of a book of ``length``."""
    return not END_ZONE * length <= offset < (1 - END_ZONE) * length


def ends_over_limit(at_end: int, evidence: int) -> bool:
    """True when ``at_end`` of ``evidence`` offsets is ``MAX_END_SHARE`` of them or more."""
    return evidence > 0 and at_end >= MAX_END_SHARE * evidence


def span_fraction(offsets: Iterable[int], length: int) -> float:
    """``(max(offsets) - min(offsets)) / length`` rounded to 4 places; 0.0 with fewer than two
    offsets or an empty book."""
    values = list(offsets)
    if len(values) < 2 or length <= 0:
        return 0.0
    return round((max(values) - min(values)) / length, 4)


class SpanFields(TypedDict):
    """The span metadata every generated question carries (:func:`span_fields`)."""

    span_fraction: float
    min_span_fraction: float
    span_flag: bool
    evidence_n: int
    evidence_at_ends: int


def span_fields(offsets: Sequence[int], length: int, minimum: float) -> SpanFields:
    """The metadata every generated question carries: ``span_fraction``, ``min_span_fraction``
    and ``span_flag`` (True when the fraction is below ``minimum``); the spread: ``evidence_n``
    offsets, ``evidence_at_ends`` of them in the first or last ``END_ZONE`` of the book."""
    fraction = span_fraction(offsets, length)
    ends = sum(at_ends(o, length) for o in offsets)
    return SpanFields(
        span_fraction=fraction,
        min_span_fraction=minimum,
        span_flag=fraction < minimum,
        evidence_n=len(offsets),
        evidence_at_ends=ends,
    )


class SpanSummary(TypedDict):
    """Span fractions of a set of questions (:func:`span_summary`)."""

    n: int
    missing: int
    flagged: int
    flagged_ids: list[str]
    min: float | None
    median: float | None
    max: float | None
    evidence: int
    evidence_at_ends: int


def span_summary(db: Database, question_ids: Sequence[str]) -> SpanSummary:
    """Span fractions of the given questions (those that have one): ``n`` with a fraction,
    ``missing`` without, ``flagged`` below their minimum, ``min`` / ``median`` / ``max`` and the
    flagged ids (at most 20); the spread: ``evidence`` offsets of the questions that store it,
    ``evidence_at_ends`` of them in the first or last ``END_ZONE`` of the book."""
    found = questions_by_id(db, question_ids)
    values: list[float] = []
    flagged: list[str] = []
    missing = evidence = at_ends = 0
    for qid in question_ids:
        question = found.get(qid)
        meta = question.metadata if question else {}
        value = meta.get("span_fraction")
        if not isinstance(value, (int, float)):
            missing += 1
            continue
        values.append(float(value))
        if isinstance(meta.get("evidence_n"), int):
            evidence += meta["evidence_n"]
            at_ends += int(meta.get("evidence_at_ends") or 0)
        if meta.get("span_flag"):
            flagged.append(qid)
    values.sort()
    n = len(values)
    median = (values[(n - 1) // 2] + values[n // 2]) / 2 if n else None
    return SpanSummary(
        n=n,
        missing=missing,
        flagged=len(flagged),
        flagged_ids=flagged[:20],
        min=values[0] if n else None,
        median=median,
        max=values[-1] if n else None,
        evidence=evidence,
        evidence_at_ends=at_ends,
    )


def built_from_offsets(
    db: Database, doc_id: str, passage_idxs: Sequence[int], entity_id: int
) -> list[int]:
    """Start offsets of the passages an LLM question was built from: its context passages
    (``passage_idxs``), or, when the whole book was the context, the entity's mention passages
    (an upper bound: the question may use only some of them)."""
    idxs = set(passage_idxs) or set(entity_passage_indexes(db, entity_id))
    return [p.start for p in get_passages(db, doc_id) if p.idx in idxs]
