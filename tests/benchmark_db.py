"""A small database with everything a benchmark export carries: two Project Gutenberg books
and a NarrativeQA story, generated questions of every review status (one edited, one with the
offline generator's evidence sentences after its answer), reviews, two systems' answers,
people's and an auto-rater's verdicts (gold by two people's majority)."""

from __future__ import annotations

import json

from qa_fixtures import seed

from core.corpus.documents import upsert_document
from core.store.connection import utcnow
from core.store.documents import get_passages
from core.store.judgments import NewJudgment, insert_judgment

BOOK = "\n\n".join(
    f"Paragraph {i}. Captain Ahab walked the deck of the Pequod while Ishmael watched the sea."
    for i in range(400)
)


def _question(db, qid, doc, status, answers, *, evidence=None, now):
    meta = {"span_fraction": 0.5, "question_type": "long-span"}
    if evidence is not None:
        meta["evidence"] = evidence
    db["questions"].insert(
        {
            "id": qid,
            "document_id": doc,
            "context_document_id": doc,
            "context_kind": "story",
            "question": f"Question {qid}?",
            "answers": json.dumps(answers),
            "origin": "generated",
            "qtype": "long-span",
            "status": status,
            "provenance": json.dumps(
                {"model": "openai:gpt-4o-mini", "prompt_hash": "abc123", "entity": "Ahab"}
            ),
            "metadata": json.dumps(meta),
            "created_at": now,
            "updated_at": now,
        }
    )


def _review(db, qid, who, decision, now, **edits):
    db["reviews"].insert(
        {
            "question_id": qid,
            "annotator": who,
            "decision": decision,
            "checklist": "{}",
            "edited_question": edits.get("question"),
            "edited_answer": edits.get("answer"),
            "created_at": now,
        }
    )


def _pair(db, qid, rater, verdict, order="ab"):
    a, b = ("sysA", "sysB") if order == "ab" else ("sysB", "sysA")
    insert_judgment(
        db,
        NewJudgment(
            kind="pairwise",
            question_id=qid,
            rater=rater,
            rater_kind=rater.split(":")[0],
            criterion="better",
            system_a=a,
            system_b=b,
            order_shown=order,
            verdict=verdict,
            evidence=[{"quote": "the Pequod", "verified": True}],
        ),
    )


def build(db):
    """Fill ``db`` (migrated, empty); returns the evidence text of question ``g1``."""
    seed(db)  # story s1 (narrativeqa) with accepted questions q1, q2
    meta = {"gutenberg_header": True, "file": "book.txt"}
    for doc in ("b1", "b2", "b3"):
        upsert_document(
            db, doc, BOOK, kind="book", source="file", title=f"Book {doc}", metadata=meta
        )
    p = get_passages(db, "b1")[-1]
    evidence = [{"passage_idx": p.idx, "start": p.start, "end": p.end, "text": p.text[:40]}]
    now = utcnow()
    _question(db, "g1", "b1", "accepted", ["Ahab", evidence[0]["text"]], evidence=evidence, now=now)
    _question(db, "g2", "b1", "edited", ["Old answer"], now=now)
    _question(db, "g3", "b1", "pending", ["Pending"], now=now)
    _question(db, "g4", "b1", "discarded", ["Gone"], now=now)
    _question(db, "g5", "b2", "accepted", ["Ishmael"], now=now)
    _question(db, "g6", "b3", "accepted", ["The sea"], now=now)
    _review(db, "g1", "alice", "accept", now)
    _review(db, "g2", "bob", "edit", now, question="Who hunts the whale?", answer="Ahab")
    _review(db, "g5", "alice", "accept", now)
    for name in ("sysA", "sysB"):
        db["systems"].insert(
            {"name": name, "model": "offline:x", "context": "none", "created_at": now}
        )
        db["answers"].insert(
            {"question_id": "g1", "system": name, "text": f"{name} says Ahab", "created_at": now}
        )
    _pair(db, "g1", "human:alice", "A")
    _pair(db, "g1", "human:bob", "B", order="ba")  # sysA again, shown second
    _pair(db, "g1", "auto:judge", "A")
    _pair(db, "g3", "auto:judge", "A")  # a pending question: never exported
    return evidence[0]["text"]
