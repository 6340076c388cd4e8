"""An entity's label (PERSON, PLACE, ORG, ...) from NER's votes and from the words around its
mentions (issues 13 and 36).

NER alone puts places, a mare and a bazaar in the PERSON lists ("Dawson", "Dyea", "the Barrens"
in *The Call of the Wild*; "Darmstadt" and "Kiev" in *Anna Karenina*), and calls characters
places or organisations ("François", GPE 51 times; "Perrault", ORG 34 times). Without a
gazetteer, the text says which it is (:func:`context_evidence`):

* a person's mention: titled or a speaker (``Mention.cue``), a possessive ("François's whip"),
  *, who* ("Mary Jane, who"), a vocative in a quotation ("How put an end, Alexey?"),
  a verb only a person or an animal does right after it ("Perrault nodded", "Buck could"), or a
  kinship word or a verb such as *told / liked / met* right before it ("brother Nikolay", "told
  Perrault", "liked Harry");
* a place's mention: right after *at / in / into / to / from / near / towards / through / across
  / between* (not "said to", "up to", "next to": a person's), or "the X" untitled ("the
  Barrens").

A name NER calls a PERSON with no person's mention at all and a place's mention in at least a
quarter of its mentions (one at least; one after *to* counts a half) is a PLACE. A name NER
calls a PLACE or ORG with at least two mentions followed by a person's verb and at least three
person's mentions, twice its place's mentions or more, is a PERSON. Names with a patronymic or
a known diminutive, titled or spoken names keep their PERSON label. An untitled name never a speaker, with a
horse's word (*horse, mare, gallop, stable, saddle, ...*) within 100 characters of at least half
of its mentions is a horse, labelled OTHER ("Pendennis" in *The Magnificent Ambersons*: 10 of 15;
none of that book's people has more than a fifth). A name every mention of which is
written in Gutenberg's italics (``_Araby_``: a title, a word, a ship) is no person, labelled
OTHER. A name with no label (the
built-in finder has no NER) and two person's mentions, more than twice its place's mentions, is a
PERSON.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from core.generation.name_forms import is_diminutive, is_patronymic, mostly_after_prepositions
from core.generation.names import PARTICLES, PLACE_WORDS, Mention, fold

_VERB = re.compile(
    r"^,?[”’]?\s*(?:said|asked|replied|answered|cried|called|exclaimed|whispered|shouted|"
    r"muttered|murmured|nodded|smiled|grinned|laughed|sighed|frowned|looked|glanced|thought|"
    r"felt|knew|wondered|remembered|wanted|decided|saw|heard|listened|turned|walked|ran|sat|"
    r"stood|took|threw|gave|told|began|tried|seemed|hoped|wished|meant|liked|loved|spoke|came|"
    r"went|returned|added|continued|could|would|should|did|does)\b"
)
#: "Henrietta's", "Mary Jane, who"
_PERSON_AFTER = re.compile(r"^(?:[’']s\b|,\s+(?:who|whose|whom)\b)")
#: a vocative: after a comma or an opening quotation mark, before ? ! or a closing one
#: ("How put an end, Alexey?", "“Masha, bring supper")
_VOCATIVE_BEFORE = re.compile(r"(?:,[ \t]|“)$")
_VOCATIVE_AFTER = re.compile(r"^(?:[?!]|[,.]?[”\"])")
_PERSON_BEFORE = frozenset(
    {"told", "thanked", "kissed", "married", "liked", "loved", "hated", "pitied", "met",
     "helped", "obeyed", "brother", "sister", "wife", "husband", "uncle", "aunt", "cousin",
     "nephew", "niece"}
)  # fmt: skip
_PLACE_BEFORE = frozenset(
    {"at", "in", "into", "to", "from", "near", "towards", "toward", "through", "across", "between"}
)
#: "said to X", "went up to X", "next to X": *to* right after these is a person's.
_TO_A_PERSON = frozenset(
    {"said", "up", "next", "close", "spoke", "wrote", "turned", "listened", "replied", "answered",
     "bowed", "belonged", "married", "introduced", "added", "according"}
)  # fmt: skip
#: words of a horse and its riding, looked for within ``HORSE_WINDOW`` characters of a mention
_HORSE = re.compile(
    r"\b(?:horses?|mares?|stallions?|pon(?:y|ies)|colts?|geldings?|steeds?|gallop\w*|trot\w*|"
    r"canter\w*|bridle\w*|saddle\w*|stables?|harness\w*|hoofs?|hooves)\b",
    re.I,
)
HORSE_WINDOW = 100
_TWO_BEFORE = re.compile(r"(?:([A-Za-z]+)[ \t\n]+)?([A-Za-z]+)[ \t\n]+$")


def key_words(key: str) -> tuple[str, ...]:
    """A folded name's words, particles and single letters left out."""
    return tuple(w for w in re.split(r"[ ']", key) if w and w not in PARTICLES and len(w) > 1)


def _two_before(text: str, start: int) -> tuple[str, str]:
    """The two lower-cased words right before ``start`` (``''`` where there is none)."""
    m = _TWO_BEFORE.search(text[max(0, start - 40) : start])
    return ((m.group(1) or "").lower(), m.group(2).lower()) if m else ("", "")


def context_evidence(ms: Sequence[Mention], text: str) -> tuple[int, int, float]:
    """``(person, verbs, place)``: how many mentions have a person's context, how many of those
    are followed by a person's verb, and how many have a place's context (module docstring; one
    after *to*, which a letter or a gift is sent to as well, counts a half)."""
    person = verbs = 0
    place = 0.0
    for m in ms:
        after = text[m.end : m.end + 24]
        first, last = _two_before(text, m.start)
        verb = bool(_VERB.match(after))
        verbs += verb
        vocative = bool(
            _VOCATIVE_BEFORE.search(text[max(0, m.start - 2) : m.start])
            and _VOCATIVE_AFTER.match(after)
        )
        if m.cue == "PERSON" or m.titles or verb or vocative or _PERSON_AFTER.match(after):
            person += 1
        elif last in _PERSON_BEFORE:
            person += 1
        elif last == "to":
            place += 0 if first in _TO_A_PERSON else 1 / 2
        elif last in _PLACE_BEFORE or (last == "the" and not m.titles):
            place += 1
    return person, verbs, place


def _horse_share(ms: Sequence[Mention], text: str) -> float:
    """The share of ``ms`` with a horse's word (:data:`_HORSE`) within ``HORSE_WINDOW``."""
    w = HORSE_WINDOW
    return sum(bool(_HORSE.search(text, max(0, m.start - w), m.end + w)) for m in ms) / len(ms)


_SPEECH = r"(?:said|asked|replied|answered|cried|exclaimed|whispered|shouted|murmured)"
_SAID_BEFORE = re.compile(rf"\b{_SPEECH}[ \t\n]+$")
_SAID_AFTER = re.compile(rf"^[ \t\n]+{_SPEECH}\b")


def is_speaker(text: str, m: Mention) -> bool:
    """``m`` is a speaker: "said Mary Jane" or "Perrault said" (not "Johnny,” said Mary Jane",
    where the name ends the quotation)."""
    return bool(
        _SAID_BEFORE.search(text[max(0, m.start - 16) : m.start])
        or _SAID_AFTER.match(text[m.end : m.end + 16])
    )


def _italic(text: str, start: int) -> bool:
    """Offset ``start`` lies inside Gutenberg's italics (an odd number of ``_`` before it in
    its paragraph: "_The Abbot_", "going to _Araby_")."""
    return text.count("_", text.rfind("\n\n", 0, start) + 1, start) % 2 == 1


#: ``(person, verbs, place)`` of :func:`context_evidence`.
Evidence = tuple[int, int, float]


def entity_label(ms: Sequence[Mention], name: str, text: str) -> str:
    """The label of an entity named ``name`` with mentions ``ms`` in ``text``."""
    return label_and_evidence(ms, name, text)[0]


def label_and_evidence(ms: Sequence[Mention], name: str, text: str) -> tuple[str, Evidence | None]:
    """:func:`entity_label` and the :func:`context_evidence` it read (``None`` when it decided
    without), for a later reader of the same evidence (:mod:`core.generation.not_names`)."""
    labels = Counter(m.label for m in ms if m.label)
    titled = sum(bool(m.titles) for m in ms)
    words = key_words(fold(name))
    if set(words) & PLACE_WORDS:
        return "PLACE", None
    if any(is_patronymic(w) for m in ms for w in key_words(fold(m.core))) or (
        len(words) == 1 and is_diminutive(words[0])
    ):
        return "PERSON", None  # a patronymic ("Rodion Romanovitch") or a diminutive ("Dounia")
    if text and all(_italic(text, m.start) for m in ms):
        return "OTHER", None  # "going to _Araby_", "the word _Araby_": a title or a word, no one
    speaker = any(is_speaker(text, m) for m in ms)  # "said Mary Jane": no horse speaks
    if not titled and not speaker and text and _horse_share(ms, text) >= 1 / 2:
        return "OTHER", None  # "Pendennis will gallop straight home to his stable": a horse
    if titled < 2 and mostly_after_prepositions([m.start for m in ms], text):
        return "PLACE", None  # "at Nantucket", "in Salem", "to Lisbon"
    if sum(m.cue == "PERSON" for m in ms) >= 2 and not labels["NORP"] > len(ms) / 2:
        return "PERSON", None  # spoken by / titled at least twice: a character, whatever NER said
    if labels["PERSON"] and (titled or labels["PERSON"] >= labels["PLACE"]):
        label = "PERSON"
    elif labels["PLACE"] >= max(2, 0.3 * len(ms)):
        label = "PLACE"
    else:
        label = labels.most_common(1)[0][0] if labels else ""
    if not text:
        return label, None
    evidence = context_evidence(ms, text)
    person, verbs, place = evidence
    if label == "PERSON" and person == 0 and place >= max(1, len(ms) / 4):
        return "PLACE", evidence  # "at Dyea", "the Barrens": never a person's context
    if label in ("PLACE", "ORG") and verbs >= 2 and person >= max(3, 2 * place):
        return "PERSON", evidence  # "Perrault nodded", "François threw", "Henrietta's schemes"
    if not label and person >= 2 and person > 2 * place:
        return (
            "PERSON",
            evidence,
        )  # no NER (the built-in finder): "Mary Jane's pupils", "Mary Jane, who"
    return label, evidence
