"""The mentions of an entity extraction are staged in chunks and switched in at once: every
mention points at its own entity, a rerun keeps ids and counts, and no stage is left."""

from __future__ import annotations

import core.store.row_stage as row_stage
from core.corpus.documents import upsert_document
from core.generation import entity_store

NAMES = ["Anselm", "Brigid", "Cormac", "Dervla", "Eamon", "Fionn", "Grainne", "Hugh"]
TEXT = "\n\n".join(
    f"{NAMES[i % 8]} met {NAMES[(i + 3) % 8]} by the river. {NAMES[(i + 5) % 8]} waited."
    for i in range(60)
)


def test_staged_mentions_point_at_their_entities(db, monkeypatch):
    monkeypatch.setattr(row_stage, "CHUNK_ROWS", 7)  # many chunks
    upsert_document(db, "tale", TEXT, kind="story", source="file")
    entity_store.build_entities(db, "tale", method="regex")
    entities = entity_store.get_entities(db, "tale")
    assert {e.name for e in entities} == set(NAMES)
    for e in entities:
        mentions = entity_store.get_mentions(db, e.id)
        assert len(mentions) == e.n_mentions > 0
        assert {TEXT[m.start : m.end] for m in mentions} == {e.name}
    ids = {e.name: e.id for e in entities}
    n = db["mentions"].count
    entity_store.build_entities(db, "tale", method="regex")
    assert {e.name: e.id for e in entity_store.get_entities(db, "tale")} == ids
    assert db["mentions"].count == n == sum(e.n_mentions for e in entities)
    assert db["row_stage"].count == 0
    assert row_stage.live_stages(db) == []
