"""De-duplication and storage of generated questions (shared by the LLM generator and the
offline baseline): near-duplicates are kept as ``discarded``; ids are stable.

Near-duplicate means the same question in substance, measured two ways (the measure used is
stored in the discarded row's ``metadata.similarity_measure``):

* two offline baseline questions (``provenance.model`` = ``baseline:entity-cooccurrence``) are
  compared by their filled slots (:func:`slot_similarity`, :data:`SLOT_MEASURE`), not their
  words: the baseline fills fixed templates, so two questions naming other characters, with
  other answers, share most of their words (TF-IDF cosine 0.84; issue 36). Two with different
  answers are never duplicates; the same answer and a shared evidence sentence (or the same type
  and the same named characters) is one;
* any other pair (LLM with LLM, LLM with baseline): TF-IDF cosine of the question texts (word
  1-2-grams, sublinear tf) >= ``DUPLICATE_THRESHOLD``.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from core.generation.candidates import BASELINE, Candidate
from core.generation.names import fold
from core.store.connection import transaction, utcnow
from core.store.questions import (
    Question,
    QuestionOrigin,
    QuestionStatus,
    document_questions,
    insert_question,
)

if TYPE_CHECKING:
    from core.store.engine import Database

DUPLICATE_THRESHOLD = 0.8
#: ``metadata.similarity_measure`` of a baseline question discarded by :func:`slot_similarity`.
SLOT_MEASURE = "baseline-slots:same-answer+shared-evidence"


class Slots(NamedTuple):
    """An offline question's filled template slots: type, answer and named characters (folded),
    evidence sentences as absolute ``(start, end)`` offsets in the book."""

    qtype: str
    answer: str
    entities: frozenset[str]
    evidence: tuple[tuple[int, int], ...]


def slots(qtype: str, answer: str, metadata: Mapping[str, Any]) -> Slots:
    """The :class:`Slots` of a question from its type, answer and stored metadata."""
    return Slots(
        qtype,
        fold(answer),
        frozenset(fold(n) for n in metadata.get("entities", [])),
        tuple((int(e["start"]), int(e["end"])) for e in metadata.get("evidence", [])),
    )


def slot_similarity(a: Slots, b: Slots) -> float:
    """How far offline question ``a`` repeats ``b``: 0.0 when the answers differ; 1.0 with the
    same type and the same named characters; else the share of ``a``'s evidence sentences that
    overlap one of ``b``'s (0.0 when none does). Above 0 is a duplicate."""
    if a.answer != b.answer:
        return 0.0
    if a.qtype == b.qtype and a.entities == b.entities:
        return 1.0
    if not a.evidence:
        return 0.0
    shared = sum(any(s < be and bs < e for bs, be in b.evidence) for s, e in a.evidence)
    return round(shared / len(a.evidence), 4)


def is_baseline(provenance: Mapping[str, Any]) -> bool:
    """True for a question of the offline baseline generator."""
    return provenance.get("model") == BASELINE


def nearest_duplicate(
    pos: int,
    kept: Sequence[int],
    baseline: Sequence[bool],
    filled: Sequence[Slots],
    sims: np.ndarray | None,
    threshold: float = DUPLICATE_THRESHOLD,
) -> tuple[int, float, str] | None:
    """The closest near-duplicate of question ``pos`` among the ``kept`` ones (positions in one
    numbering of the questions, which ``baseline``, ``filled`` and ``sims`` follow): its position,
    similarity and measure, or None. :func:`slot_similarity` > 0 when both are baseline
    questions, else TF-IDF cosine ``sims`` >= ``threshold`` (``sims`` may be None when every
    question is a baseline one); the highest similarity wins, the earliest on a tie."""
    best: tuple[int, float, str] | None = None
    for j in kept:
        if baseline[pos] and baseline[j]:
            sim, measure = slot_similarity(filled[pos], filled[j]), SLOT_MEASURE
            hit = sim > 0
        else:
            assert sims is not None
            sim, measure = float(sims[pos, j]), f"tfidf-cosine>={threshold}"
            hit = sim >= threshold
        if hit and (best is None or sim > best[1]):
            best = (j, round(sim, 4), measure)
    return best


def similarity_matrix(texts: list[str]) -> np.ndarray:
    """Pairwise TF-IDF cosine similarity (word 1-2-grams, sublinear tf, l2-normalised rows)."""
    from sklearn.feature_extraction.text import (
        TfidfVectorizer,
    )

    if not texts:
        return np.zeros((0, 0))
    matrix = TfidfVectorizer(
        ngram_range=(1, 2), sublinear_tf=True, token_pattern=r"(?u)\b\w+\b"
    ).fit_transform(texts)
    return np.asarray((matrix @ matrix.T).toarray())


def kept_baseline_answers(db: Database, doc_id: str) -> list[str]:
    """The answers of the document's offline baseline questions not discarded, oldest first."""
    kept = document_questions(
        db,
        doc_id,
        origin=QuestionOrigin.GENERATED,
        exclude_status=QuestionStatus.DISCARDED,
        order="created",
    )
    return [str(q.answers[0]) for q in kept if is_baseline(q.provenance) and q.answers]


def _norm(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))


def question_id(doc_id: str, generator: str, key: str, question: str) -> str:
    """Stable id: ``gen-`` + 16 hex of sha256(document, generator, key, normalised question)."""
    blob = "\x1f".join([doc_id, generator, key, _norm(question)])
    return "gen-" + hashlib.sha256(blob.encode("utf-8")).hexdigest()[:16]


def store_candidates(
    db: Database,
    doc_id: str,
    candidates: list[Candidate],
    run_id: str,
    threshold: float = DUPLICATE_THRESHOLD,
) -> dict[str, int]:
    """De-duplicate ``candidates`` against each other and the document's kept generated
    questions (:func:`nearest_duplicate`), then insert them (one transaction). Returns counts
    kept/discarded/existing."""
    generated = QuestionOrigin.GENERATED
    existing = document_questions(
        db, doc_id, origin=generated, exclude_status=QuestionStatus.DISCARDED, order="created"
    )
    known_ids = {q.id for q in document_questions(db, doc_id, origin=generated)}
    texts = [q.question for q in existing] + [c.question for c in candidates]
    baseline = [is_baseline(q.provenance) for q in existing] + [
        is_baseline(c.provenance) for c in candidates
    ]
    filled = [slots(q.qtype, str(q.answers[0]) if q.answers else "", q.metadata) for q in existing]
    filled += [slots(c.qtype, c.answer, c.metadata) for c in candidates]
    # TF-IDF only when a pair needs it (fitted on all the texts, as before)
    sims = None if all(baseline) else similarity_matrix(texts)
    kept_pos = list(range(len(existing)))
    ids = [q.id for q in existing]
    counts = {"kept": 0, "discarded": 0, "existing": 0}
    batch: set[str] = set()
    now = utcnow()
    with transaction(db):
        for n, cand in enumerate(candidates):
            pos = len(existing) + n
            key = f"{cand.provenance.get('prompt_hash', '')}|{cand.entity_id}"
            qid = question_id(doc_id, cand.provenance["model"], key, cand.question)
            while qid in batch:  # an exact repeat inside this batch: keep it, as a duplicate
                qid = question_id(doc_id, cand.provenance["model"], key + "#", qid)
            batch.add(qid)
            ids.append(qid)
            if qid in known_ids:
                counts["existing"] += 1
                continue
            status, metadata = QuestionStatus.PENDING, dict(cand.metadata)
            dup = nearest_duplicate(pos, kept_pos, baseline, filled, sims, threshold)
            if dup is not None:
                status = QuestionStatus.DISCARDED
                metadata.update(
                    {
                        "duplicate_of": ids[dup[0]],
                        "reason": "near-duplicate",
                        "similarity": dup[1],
                        "similarity_measure": dup[2],
                    }
                )
            if status == QuestionStatus.PENDING:
                kept_pos.append(pos)
            insert_question(
                db,
                Question(
                    id=qid,
                    document_id=doc_id,
                    context_document_id=doc_id,
                    context_kind="story",
                    question=cand.question,
                    answers=[cand.answer, *cand.references],
                    origin=generated,
                    qtype=cand.qtype,
                    entity_id=cand.entity_id,
                    status=status,
                    provenance={**cand.provenance, "run_id": run_id},
                    metadata=metadata,
                    run_id=run_id,
                    created_at=now,
                    updated_at=now,
                ),
            )
            known_ids.add(qid)
            counts["kept" if status == QuestionStatus.PENDING else "discarded"] += 1
    return counts
