"""An entity's label from the words around its mentions (issue 36, core/generation/entity_labels.py).

The short texts below are written for the tests; the real-text cases are in test_unseen_books.py
("Darmstadt", "Kiev", "Mary Jane"). Each mention's context is marked in a comment.
"""

from core.generation.entities import extract_entities
from core.generation.entity_labels import context_evidence, entity_label
from core.generation.names import Mention


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
