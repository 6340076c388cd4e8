"""tests/spacy_once.py: an extraction is computed once per input in a session, read as a copy."""

from __future__ import annotations

import time
from typing import Any

import pytest
from spacy_once import extraction_once

from core.generation import entities, entity_store

TEXT = (
    "Marius met Cosette in Paris. Marius loved Cosette. Later Javert saw Marius in Paris, and "
    "Javert followed him."
)
#: CPU seconds each real call takes at least (:func:`real_calls`).
CPU = 0.05


@pytest.fixture
def real_calls(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, ...]]:
    """The arguments of every real :func:`entities.extract_entities` call (each takes at least
    :data:`CPU` seconds of CPU time)."""
    calls: list[tuple[Any, ...]] = []
    real = entities.extract_entities

    def counted(text: str, method: str = "auto", **kw: Any) -> Any:
        calls.append((text, method, kw))
        start = time.process_time()
        while time.process_time() - start < CPU:
            pass
        return real(text, method, **kw)

    monkeypatch.setattr(entities, "extract_entities", counted)
    return calls


def test_the_same_input_is_extracted_once_and_read_as_a_copy(tmp_path, real_calls):
    with extraction_once(tmp_path) as reads:
        first, used = entities.extract_entities(TEXT, "regex")
        again, used_again = entity_store.extract_entities(TEXT, "proper-noun")  # one method
    assert len(real_calls) == 1 and reads.n == 1
    assert reads.cpu >= CPU  # a CPU budget still counts the real call's seconds
    assert (again, used_again) == (first, used) and again is not first
    again[0].mentions.clear()  # a reader's changes stay its own
    with extraction_once(tmp_path) as reads:
        third, _ = entities.extract_entities(TEXT, "regex")
    assert third == first and len(real_calls) == 1 and reads.n == 1


@pytest.mark.parametrize(
    "other",
    [
        {"text": TEXT + " Marius left."},
        {"min_mentions": 3},
        {"spans": [(0, 28), (29, len(TEXT))]},
        {"stories": [0, 29]},
    ],
)
def test_another_input_is_extracted_again(tmp_path, real_calls, other):
    with extraction_once(tmp_path) as reads:
        entities.extract_entities(TEXT, "regex")
        kw = {k: v for k, v in other.items() if k != "text"}
        entities.extract_entities(other.get("text", TEXT), "regex", **kw)
    assert len(real_calls) == 2 and reads.n == 0
