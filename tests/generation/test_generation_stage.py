"""Question generation on the one LLM-stage runner: interrupted after k entity replies, the k
entities' questions are stored, the interrupted run is marked failed, and the rerun asks only
for the entities still without questions."""

from __future__ import annotations

import json

import pytest
from interrupting import answered, interrupt_after, one_call_in_flight

from core.corpus.documents import upsert_document
from core.generation import questions as gen
from core.generation.entity_store import build_entities, get_entities
from core.store.connection import rows

CHAPTER = (
    "In the morning {a} met {b} by the river, and the town was quiet while the carts went by. "
    "The rain fell on the roofs and nobody looked up at the windows of the old house. "
)


@pytest.fixture
def book(db):
    names = ["Marius", "Cosette", "Javert", "Valjean", "Fantine"]
    text = "\n\n".join(CHAPTER.format(a=names[i % 5], b=names[(i + 1) % 5]) * 4 for i in range(20))
    upsert_document(db, "book", text, kind="book", source="file", title="Test Book")
    build_entities(db, "book", method="regex")
    return db


def _reply(request) -> str:
    entity = request.fields["entity"]
    return json.dumps(
        [
            {"question": f"Why does {entity} keep going back to the river {i}?", "answer": "x"}
            for i in ("at dawn", "in winter")
        ]
    )


def _entities_done(db) -> int:
    got = rows(db, "select distinct entity_id from questions where origin = 'generated'")
    return len(got)


def test_interrupted_generation_keeps_each_entitys_questions_and_resumes(book):
    model = "scripted:gen-int"
    n = len(get_entities(book, "book", top=5))
    assert n == 5
    with one_call_in_flight():
        interrupt_after("gen-int", 3, _reply, lambda: _entities_done(book))
        with pytest.raises(KeyboardInterrupt):
            gen.generate_questions(book, "book", model, n_entities=5, per_entity=2)
        assert answered("gen-int") == 3
        assert _entities_done(book) == 3  # each paid reply's questions were stored at once
        assert len(rows(book, "select 1 from questions where origin = 'generated'")) == 6
        runs = rows(book, "select status from runs where kind = 'generate'")
        assert [r["status"] for r in runs] == ["failed"]

        interrupt_after("gen-int", None, _reply)
        summary = gen.generate_questions(book, "book", model, n_entities=5, per_entity=2)
        assert answered("gen-int") == 2  # only the two entities without questions were asked
        assert summary["skipped_entities"] == 3 and summary["failures"] == 0
        assert summary["kept"] + summary["discarded"] == 4
        assert _entities_done(book) == 5
