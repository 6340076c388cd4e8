"""The bundled *Anna Karenina* parts (``tests/data/unseen_books/SOURCE.md``) joined into one
text, and its entities per extraction path, computed once per test process (or session): shared
by the name-form tests (``tests/generation/test_one_person_many_names.py``,
``tests/generation/test_kitty_and_namesakes.py``); and an offline event-order question made on
the excerpt (the judge tests)."""

from __future__ import annotations

import contextlib
import functools
from pathlib import Path

import pytest
from spacy_once import extraction_once

from core.corpus.documents import read_text_file, split_passages, upsert_document
from core.corpus.gutenberg import clean_gutenberg
from core.generation import entities
from core.generation.entity_store import build_entities
from core.generation.mentions import spacy_available
from core.generation.names import Entity
from core.generation.questions import generate_questions
from core.store.connection import rows
from core.store.engine import Database
from core.store.questions import Question

DATA = Path(__file__).resolve().parent / "data" / "unseen_books"
#: The built-in finder always; spaCy where its English pipeline is installed.
METHODS = [
    "regex",
    pytest.param(
        "spacy",
        marks=pytest.mark.skipif(spacy_available() is None, reason="no spaCy English pipeline"),
    ),
]


def novel_text(parts: tuple[str, ...]) -> str:
    """The Gutenberg bodies of ``parts`` (file names under :data:`DATA`), blank-line joined."""
    return "\n\n".join(clean_gutenberg(read_text_file(DATA / name)).body for name in parts)


@functools.cache
def novel_entities(parts: tuple[str, ...], method: str, folder: Path | None = None) -> list[Entity]:
    """The entities ``method`` extracts from :func:`novel_text` of ``parts`` (its passages as
    the spans), once per (parts, method) in a process; with ``folder`` (the session's:
    the ``once`` fixture of :mod:`spacy_once`) once per session, for test files that read the
    same parts."""
    body = novel_text(parts)
    spans = [(p.start, p.end) for p in split_passages(body)]
    with extraction_once(folder) if folder is not None else contextlib.nullcontext():
        return entities.extract_entities(body, method, spans=spans)[0]


def holding(ents: list[Entity], core: str) -> list[Entity]:
    """The entities with a mention whose core name is ``core``."""
    return [e for e in ents if any(m.core == core for m in e.mentions)]


def event_order_question(db: Database) -> Question:
    """The first offline event-order question made on the *Anna Karenina* excerpt, stored in
    ``db`` as document ``ak`` (built-in entity finder, baseline generator): it chooses between
    two characters (``metadata.candidates``); its first reference is the right one's name."""
    body = clean_gutenberg(read_text_file(DATA / "anna_karenina_excerpt.txt")).body
    upsert_document(db, "ak", body, kind="book", source="file", title="Anna Karenina")
    build_entities(db, "ak", method="regex")
    generate_questions(db, "ak", "baseline", n_entities=8, per_entity=3)
    sql = "select * from questions where document_id = 'ak' and qtype = 'event-order' order by id"
    return Question.from_row(rows(db, sql)[0])
