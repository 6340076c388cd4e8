"""Places and roles out of the PERSON lists, a character NER never tags into them (issue 36), on
real text (:mod:`core.generation.not_names`):

* *Les Misérables* (``demo/books``), Volume II, Book First, "Waterloo": spaCy tags "Waterloo"
  PERSON 70 times of 71 ("at Waterloo" 14 times, "the battle of Waterloo"), the built-in finder
  calls the farm "Hougomont" a PERSON; both are places. Napoleon, Wellington and Blücher, who
  fight *at* places too, stay people.
* *Dubliners* in the newest layout (``tests/data/unseen_books/dubliners_2021_couples.txt``):
  "Polly" (Polly Mooney of *The Boarding House*, 8 times) is never tagged by spaCy's small
  model, and had no label on the built-in path: a PERSON on both; "the Madam’s daughter" (the
  title read through its possessive) and "the Deputy Coroner" are roles, not names.
* *Anna Karenina* (``anna_karenina_levin.txt``, ``anna_karenina_kitty.txt``): "Mamma", said
  alone twice, which spaCy tags PERSON, is a role.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from unseen_novel import METHODS

from core.corpus.documents import read_text_file, split_passages
from core.corpus.gutenberg import clean_gutenberg
from core.generation import entity_labels, name_address, not_names
from core.generation.entities import extract_entities
from core.generation.entity_labels import context_evidence
from core.generation.names import Entity, Mention
from core.generation.not_names import after_determiners, is_role, revised_label

ROOT = Path(__file__).resolve().parents[2]
LESMIS = ROOT / "demo" / "books" / "pg135_les_miserables_hugo_hapgood.txt"
BOOKS = ROOT / "tests" / "data" / "unseen_books"
_CACHE: dict[tuple[str, str], list[Entity]] = {}


def _waterloo() -> str:
    """Volume II, Book First of *Les Misérables*: from its heading in the body (the first is the
    contents') to the next book's."""
    text = read_text_file(LESMIS)
    heading = "BOOK FIRST—WATERLOO"
    start = text.index(heading, text.index(heading) + 1)
    return text[start : text.index("BOOK SECOND—THE SHIP ORION", start)]


def _text(book: str) -> str:
    if book == "waterloo":
        return _waterloo()
    files = {"dubliners": ["dubliners_2021_couples.txt"]}.get(
        book, ["anna_karenina_levin.txt", "anna_karenina_kitty.txt"]
    )
    return "\n\n".join(clean_gutenberg(read_text_file(BOOKS / f)).body for f in files)


def entities(book: str, method: str) -> list[Entity]:
    if (book, method) not in _CACHE:
        text = _text(book)
        spans = [(p.start, p.end) for p in split_passages(text)]
        _CACHE[book, method] = extract_entities(text, method, spans=spans)[0]
    return _CACHE[book, method]


def people(ents: list[Entity], top: int = 15) -> list[str]:
    return [e.name for e in ents if e.label == "PERSON"][:top]


@pytest.mark.parametrize("method", METHODS)
def test_a_battlefield_and_a_farm_are_places_the_generals_people(method):
    ents = entities("waterloo", method)
    by_name = {e.name: e for e in ents}
    top = people(ents)
    assert "Waterloo" not in top and by_name["Waterloo"].label == "PLACE"
    assert by_name["Waterloo"].n_mentions >= 70
    assert "Hougomont" not in people(ents, 100)
    assert {"Napoleon", "Wellington", "Blücher"} <= set(top[:5])


@pytest.mark.parametrize("method", METHODS)
def test_polly_mooney_is_a_person_on_both_paths(method):
    ents = entities("dubliners", method)
    polly = [e for e in ents if "Polly" in (e.name, *e.aliases)]
    assert len(polly) == 1 and polly[0].n_mentions >= 8
    assert polly[0].name in people(ents)


@pytest.mark.parametrize("method", METHODS)
def test_the_madam_and_the_coroner_are_roles_not_people(method):
    ents = entities("dubliners", method)
    roles = {e.name for e in ents if e.label == "ROLE"}
    assert roles & {"Coroner", "Deputy Coroner"}
    assert not {"Madam", "Coroner", "Deputy Coroner"} & set(people(ents, 100))
    assert "Mrs Mooney" in people(ents)  # "the Madam" is hers: the name stays a person's


@pytest.mark.parametrize("method", METHODS)
def test_mamma_said_alone_is_no_person(method):
    ents = entities("anna_karenina", method)
    assert "Mamma" not in people(ents, 100)
    assert {"Levin", "Kitty"} <= set(people(ents))


def _mentions(text: str, word: str) -> list[Mention]:
    out, at = [], text.find(word)
    while at >= 0:
        out.append(Mention(at, at + len(word), word, word, label="PERSON"))
        at = text.find(word, at + 1)
    return out


def test_a_role_only_name_is_kept_as_a_role_a_role_beside_a_name_is_the_persons():
    text = (
        "The Admiral came in. “Sit down,” said the Admiral. The Admiral’s wife laughed.\n\n"
        "The Vicomtesse smiled. Vicomtesse Claire left. The Vicomtesse sat."
    )
    admiral = _mentions(text, "Admiral")
    assert is_role(admiral, "Admiral")
    assert revised_label(admiral, "Admiral", "PERSON", text) == "ROLE"  # labelled, not dropped
    papa = "“Papa!” cried Anna. Papa smiled at her, and she ran to Papa."
    assert revised_label(_mentions(papa, "Papa"), "Papa", "PERSON", papa) == "ROLE"
    alone = _mentions(text, "Vicomtesse")
    assert revised_label(alone, "Vicomtesse", "PERSON", text) == "ROLE"
    named = alone + [Mention(text.index("Claire"), text.index(" left"), "Claire", "Claire")]
    assert revised_label(named, "Vicomtesse", "PERSON", text) == "PERSON"


def test_a_word_mostly_after_the_is_no_name():
    text = "The Empire fell. He served the Empire. Empire rose again. Stiva saw the Stiva."
    empire = _mentions(text, "Empire")
    assert after_determiners(empire, "Empire", text)
    assert revised_label(empire, "Empire", "PERSON", text) == "OTHER"
    assert revised_label(empire, "Empire", "", text) == ""  # "the Park": no label, none given
    stiva = _mentions(text, "Stiva")
    assert not after_determiners(stiva[:1], "Stiva", text)


def test_a_speaker_written_after_at_stays_a_person():
    text = "They met at Dover.\n\nHe wrote to Dover.\n\n“No,” said Dover.\n\nIn Dover it rained."
    ms = _mentions(text, "Dover")
    assert revised_label(ms, "Dover", "PERSON", text) == "PERSON"
    assert revised_label(ms[:2] + ms[3:], "Dover", "PERSON", text) == "PLACE"


@pytest.mark.parametrize("method", METHODS)
def test_a_label_reads_each_entitys_context_evidence_once(method, monkeypatch):
    """The revised label reads the context evidence that NER's and the context's label already
    read (the *Dubliners* stories, both paths): one reading an entity at most (it was up to
    three: the label, its revision, the gender check), the same labels as reading it afresh."""
    text = _text("dubliners")
    ents = entities("dubliners", method)
    afresh = [
        revised_label(
            e.mentions, e.name, entity_labels.entity_label(e.mentions, e.name, text), text
        )
        for e in ents
    ]
    calls: list[int] = []

    def counted(ms: list[Mention], text: str) -> tuple[int, int, float]:
        calls.append(len(ms))
        return context_evidence(ms, text)

    for module in (entity_labels, not_names, name_address):
        monkeypatch.setattr(module, "context_evidence", counted)
    for e, label in zip(ents, afresh, strict=True):
        calls.clear()
        assert not_names.entity_label(e.mentions, e.name, text) == label, e.name
        assert len(calls) <= 1, (e.name, calls)
    assert any(e.label == "PERSON" for e in ents) and any(e.label != "PERSON" for e in ents)
