"""A mother and her daughters under one bare surname stay different entities on both extraction
paths (issue 36), read from real text: *Pride and Prejudice*, Chapters 1-6
(``tests/data/unseen_books/pride_and_prejudice_mothers.txt``, provenance in
``tests/data/unseen_books/SOURCE.md``).

* "Mrs. Bennet" (the mother, a dozen times), "Miss Bennet" (Jane, the eldest daughter) and "the
  Miss Bennets" (the daughters); "Mr. Bennet" the father. Chapters 1-5 write "Elizabeth
  Bennet" once only, so no fuller name stands between the mother and the daughters; Chapter 6
  adds "Miss Elizabeth Bennet" twice, the second daughter, who is not "Miss Bennet" (Jane).
* "Lady Lucas" (Sir William's wife) five times (four in Chapters 1-5), "Miss Lucas" (Charlotte,
  her eldest daughter) eight times (four), and "a young Lucas" (her son) once: neither woman has twice the other's
  mentions, so the bare "Lucas" goes to neither.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from unseen_novel import METHODS

from core.corpus.documents import read_text_file, split_passages
from core.corpus.gutenberg import clean_gutenberg
from core.generation.entities import extract_entities
from core.generation.names import Entity

BOOKS = Path(__file__).resolve().parents[1] / "data" / "unseen_books"
DATA = BOOKS / "pride_and_prejudice_mothers.txt"
#: How much of the excerpt is read: Chapters 1-5 (no fuller name between mother and
#: daughters, none for Lady and Miss Lucas: Sir William's full name is in Chapter 6) or 1-6.
CHAPTERS = ["1-5", "1-6"]
_CACHE: dict[tuple[str, str], list[Entity]] = {}


def holding(ents: list[Entity], surface: str) -> list[Entity]:
    """The entities with a mention written ``surface`` (title included)."""
    return [e for e in ents if any(m.surface == surface for m in e.mentions)]


def titles(e: Entity) -> set[str]:
    return {t for m in e.mentions for t in m.titles}


def entities(method: str, chapters: str = "1-6") -> list[Entity]:
    if (method, chapters) not in _CACHE:
        body = clean_gutenberg(read_text_file(DATA)).body
        if chapters == "1-5":
            body = body[: body.index("Chapter 6")]
        spans = [(p.start, p.end) for p in split_passages(body)]
        _CACHE[method, chapters] = extract_entities(body, method, spans=spans)[0]
    return _CACHE[method, chapters]


@pytest.mark.parametrize("chapters", CHAPTERS)
@pytest.mark.parametrize("method", METHODS)
def test_mrs_bennet_is_not_her_daughters(method, chapters):
    ents = entities(method, chapters)
    (mrs,) = holding(ents, "Mrs. Bennet")
    assert titles(mrs) == {"mrs"}, sorted({m.surface for m in mrs.mentions})
    assert mrs.name == "Mrs. Bennet" and mrs.n_mentions >= 9
    misses = holding(ents, "Miss Bennet")
    assert len(misses) == 1 and misses[0] is not mrs
    assert titles(misses[0]) == {"miss"}, sorted({m.surface for m in misses[0].mentions})
    for e in holding(ents, "Miss Bennets"):  # the daughters: with Miss Bennet or alone
        assert "mrs" not in titles(e)
    (mr,) = holding(ents, "Mr. Bennet")
    assert mr is not mrs and mr is not misses[0] and titles(mr) == {"mr"}


@pytest.mark.parametrize("method", METHODS)
def test_miss_bennet_is_not_her_sister_miss_elizabeth_bennet(method):
    ents = entities(method)
    (lizzy,) = holding(ents, "Miss Elizabeth Bennet")
    assert not {m.core for m in lizzy.mentions} & {"Bennet", "Bennets"}, lizzy.aliases
    (mrs,) = holding(ents, "Mrs. Bennet")
    assert lizzy is not mrs


@pytest.mark.parametrize("method", METHODS)
def test_the_daughters_first_names_are_not_their_mother(method):
    ents = entities(method)
    (mrs,) = holding(ents, "Mrs. Bennet")
    cores = {m.core for m in mrs.mentions}
    assert not cores & {"Elizabeth", "Jane", "Lizzy", "Kitty", "Lydia", "Mary", "Eliza"}, cores


@pytest.mark.parametrize("chapters", CHAPTERS)
@pytest.mark.parametrize("method", METHODS)
def test_lady_lucas_is_not_miss_lucas_and_the_bare_surname_stays_unresolved(method, chapters):
    ents = entities(method, chapters)
    (lady,) = holding(ents, "Lady Lucas")
    (miss,) = holding(ents, "Miss Lucas")
    assert lady is not miss
    assert titles(lady) == {"lady"} and titles(miss) == {"miss"}
    assert (lady.n_mentions, miss.n_mentions) == ((4, 4) if chapters == "1-5" else (5, 8))
    for e in holding(ents, "Lucas"):  # neither has twice the other's: the bare surname is neither's
        assert e is not lady and e is not miss
