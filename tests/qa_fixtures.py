"""A small NarrativeQA-like story with questions, shared by the answering, judging and pipeline tests."""

import json

from core.corpus.documents import upsert_document
from core.store.connection import utcnow

STORY = "\n\n".join(
    [
        f"Chapter {i}. The weather in the valley was mild and the farmers sowed barley."
        for i in range(60)
    ]
    + ["The lighthouse keeper Ansel Brand kept a brass telescope named Orion on the gallery."]
    + [f"Interlude {i}. Nothing of note happened in the village that season." for i in range(60)]
)

SUMMARY = "Ansel Brand keeps the lighthouse and owns a telescope called Orion."


def seed(db, story=STORY):
    """One story, its summary, two accepted questions with references."""
    upsert_document(
        db, "s1", story, kind="story", source="narrativeqa", title="The Keeper", author="A. Writer"
    )
    upsert_document(db, "s1#summary", SUMMARY, kind="summary", source="narrativeqa", parent_id="s1")
    now = utcnow()
    for qid, q, refs in (
        (
            "q1",
            "What is the telescope of the lighthouse keeper called?",
            ["Orion", "It is called Orion."],
        ),
        ("q2", "Who keeps the lighthouse?", ["Ansel Brand", "The keeper Brand"]),
    ):
        db["questions"].insert(
            {
                "id": qid,
                "document_id": "s1",
                "context_document_id": "s1",
                "context_kind": "story",
                "question": q,
                "answers": json.dumps(refs),
                "origin": "narrativeqa",
                "status": "accepted",  # as the NarrativeQA importer stores them
                "created_at": now,
                "updated_at": now,
            }
        )
