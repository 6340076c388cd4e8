"""Entities a reader would accept: NORP kept out, aliases merged (shown), main characters found."""

import json
from pathlib import Path

import pytest
from spacy_once import extraction_once, shared_folder

from core.corpus.documents import read_text_file, split_passages
from core.corpus.gutenberg import clean_gutenberg
from core.generation import entities as extractor
from core.generation.entities import extract_entities
from core.generation.entity_measure import character_recall
from core.generation.mentions import spacy_available

ROOT = Path(__file__).resolve().parents[2]
WANTED = json.loads((ROOT / "tests" / "data" / "main_characters.json").read_text())

HOLT = (
    "Hickman Holt rode west. The Indian scout watched the Mormon wagons.\n\n"
    "\u201cWait,\u201d said Hick Holt to Marian Holt. Hickman Holt laughed.\n\n"
    "Holt was tired. Hick Holt slept while Marian Holt kept watch. The Indian came back.\n\n"
    "The Indian spoke. Later Holt and Hickman Holt and Marian Holt crossed into Texas, "
    "where the Mormon elders met them. An Indian guided them through Texas."
)


@pytest.mark.parametrize("method", ["regex", "spacy"])
def test_nicknames_merge_and_norp_stays_out(method):
    if method == "spacy" and spacy_available() is None:
        pytest.skip("no spaCy English pipeline installed")
    entities, used = extract_entities(HOLT, method)
    assert used == ("spacy" if method == "spacy" else "proper-noun")
    by_name = {e.name: e for e in entities}
    holts = [e for e in entities if "Hick" in e.name or "Hick Holt" in e.aliases]
    assert len(holts) == 1, [(e.name, e.aliases) for e in entities]
    hick = holts[0]
    assert hick.name == "Hickman Holt" and "Hick Holt" in hick.aliases
    assert any(n.startswith("Hick Holt -> Hickman Holt (nickname") for n in hick.merges)
    assert "Marian Holt" in by_name  # a relative sharing the surname is not merged
    assert not {"Indian", "Mormon"} & set(by_name)


def test_a_name_several_characters_share_is_reported_when_an_entity_holds_it():
    """A family's surname is no one character's variant, so it can show no wrong merge: the
    measure lists the entity named otherwise that holds it as an alias (titles aside), and not
    an entity that is the bare surname alone (left unresolved)."""
    ents = [
        {
            "name": "Nikolai Petrovitch",
            "label": "PERSON",
            "aliases": ["Nikolai Petrovitch", "Kirsanov"],
        },
        {"name": "Arkady", "label": "PERSON", "aliases": ["Arkady", "Mr. Kirsanov"]},
        {"name": "Kirsanov", "label": "PERSON", "aliases": ["Kirsanov", "KIRSANOV"]},
        {"name": "Bazarov", "label": "PERSON", "aliases": ["Bazarov"]},
    ]
    chars = [["Nikolai Petrovitch"], ["Arkady"], ["Paul Petrovitch"], ["Bazarov"]]
    r = character_recall(ents, chars, shared=["Kirsanov"])
    assert r["shared"] == {"Nikolai Petrovitch": ["Kirsanov"], "Arkady": ["Kirsanov"]}
    assert r["wrong_merges"] == {}  # what the measure reported before ``shared``
    assert character_recall(ents, chars)["shared"] == {}


def test_character_recall_counts_own_names_and_reports_splits_and_wrong_merges():
    # Issue 36: an alias no longer finds a character, so a wrong merge is not a hit; it is
    # reported beside the share, as is a character split over two top entities.
    ents = [
        {"name": "Nikolay Ivanovitch Sviazhsky", "label": "PERSON", "aliases": ["Nikolay"]},
        {"name": "Levin", "label": "PERSON", "aliases": ["Konstantin Levin"]},
        {"name": "Kostya", "label": "PERSON", "aliases": []},
        {"name": "Konstantin", "label": "PERSON", "aliases": []},
        {"name": "Indian", "label": "PERSON", "aliases": []},
        {"name": "Anna", "label": "PERSON", "aliases": []},
        {"name": "Paris", "label": "PLACE", "aliases": []},
    ]
    chars = [["Sviazhsky"], ["Nikolay Levin", "Nikolay"], ["Levin", "Konstantin"], ["Ann"]]
    r = character_recall(ents, chars + [["Paris"]])
    assert r["found"] == ["Sviazhsky", "Nikolay Levin", "Levin", "Ann"]  # "Ann": part of "Anna"
    assert r["missing"] == ["Paris"] and r["share"] == pytest.approx(4 / 5)
    assert r["splits"] == {"Levin": ["Levin", "Konstantin"]}
    # the brother inside Sviazhsky's entity; "Ann" is not a whole alias of anyone
    assert r["wrong_merges"] == {"Nikolay Ivanovitch Sviazhsky": ["Sviazhsky", "Nikolay Levin"]}
    assert r["norp"] == ["Indian"]
    # a family name or a title in an alias is no wrong merge; a variant written as the alias is
    family = [
        {"name": "Fanny", "label": "PERSON", "aliases": ["Fanny Minafer", "Miss Fanny"]},
        {"name": "Wilbur", "label": "PERSON", "aliases": ["Mr. Georgie"]},
    ]
    r = character_recall(family, [["Georgie", "Minafer"], ["Fanny"], ["Wilbur"]])
    assert r["wrong_merges"] == {"Wilbur": ["Georgie", "Wilbur"]}
    # the entity's own name written with a title finds a character ("Sir Walter" of "Walter");
    # a title before another name does not ("Mr. Georgie" of "Wilbur"), and a man and a woman
    # in one entity are a wrong merge
    titled = [
        {"name": "Walter", "label": "PERSON", "aliases": ["Sir Walter", "Walter Elliot"]},
        {"name": "Croft", "label": "PERSON", "aliases": ["Admiral Croft", "Mrs Croft"]},
        {"name": "Wilbur", "label": "PERSON", "aliases": ["Mr. Georgie"]},
    ]
    r = character_recall(titled, [["Sir Walter"], ["Admiral Croft"], ["Mrs Croft"], ["Mr Georgie"]])
    assert r["found"] == ["Sir Walter", "Admiral Croft", "Mrs Croft"]
    assert r["missing"] == ["Mr Georgie"]
    assert r["wrong_merges"] == {"Croft": ["Admiral Croft", "Mrs Croft"]}
    # an alias alone finds nobody (it used to: 'Madeleine' as an alias of Jean Valjean)
    only_alias = character_recall(ents, [["Kostya Levin"], ["Konstantin Levin"]])
    assert only_alias["found"] == [] and only_alias["share"] == 0.0


#: Splits the four shortest stories show per path (An Ideal Husband's Robert / Robert Chiltern,
#: Gertrude / Lady Chiltern or Chiltern / Gertrude Chiltern, Arthur / Goring, Caversham / Lady
#: Caversham): reported, and a ceiling, so a new one is seen.
SPLITS = {"regex": 3, "spacy": 3}


@pytest.mark.parametrize(
    "method",
    [
        "regex",
        pytest.param(
            "spacy",
            marks=pytest.mark.skipif(
                spacy_available() is None, reason="no spaCy English pipeline installed"
            ),
        ),
    ],
)
def test_top15_people_hold_main_characters_of_bundled_stories(method, tmp_path_factory):
    # The four shortest bundled stories keep this test to about a minute; benchmarks/entities.py
    # measures all eight and Les Misérables. Issue 36's bar: main characters in the top 15
    # PERSON >= 0.9 with 0 wrong merges (a wrong merge is worse than a split); splits reported.
    stories = sorted((ROOT / "demo" / "narrativeqa" / "stories").glob("*.txt"))
    found = total = 0
    norp: list[str] = []
    splits: dict[str, list[str]] = {}
    wrong: dict[str, list[str]] = {}
    for path in sorted(stories, key=lambda p: p.stat().st_size)[:4]:
        body = clean_gutenberg(read_text_file(path)).body
        spans = [(p.start, p.end) for p in split_passages(body)]
        with extraction_once(shared_folder(tmp_path_factory)):  # the demo build reads them
            entities, used = extractor.extract_entities(body, method, spans=spans)
        assert used == ("spacy" if method == "spacy" else "proper-noun")
        rows = [{"name": e.name, "label": e.label, "aliases": e.aliases} for e in entities]
        r = character_recall(rows, WANTED[path.stem]["characters"])
        found += len(r["found"])
        total += len(r["found"]) + len(r["missing"])
        norp += r["norp"]
        splits |= {f"{path.stem[:8]}: {k}": v for k, v in r["splits"].items()}
        wrong |= {f"{path.stem[:8]}: {k}": v for k, v in r["wrong_merges"].items()}
    assert found / total >= 0.9, (found, total)
    assert wrong == {}, wrong
    assert norp == []
    assert len(splits) <= SPLITS[method], splits


def test_two_characters_of_one_first_name_are_told_apart():
    """*The Magnificent Ambersons* has two Georges: the nephew George Amberson Minafer ("George")
    and his uncle George Amberson ("Uncle George"). The nephew's variant "George" inside the
    uncle's name "George Amberson" is no hit for him and no merge; an entity holding the uncle's
    "Uncle George" or "George Amberson" beside the nephew's names is a wrong merge."""
    chars = [
        ["George", "Georgie", "George Amberson Minafer"],
        ["Isabel"],
        ["George Amberson", "Uncle George", "Brother George"],
    ]
    apart = [
        {"name": "George", "label": "PERSON", "aliases": ["Georgie", "George Minafer"]},
        {"name": "George Amberson", "label": "PERSON", "aliases": ["Uncle George", "Mr. Amberson"]},
        {"name": "Isabel", "label": "PERSON", "aliases": ["Mrs. Minafer"]},
    ]
    r = character_recall(apart, chars)
    assert r["found"] == ["George", "Isabel", "George Amberson"]
    assert r["splits"] == {} and r["wrong_merges"] == {}
    # the nephew's full name holds the uncle's as its first words: it is the nephew's
    full = [{"name": "George Amberson Minafer", "label": "PERSON", "aliases": []}]
    assert character_recall(full, chars)["found"] == ["George"]
    # the demo's entities before the fix: "Uncle George" in the nephew's, the nephew's full name
    # in the one named "Amberson" with the uncle's
    merged = [
        {"name": "George", "label": "PERSON", "aliases": ["Uncle George", "Brother George"]},
        {
            "name": "Amberson",
            "label": "PERSON",
            "aliases": ["George Amberson", "George Amberson Minafer", "Uncle George Amberson"],
        },
        {"name": "Isabel", "label": "PERSON", "aliases": []},
    ]
    r = character_recall(merged, chars)
    assert r["found"] == ["George", "Isabel", "George Amberson"]  # "Uncle George", the alias
    assert r["wrong_merges"] == {
        "George": ["George", "George Amberson"],
        "Amberson": ["George", "George Amberson"],
    }
    assert r["splits"] == {}
