"""An entity's label from the words around its mentions (issue 36, core/generation/entity_labels.py).

The short texts below are written for the tests (each mention's context marked in a comment);
real text: two bundled NarrativeQA stories here, the unseen excerpts in test_unseen_books.py
("Darmstadt", "Kiev", "Mary Jane").
"""

from pathlib import Path

from core.corpus.documents import read_text_file
from core.corpus.gutenberg import clean_gutenberg
from core.generation.entities import extract_entities
from core.generation.entity_labels import context_evidence, entity_label
from core.generation.names import Mention

STORIES = Path(__file__).resolve().parents[2] / "demo" / "narrativeqa" / "stories"


def _mentions(text: str, core: str, label: str) -> list[Mention]:
    out, at = [], text.find(core)
    while at >= 0:
        out.append(Mention(start=at, end=at + len(core), surface=core, core=core, label=label))
        at = text.find(core, at + 1)
    return out


SLED = (
    "Perrault nodded and went on. The mail was late, and Perrault grinned at the dogs. "  # verbs
    "Buck watched Perrault’s whip. They told Perrault of the ice. "  # possessive, told X
    "They stopped at Dawson. The trail to Dawson was long. Dawson was far."  # at, to, -
)


def test_ner_labels_are_overruled_only_by_a_persons_or_a_places_context():
    perrault = _mentions(SLED, "Perrault", "ORG")
    assert context_evidence(perrault, SLED) == (4, 2, 0.0)
    assert entity_label(perrault, "Perrault", SLED) == "PERSON"  # NER said ORG each time
    dawson = _mentions(SLED, "Dawson", "PERSON")
    assert context_evidence(dawson, SLED) == (0, 0, 1.5)  # "at" 1, "to" a half
    assert entity_label(dawson, "Dawson", SLED) == "PLACE"  # NER said PERSON each time
    assert entity_label(dawson, "Dawson", "") == "PERSON"  # no text, NER's vote stands


def test_to_after_a_verb_of_speech_and_the_vocative_are_a_persons():
    text = "He said to Harry: go. “Come, Harry!” They met Harry at noon. A letter went to Harry."
    harry = _mentions(text, "Harry", "PERSON")
    person, verbs, place = context_evidence(harry, text)
    assert (person, verbs, place) == (2, 0, 0.5)  # vocative, met X; "said to X" is nothing
    assert entity_label(harry, "Harry", text) == "PERSON"


def test_admiral_is_a_title_and_keeps_the_admiral_and_his_wife_apart():
    text = (
        "Admiral Croft walked in. “Well,” said Admiral Croft, “here we are.” Mrs Croft "
        "laughed. Later Mrs Croft sat down, and Admiral Croft read the paper.\n\n"
        "Croft was happy."
    )
    ents, _ = extract_entities(text, "regex")
    crofts = [e for e in ents if "Croft" in e.name]
    titles = sorted(sorted({t for m in e.mentions for t in m.titles}) for e in crofts)
    assert titles == [["admiral"], ["mrs"]], [(e.name, e.aliases) for e in crofts]


def _regex_entities(doc_id: str):
    return extract_entities(
        clean_gutenberg(read_text_file(STORIES / f"{doc_id}.txt")).body, "regex"
    )[0]


def test_a_horse_is_not_a_person():
    # The Magnificent Ambersons: "Pendennis will gallop straight home to his stable"
    ents = {e.name: e for e in _regex_entities("c3fe35b1c129aa367e223e6cb1cecaba20a26a37")}
    assert ents["Pendennis"].label == "OTHER"
    assert ents["George"].label == ents["Lucy"].label == "PERSON"
    # "the Major’s" (a title read as a name through the possessive) is Major Amberson's, the one
    # man titled Major (core/generation/bare_titles.py), no role of its own any longer
    assert "Major" not in ents and "Major" in ents["Amberson"].aliases
    assert ents["Amberson"].label == "PERSON"


def test_a_landlady_is_not_her_boarding_house_nor_her_late_husband():
    # Father Goriot: "Mme. Vauquer" does not join the "Maison Vauquer"; the one "M. Vauquer"
    # (her late husband) is split off without taking her untitled mentions
    ents = _regex_entities("e62ba8eff570a51d9e5dd256e45012d4d83bfd5f")
    her = [e for e in ents if any(m.surface == "Mme. Vauquer" for m in e.mentions)]
    assert len(her) == 1 and her[0].name == "Mme. Vauquer" and her[0].label == "PERSON"
    assert not any(m.core == "Maison Vauquer" or "m" in m.titles for m in her[0].mentions)
    house = [e for e in ents if e.name == "Maison Vauquer"]
    assert len(house) == 1 and house[0].label == "PLACE"


def test_one_monsieur_and_a_mother_are_two_entities_with_two_names():
    # Les Misérables: "Monsieur Jondrette" once, "Mother Jondrette" and "Jondrette" often; both
    # entities were named "Jondrette" and could not be stored (one name per document)
    text = (
        "Mother Jondrette came in. “Bread,” said Mother Jondrette. Jondrette was tired.\n\n"
        "Monsieur Jondrette was out. Later Mother Jondrette slept, and Jondrette wept."
    )
    ents, _ = extract_entities(text, "regex")
    names = [e.name for e in ents if "Jondrette" in e.name]
    assert sorted(names) == ["Jondrette", "Mother Jondrette"], names
    him = next(e for e in ents if e.name == "Jondrette")
    assert [m.surface for m in him.mentions] == ["Monsieur Jondrette"]  # her untitled go to her
