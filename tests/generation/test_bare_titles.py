"""A bare title joins the one person who bears it, never one of several (issue 36;
:mod:`core.generation.bare_titles`).

Real text: *The Magnificent Ambersons* (``demo/narrativeqa/stories``), whose "the Major" (some
100 times, 36 of them "the Major’s") is Major Amberson, the one man titled Major; *Father
Goriot*'s "the Duchess" (the Duchesse de Langeais and the Duchesse de Carigliano) and *The Art of
War*'s "the Emperor" (T’ai Tsung, Kao Tsu, ...), titles several people bear, join no one.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest
from spacy_once import extraction_once, once_folder  # noqa: F401  (fixture: once)
from unseen_novel import METHODS

from core.corpus.documents import read_text_file, split_passages
from core.corpus.gutenberg import clean_gutenberg
from core.generation import entities as extractor
from core.generation.entities import extract_entities
from core.generation.entity_edits import apply_edits, from_dict
from core.generation.names import Entity

STORIES = Path(__file__).resolve().parents[2] / "demo" / "narrativeqa" / "stories"
AMBERSONS = "c3fe35b1c129aa367e223e6cb1cecaba20a26a37"
GORIOT = "e62ba8eff570a51d9e5dd256e45012d4d83bfd5f"
ART_OF_WAR = "d6cf36363a9fc159d415e534d641f293b5d4b255"


@cache
def _text(doc_id: str) -> str:
    return clean_gutenberg(read_text_file(STORIES / f"{doc_id}.txt")).body


@cache
def _entities(doc_id: str, method: str, folder: Path) -> list[Entity]:
    """The entities as the store builds them: spaCy reads the passages (all of them, fewer than
    ``SPACY_FULL_MAX``: NER's own mentions, not the built-in finder's); the extraction, once a
    session for the text the demo build reads too (``folder``: :func:`spacy_once.shared_folder`,
    :func:`spacy_once.extraction_once`)."""
    spans = [(p.start, p.end) for p in split_passages(_text(doc_id))]
    with extraction_once(folder):
        return extractor.extract_entities(_text(doc_id), method, spans=spans)[0]


def _titled(ents: list[Entity], title: str) -> list[Entity]:
    return [e for e in ents if any(title in m.titles for m in e.mentions)]


@pytest.mark.parametrize("method", METHODS)
def test_the_major_joins_major_amberson(method, once):
    ents = _entities(AMBERSONS, method, once)
    text = _text(AMBERSONS)
    assert not [e for e in ents if e.name == "Major"]  # main: a ROLE (ORG on spaCy) of its own
    (major,) = _titled(ents, "major")
    bare = [m for m in major.mentions if m.core == "Major" and not m.titles]
    # "the Major's" (36) and "the Major said", "The Major laughed", ... (which no finder kept)
    assert len(bare) >= 100
    assert {text[m.end : m.end + 2] for m in bare} >= {"'s", " s", " l", " w"}
    assert major.label == "PERSON" and "Major" in major.aliases
    assert f"Major -> {major.name} (the one person titled Major)" in major.merges
    assert major.name == ("Amberson" if method == "regex" else "Major Amberson")


def test_a_user_split_by_surface_takes_the_major_back_out(once):
    # entity repair replays a split recorded by surface form on the joined entity
    ents = _entities(AMBERSONS, "regex", once)
    base = [
        from_dict(
            {
                "name": e.name,
                "label": e.label,
                "aliases": e.aliases,
                "mentions": [(m.start, m.end, m.surface) for m in e.mentions],
            }
        )
        for e in ents
    ]
    split = {"entity": "Amberson", "surface": "Major", "after": "the", "name": "the Major"}
    out, skipped = apply_edits(
        base,
        [{"id": 1, "action": "split", "payload": {**split, "label": "ROLE"}}],
        _text(AMBERSONS),
    )
    by = {e.name: e for e in out}
    before = next(e for e in base if e.name == "Amberson")
    assert skipped == [] and by["the Major"].n_mentions >= 90 and by["the Major"].label == "ROLE"
    assert by["Amberson"].n_mentions + by["the Major"].n_mentions == before.n_mentions
    assert {s for _, _, s in by["the Major"].mentions} == {"Major"}


@pytest.mark.parametrize("method", METHODS)
def test_a_title_several_people_bear_joins_none_of_them(method, once):
    for doc_id, word in ((GORIOT, "Duchess"), (ART_OF_WAR, "Emperor")):
        bare = re.findall(rf"\b[Tt]he {word}\b(?![ \t]+[A-Z])", _text(doc_id))
        assert len(bare) >= 2  # the rule had a bare title to give: it gives it to no one
        ents = _entities(doc_id, method, once)
        assert not [n for e in ents for n in e.merges if "the one person titled" in n], doc_id
        assert not [m for e in ents for m in e.mentions if m.core == word and not m.titles]


ONE = (
    "Major Amberson built the house. “Come in,” said Major Amberson to George.\n\n"
    "George went to the Major’s house. The Major laughed, and George sat down. Later the "
    "Major’s lawyer came, and the Major went out.\n\n"
    "George thought of the Major’s fortune. George said the Major was kind."
)
TWO = ONE + "\n\nMajor Smith came next day. “Well,” said Major Smith, and George bowed to him."


@pytest.mark.parametrize("method", METHODS)
def test_one_major_is_joined_two_majors_are_not(method):
    ents = extract_entities(ONE, method)[0]
    (major,) = _titled(ents, "major")
    assert sorted(m.surface for m in major.mentions) == ["Major"] * 6 + ["Major Amberson"] * 2
    ents = extract_entities(TWO, method)[0]
    assert sorted(e.name for e in _titled(ents, "major")) == ["Amberson", "Smith"]
    assert all(m.titles for e in _titled(ents, "major") for m in e.mentions)


def test_a_bare_title_joins_no_bearer_of_another_story():
    # a collection: the Major of story 2 is not story 1's Major Amberson
    second = "\n\nThe Major came in. George said the Major was kind, and the Major laughed."
    text = ONE + second
    ents = extract_entities(text, "regex", stories=[0, len(ONE) + 2])[0]
    (major,) = _titled(ents, "major")
    assert all(m.start < len(ONE) for m in major.mentions)
