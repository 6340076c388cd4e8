"""spaCy's NER read once per text in a test process: a bundled book two test files read.

``tests/generation/test_entity_measure.py`` and ``tests/generation/test_translated_novels.py``
both run the same spaCy pipeline over Siddhartha (the same cleaned body and passage spans): inside
:func:`spacy_mentions_once`, :func:`core.generation.entities.spacy_mentions` runs once per
``(text, spans, lowers)`` in this process; every call gets its own deep copy (the extractor
changes the mentions it is given). Under pytest-xdist a worker is one process: the saving is
there when both files run on the same worker.
"""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from core.generation import entities

#: The mentions of each text already read (a pristine copy), by :func:`_key`.
_READ: dict[str, Any] = {}


def _key(text: str, spans: Any, lowers: Any) -> str:
    spans = list(spans)
    counts = sorted(lowers.items()) if lowers is not None else None
    return hashlib.sha256(repr((text, spans, counts)).encode()).hexdigest()


@contextmanager
def spacy_mentions_once() -> Iterator[None]:
    """While open, spaCy reads a ``(text, spans)`` at most once in this process."""
    real = entities.spacy_mentions

    def once(text: str, spans: Any, lowers: Any = None, progress: bool = False) -> Any:
        spans = list(spans)
        key = _key(text, spans, lowers)
        if key not in _READ:
            found = real(text, spans, lowers, progress=progress)
            _READ[key] = copy.deepcopy(found)
            return found
        return copy.deepcopy(_READ[key])

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(entities, "spacy_mentions", once)
        yield
