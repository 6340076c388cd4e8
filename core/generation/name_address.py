"""A pet name joined to the one person it is said to in a scene (issue 36): "Dolly" is Darya
Alexandrovna because her husband says "Dolly!" to her in the scene the narrator opens with her
full name.

* A *vocative* (:func:`is_vocative`): a mention inside an open quotation, right after the
  quotation mark or after ``, . ! ?`` and a space, and followed by ``! ?``, a comma or the closing
  quotation mark ("“Dolly!” he said", "But, Dolly, forgive me!").
* A name's *gender* (:func:`pronoun_gender`): the first personal pronoun after each of its
  mentions that is not a vocative (up to the sentence end, at most ``PRONOUN_REACH``
  characters): *he / him / his / himself* or *she / her / hers / herself*; known when at least
  two mentions have one and at least two thirds of those agree. A first name + patronymic has the
  patronymic's gender (*-ovna, -evna, -ichna*: a woman's; the others a man's).
* The link (:func:`vocative_links`): a one-word name ``V`` with a known gender, that begins no
  longer kept name and whose group holds no longer name, is said as a vocative; around each
  vocative (``SCENE_WINDOW`` characters either side) the first names + patronymic of ``V``'s
  gender that the narrator writes (outside quotations: a name spoken or thought of there may be
  absent, as Marfa Petrovna is when Raskolnikov says "No, Dounia, ..." to himself) are its
  candidates. A vocative with exactly one candidate is a vote for it, unless the narrator names
  that one in the vocative's own paragraph (“Kitty!” said Darya Alexandrovna: the speaker). ``V`` joins
  the best-voted name when it has at least two votes, at least a third of ``V``'s vocatives
  and more than twice the votes of any other. A shared word is never evidence here, and a
  known diminutive ("Kitty": Katerina) votes only for a name of its own first name.
* Names NER never tags (:func:`names_ner_missed`): spaCy leaves out "Dolly" (10 times in the
  bundled *Anna Karenina* excerpt) and tags "Stiva" once, as an ORG, so they vanished from the
  spaCy path. The built-in finder's mentions of a one-word name that the text equates with a
  full name ("—Stiva, as he was called") or says as a vocative at least twice, with a known
  gender, are added where no NER mention lies, marked as a person's; so are its mentions of a
  name with a patronymic ("Katerina Alexandrovna", which spaCy leaves out), and of a one-word
  name NER tagged nowhere that pronouns give a gender ("Polly", 8 times in *The Boarding
  House*, never tagged: :func:`_never_tagged_person`).
"""

from __future__ import annotations

import bisect
import re
from collections import Counter
from collections.abc import Mapping, Sequence

from core.generation.entity_labels import Evidence, context_evidence
from core.generation.name_forms import (
    FEMALE_PATRONYMIC,
    RUSSIAN_DIMINUTIVES,
    equated_nicks,
    is_patronymic,
)
from core.generation.names import LOWER_WORD, Mention, fold, lower_counts

#: How far (characters, about a page) from a vocative its scene's names are looked for.
SCENE_WINDOW = 3000
#: How far after a mention its pronoun is looked for.
PRONOUN_REACH = 120

_OPEN, _CLOSE = "“", "”"
_BEFORE = re.compile(r"(?:“|[,.!?…][ \t]+)$")
_AFTER = re.compile(r"^(?:[!?]|,[ \t]|[.…]*[”\"])")
_PRONOUN = re.compile(r"\b(he|him|his|himself|she|her|hers|herself)\b", re.I)
_SENTENCE_END = re.compile(r"[.!?](?:[”’\"]|\s|$)")


def quoted(text: str, start: int) -> bool:
    """Offset ``start`` lies inside a quotation opened earlier in its paragraph."""
    before = text[text.rfind("\n\n", 0, start) + 1 : start]
    return before.count(_OPEN) > before.count(_CLOSE)


def is_vocative(text: str, m: Mention) -> bool:
    """``m`` is said to someone: inside an open quotation of its paragraph, after the quotation
    mark or a clause's punctuation, before ``! ?``, a comma or the closing mark."""
    return (
        quoted(text, m.start)
        and bool(_BEFORE.search(text[max(0, m.start - 3) : m.start]))
        and bool(_AFTER.match(text[m.end : m.end + 6]))
    )


def pronoun_gender(ms: Sequence[Mention], text: str) -> str:
    """``"m"``, ``"f"`` or ``""``: the gender the pronouns after the non-vocative ``ms`` agree
    on (module docstring)."""
    votes: Counter[str] = Counter()
    for m in ms:
        if is_vocative(text, m):
            continue
        after = text[m.end : m.end + PRONOUN_REACH]
        end = _SENTENCE_END.search(after)
        found = _PRONOUN.search(after[: end.start() if end else len(after)])
        if found:
            votes["f" if found.group(1).lower().startswith(("she", "her")) else "m"] += 1
    total = sum(votes.values())
    if total < 2:
        return ""
    gender, n = votes.most_common(1)[0]
    return gender if n * 3 >= total * 2 else ""


def patronymic_gender(words: Sequence[str]) -> str:
    """The gender of a folded "first patronymic ..." name (``""`` when the second word is no
    patronymic)."""
    if len(words) < 2 or not is_patronymic(words[1]):
        return ""
    return "f" if FEMALE_PATRONYMIC.search(words[1]) else "m"


def vocative_links(
    kept: Mapping[str, Sequence[Mention]],
    words: Mapping[str, tuple[str, ...]],
    group_of: Mapping[str, str],
    text: str,
    window: int = SCENE_WINDOW,
) -> list[tuple[str, str, str]]:
    """``(name, into, reason)``: each pet name said in the scenes of one first name +
    patronymic of its gender (module docstring). ``kept``: key -> mentions; ``words``: key ->
    its words; ``group_of``: key -> its group root (names already joined)."""
    full = {k: patronymic_gender(w) for k, w in words.items() if patronymic_gender(w)}
    # the narrator's mentions only: a name spoken or thought in the scene ("Marfa Petrovna" in
    # Raskolnikov's monologue to an absent "Dounia") says nothing of who is there
    starts = {k: sorted(m.start for m in kept[k] if not quoted(text, m.start)) for k in full}
    firsts = {w[0] for w in words.values() if len(w) > 1}
    multi = {group_of[k] for k, w in words.items() if len(w) > 1}
    links = []
    for key, w in words.items():
        if len(w) != 1 or w[0] in firsts or group_of[key] in multi or is_patronymic(w[0]):
            continue
        said = [m for m in kept[key] if is_vocative(text, m)]
        gender = pronoun_gender(kept[key], text) if len(said) >= 2 else ""
        if not gender:
            continue
        votes: Counter[str] = Counter()
        own = RUSSIAN_DIMINUTIVES.get(w[0])  # "Kitty" (Katerina) is said to no Darya
        for m in said:
            para = _paragraph(text, m.start)
            near = {
                group_of[k]
                for k, g in full.items()
                if g == gender
                and _within(starts[k], m.start, window)
                and (own is None or words[k][0] in own)
            }
            speakers = {  # named by the narrator in the vocative's own paragraph: its speaker
                group_of[k] for k in full if _between(starts[k], *para)
            }
            if len(near) == 1 and not near & speakers:
                votes[near.pop()] += 1
        ranked = votes.most_common(2) + [("", 0), ("", 0)]
        (best, n), (_, runner) = ranked[0], ranked[1]
        if best and n >= 2 and n * 3 >= len(said) and n > 2 * runner:
            into = max((k for k in full if group_of[k] == best), key=lambda k: len(kept[k]))
            who = "woman" if gender == "f" else "man"
            why = f"addressed {n} times in scenes naming no other {who} by first name + patronymic"
            links.append((key, into, why))
    return links


def _paragraph(text: str, at: int) -> tuple[int, int]:
    """``(start, end)`` of the paragraph (blank-line delimited) holding offset ``at``."""
    end = text.find("\n\n", at)
    return text.rfind("\n\n", 0, at) + 1, len(text) if end < 0 else end


def _between(ordered: Sequence[int], start: int, end: int) -> bool:
    """One of the sorted ``ordered`` offsets lies in ``[start, end)``."""
    i = bisect.bisect_left(ordered, start)
    return i < len(ordered) and ordered[i] < end


def _within(ordered: Sequence[int], at: int, window: int) -> bool:
    """One of the sorted ``ordered`` offsets lies within ``window`` characters of ``at``."""
    i = bisect.bisect_left(ordered, at - window)
    return i < len(ordered) and ordered[i] <= at + window


#: Fewest mentions of a one-word name NER never tagged for it to be added as a person's.
UNTAGGED_MIN = 3


def _never_tagged_person(
    key: str, ms: Sequence[Mention], text: str, lowers: Mapping[str, int]
) -> bool:
    """A one-word name NER tagged nowhere, written at least ``UNTAGGED_MIN`` times, more often
    inside a sentence than in lower case ("Let" is a word), a person's by
    :func:`gendered_person` (spaCy's small English model leaves all 8 "Polly" of *The Boarding
    House* untagged). ``lowers``: :func:`core.generation.names.lower_counts` of ``text``."""
    if " " in key or len(ms) < UNTAGGED_MIN:
        return False
    inside = sum(not m.initial for m in ms)
    word = ms[0].core.lower()
    # ``lowers`` also counts "polly’s", which this count leaves out: it is an upper bound for a
    # word it counts, and the book is scanned only when the bound does not already decide
    if not (LOWER_WORD.fullmatch(word) and lowers.get(word, 0) < inside):
        lower = len(re.findall(rf"(?<![\w’']){re.escape(word)}(?![\w’'])", text))
        if lower >= inside:
            return False
    return gendered_person(ms, text)


def gendered_person(ms: Sequence[Mention], text: str, evidence: Evidence | None = None) -> bool:
    """Two person's contexts at least and more than its place's
    (:func:`core.generation.entity_labels.context_evidence`), and pronouns after the mentions
    that agree on a gender (:func:`pronoun_gender`): a person's name ("Polly knew", "Polly
    began"; "Polly was a slim girl of nineteen; she ..."), not a place's or a word's ("Om",
    "the Empire": no person's context). ``evidence``: their context evidence if already read."""
    person, _verbs, place = evidence or context_evidence(ms, text)
    return person >= 2 and person > place and bool(pronoun_gender(ms, text))


def names_ner_missed(
    ner: Sequence[Mention],
    found: Sequence[Mention],
    text: str,
    lowers: Mapping[str, int] | None = None,
) -> list[Mention]:
    """The mentions of ``found`` (the built-in finder's) to add to NER's ``ner``: one-word names
    the text equates with a full name or addresses (module docstring), where no NER mention
    overlaps; each marked ``cue = "PERSON"``. ``lowers``: ``lower_counts(text)`` when the
    caller has it."""
    lowers = lower_counts(text) if lowers is None else lowers
    taken = sorted((m.start, m.end) for m in ner)
    ends = [e for _, e in taken]
    by_key: dict[str, list[Mention]] = {}
    for m in found:
        i = bisect.bisect_left(ends, m.start + 1)  # the first NER mention ending after m starts
        if i < len(taken) and taken[i][0] < m.end:
            continue
        by_key.setdefault(fold(m.core), []).append(m)
    nicks = equated_nicks(text)
    tagged = {fold(m.core) for m in ner}
    out: list[Mention] = []
    for key, ms in by_key.items():
        said = sum(is_vocative(text, m) for m in ms) if " " not in key else 0
        if (
            key in nicks
            or (said >= 2 and pronoun_gender(ms, text))
            or patronymic_gender(key.split())
            or (key not in tagged and _never_tagged_person(key, ms, text, lowers))
        ):
            for m in ms:
                m.cue = "PERSON"
            out += ms
    return out
