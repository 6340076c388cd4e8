"""spaCy's NER, and whole entity extractions, computed once per input in a test session.

The demo build (``tests/pipeline/test_demo.py``), ``tests/generation/test_entity_measure.py``
and ``tests/generation/test_translated_novels.py`` run the same spaCy pipeline over the same texts
(each bundled story and Les Misérables' sampled passages: the cleaned body and passage spans
``import_book`` / ``import_narrativeqa`` store are ``clean_gutenberg``'s body and
``split_passages``'). Inside :func:`spacy_mentions_once`,
:func:`core.generation.entities.spacy_mentions` runs once per ``(text, spans, lowers)`` in the
whole session; inside :func:`extraction_once`, so does
:func:`core.generation.entities.extract_entities` per ``(text, method, arguments)`` (the
tests of Les Misérables' built-in extraction and of the demo's books read each other's). A
result is written (pickled) to the session's folder that every pytest-xdist worker shares
(:func:`shared_folder`, new for each session) with the CPU seconds its real call took, and a
later call in any worker reads its own copy (the callers change what they are given). The
first call of each is the real one; two workers asking at once both compute it, the same result.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from core.generation import entities, entity_store


def shared_folder(factory: pytest.TempPathFactory) -> Path:
    """This session's folder for :func:`spacy_mentions_once` and :func:`extraction_once`:
    beside the workers' own temporary folders under pytest-xdist (their parent is the
    session's), else in the session's."""
    base = factory.getbasetemp()
    folder = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "spacy-once"
    folder.mkdir(exist_ok=True)
    return folder


@pytest.fixture(name="once")
def once_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``once``: the session's folder of shared results (:func:`shared_folder`), for a test
    that opens :func:`extraction_once` in a helper (``from spacy_once import once_folder``)."""
    return shared_folder(tmp_path_factory)


@dataclass
class Reads:
    """What the calls inside :func:`extraction_once` read instead of computing: ``cpu`` is
    the CPU seconds their real calls took (in whichever worker ran them), so a CPU budget
    still counts the work it no longer does itself."""

    cpu: float = 0.0
    n: int = 0


def _once(folder: Path, key: Any, compute: Callable[[], Any], reads: Reads | None = None) -> Any:
    """``compute()``, or a copy of its result for the same ``key`` in ``folder`` this session
    (``reads`` counts the copies and the CPU seconds their real calls took)."""
    path = folder / f"{hashlib.sha256(repr(key).encode()).hexdigest()}.pickle"
    if path.exists():
        found, cpu = pickle.loads(path.read_bytes())
        if reads is not None:
            reads.cpu += cpu
            reads.n += 1
        return found
    start = time.process_time()
    found = compute()
    cpu = time.process_time() - start
    partial = path.with_suffix(f".{os.getpid()}.part")
    partial.write_bytes(pickle.dumps((found, cpu)))  # before the caller changes the result
    partial.replace(path)  # whole or absent for a reader in another worker
    return found


@contextmanager
def spacy_mentions_once(folder: Path) -> Iterator[None]:
    """While open, spaCy reads a ``(text, spans, lowers)`` at most once per session (results in
    ``folder``: :func:`shared_folder`)."""
    real = entities.spacy_mentions

    def once(text: str, spans: Any, lowers: Any = None, progress: bool = False) -> Any:
        spans = list(spans)
        counts = sorted(lowers.items()) if lowers is not None else None
        return _once(
            folder,
            ("spacy_mentions", text, spans, counts),
            lambda: real(text, spans, lowers, progress=progress),
        )

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(entities, "spacy_mentions", once)
        yield


#: Spellings of one method of :func:`~core.generation.entities.extract_entities`.
_METHODS = {"regex": "proper-noun"}


@contextmanager
def extraction_once(folder: Path) -> Iterator[Reads]:
    """While open, :func:`~core.generation.entities.extract_entities` (as ``build_entities``
    calls it, and as ``entities.extract_entities``) runs at most once per session for a
    ``(text, method, min_mentions, spans, stories)`` (``auto`` as the method it picks), spaCy's
    NER inside it too
    (:func:`spacy_mentions_once`); yields the :class:`Reads` of the calls that read a result."""
    real = entities.extract_entities
    reads = Reads()

    def once(  # noqa: PLR0913  (extract_entities' own arguments)
        text: str,
        method: str = "auto",
        *,
        min_mentions: int = 2,
        spans: Any = None,
        progress: bool = False,
        stories: Sequence[int] | None = None,
    ) -> Any:
        spans = None if spans is None else list(spans)
        stories = None if stories is None else list(stories)
        same = _METHODS.get(method, method)  # the method auto picks, regex is proper-noun
        if same == "auto":
            same = "spacy" if entities.spacy_available() else "proper-noun"
        key = ("extract_entities", text, same, min_mentions, spans, stories)
        kw = {"min_mentions": min_mentions, "spans": spans, "stories": stories}
        return _once(folder, key, lambda: real(text, method, progress=progress, **kw), reads)

    with pytest.MonkeyPatch.context() as patch, spacy_mentions_once(folder):
        patch.setattr(entities, "extract_entities", once)
        patch.setattr(entity_store, "extract_entities", once)
        yield reads
