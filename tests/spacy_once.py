"""spaCy's NER read once per text in a test session: the bundled books several tests read.

The demo build (``tests/pipeline/test_demo.py``), ``tests/generation/test_entity_measure.py`` and
``tests/generation/test_translated_novels.py`` run the same spaCy pipeline over the same texts
(each bundled story and Les Misérables' sampled passages: the cleaned body and passage spans
``import_book`` / ``import_narrativeqa`` store are ``clean_gutenberg``'s body and
``split_passages``'). Inside :func:`spacy_mentions_once`,
:func:`core.generation.entities.spacy_mentions` runs once per ``(text, spans, lowers)`` in the
whole session: its result is written (pickled) to the session's folder that every pytest-xdist
worker shares (:func:`shared_folder`, new for each session), and a later call in any worker reads
its own copy (the extractor changes the mentions it is given). The first call of each is the
real one; two workers asking at once both compute it, the same result.
"""

from __future__ import annotations

import hashlib
import os
import pickle
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from core.generation import entities


def shared_folder(factory: pytest.TempPathFactory) -> Path:
    """This session's folder for :func:`spacy_mentions_once`: beside the workers' own temporary
    folders under pytest-xdist (their parent is the session's), else in the session's."""
    base = factory.getbasetemp()
    folder = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "spacy-once"
    folder.mkdir(exist_ok=True)
    return folder


def _key(text: str, spans: Any, lowers: Any) -> str:
    spans = list(spans)
    counts = sorted(lowers.items()) if lowers is not None else None
    return hashlib.sha256(repr((text, spans, counts)).encode()).hexdigest()


@contextmanager
def spacy_mentions_once(folder: Path) -> Iterator[None]:
    """While open, spaCy reads a ``(text, spans, lowers)`` at most once per session (results in
    ``folder``: :func:`shared_folder`)."""
    real = entities.spacy_mentions

    def once(text: str, spans: Any, lowers: Any = None, progress: bool = False) -> Any:
        spans = list(spans)
        path = folder / f"{_key(text, spans, lowers)}.pickle"
        if path.exists():
            return pickle.loads(path.read_bytes())
        found = real(text, spans, lowers, progress=progress)
        partial = path.with_suffix(f".{os.getpid()}.part")
        partial.write_bytes(pickle.dumps(found))  # before the caller changes the mentions
        partial.replace(path)  # whole or absent for a reader in another worker
        return found

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(entities, "spacy_mentions", once)
        yield
