"""De-duplication and storage of generated questions (shared by the LLM generator and the
offline baseline): near-duplicates by TF-IDF cosine are kept as ``discarded``; ids are stable."""

from __future__ import annotations

import hashlib
import re
from typing import TYPE_CHECKING

import numpy as np

from core.generation.candidates import Candidate
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
    questions, then insert them (one transaction). Returns counts kept/discarded/existing."""
    generated = QuestionOrigin.GENERATED
    existing = document_questions(
        db, doc_id, origin=generated, exclude_status=QuestionStatus.DISCARDED, order="created"
    )
    known_ids = {q.id for q in document_questions(db, doc_id, origin=generated)}
    texts = [q.question for q in existing] + [c.question for c in candidates]
    sims = similarity_matrix(texts)
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
            if kept_pos:
                best = max(kept_pos, key=lambda j: sims[pos, j])
                if sims[pos, best] >= threshold:
                    status = QuestionStatus.DISCARDED
                    metadata.update(
                        {
                            "duplicate_of": ids[best],
                            "reason": "near-duplicate",
                            "similarity": round(float(sims[pos, best]), 4),
                            "similarity_measure": f"tfidf-cosine>={threshold}",
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
