"""Labels the words around an entity's mentions revise after NER (issue 36): places and roles
out of the PERSON lists, a character NER left unlabelled into them.

* A place read as a person: NER (or the sampled vote) says PERSON, but no mention is titled,
  a speaker ("said X", "X said") or otherwise marked a person's, and its place's contexts
  (:func:`core.generation.entity_labels.context_evidence`: right after *at / in / into / from /
  near / towards ...*, "the X") number at least ``PLACE_MIN`` and at least twice its person's
  contexts: a PLACE. "Waterloo" in *Les Misérables* (spaCy: PERSON 70 times of 71; "at
  Waterloo" 14 times, "Waterloo began" once), "Hougomont" (built-in finder) are places;
  Wellington, who also fights "at" places, is written after *at / in* once, a person 12 times.
* A role, not a name (label ``ROLE``): an entity that holds one name only, untitled, that ends
  with a kinship, address or office word (:data:`ROLE_WORDS`: "Papa", "Mamma", "Nurse", "the
  Governor", "the Deputy Coroner", "the Kaiser", "the Vicomtesse") or with a title read as a
  name through a possessive ("the Madam’s daughter", "the Major’s"). It is kept, labelled a
  role, not dropped: a main character may be named by a role only ("the Admiral", "Nurse"). An
  entity that holds a name beside the role word ("Vicomtesse" with "Vicomtesse de Beauseant")
  is that person's and keeps its label.
* Not a name at all (label ``OTHER``): a PERSON that holds one untitled one-word name only,
  written after *the* or a possessive (*his, her, my, ...*) in at least half of its mentions, as
  a name almost never is ("the Empire", "the Fraternity", spaCy's PERSON; "the Park", with no
  label, keeps none).
* A name with no label (the built-in finder's; NER tagged none of its mentions): two
  person's contexts at least, more than its place's, and pronouns after it that agree on a
  gender (:func:`core.generation.name_address.gendered_person`: "Polly knew", "Polly began";
  "Polly was a slim girl of nineteen; she had ...") make it a PERSON.
"""

from __future__ import annotations

from collections.abc import Sequence

from core.generation.entity_labels import (
    Evidence,
    context_evidence,
    is_speaker,
    key_words,
    label_and_evidence,
)
from core.generation.name_address import gendered_person
from core.generation.name_forms import is_diminutive, is_patronymic, preceding_word
from core.generation.names import TITLES, Mention, fold

#: Kinship, address and office words that name a role when written alone.
ROLE_WORDS = frozenset(
    {"papa", "pa", "mamma", "mama", "ma", "mammy", "mummy", "maman", "dad", "daddy", "granny",
     "grandma", "grandpa", "grandmamma", "grandpapa", "grandfather", "grandmother", "nurse",
     "nanny", "baby", "auntie", "cousin", "governor", "coroner", "mayor", "magistrate", "kaiser",
     "czar", "tsar", "sultan", "pope", "rabbi", "priest", "vicar", "rector", "curate", "squire",
     "chaplain", "governess", "majesty", "highness", "excellency", "lordship", "ladyship",
     "vicomte", "vicomtesse", "comte", "comtesse", "duc", "duchesse", "marquis", "chevalier",
     "baronne", "empress", "czarina", "tsarina", "archduke"}
)  # fmt: skip
#: Words before a role, not before a name: "the Governor", "his Majesty".
DETERMINERS = frozenset({"the", "his", "her", "my", "your", "our", "their"})
#: Fewest place's contexts that turn a PERSON label into a PLACE.
PLACE_MIN = 2


def _one_name(ms: Sequence[Mention], name: str) -> tuple[str, ...]:
    """The words of ``name`` when every mention is that name, untitled; else ``()``."""
    if any(m.titles or fold(m.core) != fold(name) for m in ms):
        return ()
    return key_words(fold(name))


def is_role(ms: Sequence[Mention], name: str) -> bool:
    """The entity (mentions ``ms``, named ``name``) holds one untitled name only, and that name
    ends with a kinship, address, office word or a title ("Papa", "the Deputy Coroner", "the
    Madam’s": module docstring)."""
    words = _one_name(ms, name)
    return bool(words) and (words[-1] in ROLE_WORDS or words[-1] in TITLES)


def after_determiners(ms: Sequence[Mention], name: str, text: str) -> bool:
    """The entity holds one untitled one-word name only, written after *the* or a possessive
    (:data:`DETERMINERS`) in at least half of its mentions ("the Empire", "the Fraternity")."""
    if len(_one_name(ms, name)) != 1:
        return False
    return sum(preceding_word(text, m.start) in DETERMINERS for m in ms) * 2 >= len(ms)


def revised_label(
    ms: Sequence[Mention], name: str, label: str, text: str, evidence: Evidence | None = None
) -> str:
    """``label`` (from :func:`core.generation.entity_labels.entity_label`) revised by the words
    around the mentions: ROLE, PLACE for a PERSON, PERSON for no label (module docstring).
    ``evidence``: the mentions' :func:`context_evidence` when the caller has it."""
    if not text or label not in ("PERSON", ""):
        return label
    if is_role(ms, name):
        return "ROLE"
    if label == "PERSON" and after_determiners(ms, name, text):
        return "OTHER"
    if any(is_patronymic(w) or is_diminutive(w) for m in ms for w in key_words(fold(m.core))):
        return label  # "Rodion Romanovitch", "Dounia": a person's name form
    marked = any(m.titles or m.cue == "PERSON" or is_speaker(text, m) for m in ms)
    evidence = evidence or context_evidence(ms, text)
    person, _verbs, place = evidence
    if label == "PERSON" and not marked and place >= max(PLACE_MIN, 2 * person):
        return "PLACE"
    if not label and gendered_person(ms, text, evidence):
        return "PERSON"
    return label


def entity_label(ms: Sequence[Mention], name: str, text: str) -> str:
    """The label of an entity named ``name`` with mentions ``ms`` in ``text``:
    :func:`core.generation.entity_labels.entity_label` revised by :func:`revised_label`, which
    reads the context evidence that one read, not again."""
    label, evidence = label_and_evidence(ms, name, text)
    return revised_label(ms, name, label, text, evidence)
