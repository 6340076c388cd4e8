"""Non-people out of the PERSON lists (issue 36), on real text: *Dubliners* (PG #2814, UTF-8
edition), paragraphs of *Araby* and *The Dead* (``tests/data/unseen_books/SOURCE.md``).

* "Araby", the bazaar, is written only in Gutenberg's italics ("going to _Araby_", "the word
  _Araby_"): a title or a word, labelled OTHER (spaCy calls it PERSON).
* "Johnny", the grandfather's horse ("a horse by the name of Johnny", "harnessed Johnny"), has a
  horse's word near most of its mentions and never speaks: OTHER. Mary Jane, whose two mentions
  here are as near those words, speaks ("said Mary Jane"): still a PERSON.
* "Hallow Eve", the feast of *Clay* ("so many Hallow Eves", "about Hallow Eve", "some Hallow
  Eve games"; ``dubliners_utf8_clay.txt``), is written after *many* and *some*, as a common noun
  is: no entity (spaCy called it a PERSON). Maria, Joe and Alphy stay people.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from core.corpus.documents import read_text_file, split_passages
from core.corpus.gutenberg import clean_gutenberg
from core.generation.entities import extract_entities
from core.generation.entity_labels import entity_label
from core.generation.mentions import spacy_available
from core.generation.names import Entity, Mention

TEXT = (
    Path(__file__).resolve().parents[1]
    / "data"
    / "unseen_books"
    / "dubliners_utf8_araby_johnny.txt"
)
METHODS = [
    "regex",
    pytest.param(
        "spacy",
        marks=pytest.mark.skipif(spacy_available() is None, reason="no spaCy English pipeline"),
    ),
]


def _entities(method: str) -> dict[str, Entity]:
    body = clean_gutenberg(read_text_file(TEXT)).body
    spans = [(p.start, p.end) for p in split_passages(body)]
    return {e.name: e for e in extract_entities(body, method, spans=spans)[0]}


@pytest.mark.parametrize("method", METHODS)
def test_a_bazaar_and_a_horse_are_not_people(method):
    ents = _entities(method)
    assert ents["Araby"].label == "OTHER" and ents["Araby"].n_mentions == 2
    assert ents["Johnny"].label == "OTHER" and ents["Johnny"].n_mentions == 10
    assert ents["Mary Jane"].label == "PERSON" and ents["Gabriel"].label == "PERSON"
    people = [e.name for e in ents.values() if e.label == "PERSON"]
    assert "Araby" not in people and "Johnny" not in people


def _mention(text: str, name: str, nth: int = 0) -> Mention:
    start = -1
    for _ in range(nth + 1):
        start = text.index(name, start + 1)
    return Mention(start=start, end=start + len(name), surface=name, core=name, label="PERSON")


def test_italics_make_a_title_only_when_every_mention_is_inside_them():
    text = "She asked was I going to _Araby_.\n\nThe word _Araby_ called.\n\nAraby said no."
    both = [_mention(text, "Araby", 0), _mention(text, "Araby", 1)]
    assert entity_label(both, "Araby", text) == "OTHER"
    assert entity_label([*both, _mention(text, "Araby", 2)], "Araby", text) == "PERSON"


def test_a_horse_that_speaks_is_a_person():
    text = "the horse by the name of Dobbin trotted.\n\nDobbin stood by the stable.\n\n"
    horse = [_mention(text, "Dobbin", 0), _mention(text, "Dobbin", 1)]
    assert entity_label(horse, "Dobbin", text) == "OTHER"
    speaking = text + "“Hay, please,” said Dobbin by the horse."
    ms = [_mention(speaking, "Dobbin", i) for i in range(3)]
    assert entity_label(ms, "Dobbin", speaking) == "PERSON"


@pytest.mark.parametrize("method", METHODS)
def test_a_feast_written_after_some_and_many_is_no_one(method):
    body = clean_gutenberg(read_text_file(TEXT.with_name("dubliners_utf8_clay.txt"))).body
    assert "so many Hallow\nEves" in body and "some Hallow Eve games" in body
    spans = [(p.start, p.end) for p in split_passages(body)]
    ents = {e.name: e for e in extract_entities(body, method, spans=spans)[0]}
    assert not [n for n in ents if "Hallow" in n], sorted(ents)
    assert {"Maria", "Joe", "Alphy"} <= set(ents)
    assert ents["Maria"].label == ents["Joe"].label == "PERSON"
