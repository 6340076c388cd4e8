"""People who share a surname: one person under a nickname, or several people (issue 36).

* **Nicknames** (:func:`nickname_pairs`): "Hick Holt" and "Hickman Holt", one first name a prefix
  of the other or a known diminutive (Bob / Robert), written within a passage of each other.
* **A titled surname and a fuller name.** The subsumption rule of
  :func:`core.generation.entities.cluster_mentions` joins a one-word name to the fuller name that
  holds it ("Valjean" into "Jean Valjean"). For a surname that is also a title's name ("Mrs
  Malins", "Mr Mooney") that joined parents to children and wives to husbands: Freddy Malins'
  mother, Mrs Dillon the mother of Joe and Leo Dillon, Mr Mooney the father of Jack Mooney, Mrs
  Kearney the mother of "Miss Kathleen Kearney" (*Dubliners*). A titled mention of the surname
  (:func:`held_apart`) therefore joins the fuller name only

  - when the fuller name is written with a title of its class ("Mrs Emily Sinico" for "Mrs
    Sinico"; *Mr / M. / Monsieur*, *Mrs / Mme / Madame* and *Miss / Mlle / Mademoiselle* are
    each one class; not *Miss* for a family's surname: "Miss Bennet", the eldest daughter, is
    not her sister "Miss Elizabeth Bennet"), or
  - when the surname is no family's (:func:`family_surnames`: written with a man's and a
    woman's title, or with two first names that are no nickname of each other: Joe and Leo
    Dillon, Jack and Polly Mooney) and the title's gender is not known to differ from the
    fuller name's (its own titles, else the pronouns after its mentions: "Freddy Malins ... his
    story" is a man's, so "Mrs Malins" is not him; "Captain Benwick" joins "James Benwick",
    whose pronouns say nothing; a neutral title, *Dr*, joins).

  The titled mentions held apart stay the surname's own people, one a gender
  (:func:`gendered_groups`): "Mrs Mooney" and "Mr Mooney" beside "Jack Mooney", the women
  split once more by :func:`wives_and_daughters`. The untitled
  bare surname still joins the fuller name as before ("Now, Dillon, up!" is Leo's, whose name
  is written six times to Joe's two), and the fuller name keeps the PERSON label the titled
  mentions of its surname gave it.
"""

from __future__ import annotations

import bisect
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence

from core.generation.entity_labels import key_words
from core.generation.name_address import pronoun_gender
from core.generation.names import DIMINUTIVES, FEMALE_TITLES, MALE_TITLES, Mention

#: Titles that name one class of person: a man, a married woman, an unmarried woman.
_CLASS = {
    "m": "mr",
    "monsieur": "mr",
    "mme": "mrs",
    "madame": "mrs",
    "mlle": "miss",
    "mademoiselle": "miss",
}


def title_class(title: str) -> str:
    """The class of a (folded) title: "mme" and "madame" are "mrs", others are themselves."""
    return _CLASS.get(title, title)


def title_gender(titles: Sequence[str]) -> str:
    """``"m"`` for a man's title, ``"f"`` for a woman's, ``""`` for none or a neutral one."""
    if set(titles) & MALE_TITLES:
        return "m"
    return "f" if set(titles) & FEMALE_TITLES else ""


def nickname_of(a: str, b: str) -> bool:
    """First name ``a`` is a short form of ``b``: a prefix of three letters or more ("hick" of
    "hickman"), or a known diminutive ("bob" of "robert")."""
    if len(a) >= 3 and len(b) > len(a) and b.startswith(a):
        return True
    return DIMINUTIVES.get(a) == b


def family_surnames(by_key: Mapping[str, Sequence[Mention]]) -> set[str]:
    """The (folded) surnames borne by more than one person: written with a man's and a woman's
    title, or as the last word of names with two first names that are no nickname of each
    other, where a full name written once counts only when its first name is written elsewhere
    too: "Edwin Soames", said once and corrected at once ("Enoch Soames," said Enoch), is no
    second Soames."""
    first_words = Counter(w[0] for w in map(key_words, by_key) if w)
    firsts: dict[str, set[str]] = defaultdict(set)
    genders: dict[str, set[str]] = defaultdict(set)
    for key, ms in by_key.items():
        words = key_words(key)
        if len(words) > 1 and len(ms) < 2 and first_words[words[0]] < 2:
            continue  # a slip, not a second bearer
        if len(words) == 1:
            genders[words[0]] |= {title_gender(m.titles) for m in ms} - {""}
        elif len(words) > 1:
            firsts[words[-1]].add(words[0])
    family = {w for w, gs in genders.items() if len(gs) > 1}
    for surname, names in firsts.items():
        if any(not nickname_of(a, b) and not nickname_of(b, a) for a in names for b in names - {a}):
            family.add(surname)
    return family


def _gender(host: Sequence[Mention], text: str) -> str:
    """The fuller name's gender: its own titles if they agree, else its pronouns."""
    titled = {title_gender(m.titles) for m in host} - {""}
    if len(titled) == 1:
        return titled.pop()
    return pronoun_gender([m for m in host if not m.titles], text)


def held_apart(
    bare: Sequence[Mention], host: Sequence[Mention], family: bool, text: str
) -> list[list[Mention]]:
    """The people a one-word surname's mentions (``bare``) stay apart as, instead of joining
    the fuller name it joins (``host``: the mentions of that person), by the rule in the module
    docstring (``family``: the surname is borne by more than one person). One group a gender of
    the titled mentions held apart (a neutral title with the men's), the women split into the
    married one and the unmarried ones (:func:`wives_and_daughters`); the untitled mentions then
    join the larger of the host (with the titled mentions that join it) and the largest such
    group when it has twice the mentions of the host and of every other group (the bare "Gillenormand" is M. Gillenormand,
    the grandfather, not his grand-nephew "Théodule Gillenormand"; "Dillon" said to Leo Dillon
    is not his mother), else they stay a group of their own."""
    classes = {title_class(t) for m in host for t in m.titles}
    if family:  # a family's "Miss Bennet" (the eldest) is not "Miss Elizabeth Bennet"
        classes -= UNMARRIED
    titled = [m for m in bare if m.titles and not {title_class(t) for t in m.titles} & classes]
    gender = "" if family else _gender(host, text)
    held = [m for m in titled if family or (gender and title_gender(m.titles) not in ("", gender))]
    if not held:
        return []
    fem = [m for m in held if title_gender(m.titles) == "f"]
    men = [m for m in held if title_gender(m.titles) != "f"]
    groups = [g for g in (*wives_and_daughters(fem), men) if g]
    untitled = [m for m in bare if not m.titles]
    largest = max(groups, key=len)
    joining = len(host) + sum(bool(m.titles) for m in bare) - len(held)  # with its titles kept
    runner = max((len(g) for g in groups if g is not largest), default=0)
    if untitled and len(largest) >= 2 * max(joining, runner):
        largest.extend(untitled)
    elif untitled and joining < 2 * len(largest):
        groups.append(untitled)
    return groups


#: Title classes of a married woman (the husband's surname) and of an unmarried one.
MARRIED = frozenset({"mrs", "lady"})
UNMARRIED = frozenset({"miss"})


def wives_and_daughters(ms: Sequence[Mention]) -> list[list[Mention]]:
    """A woman's mentions of one bare surname split into the married woman and the unmarried
    ones: "Mrs Bennet" (*Mrs / Mme / Madame / Lady*) is the mother, "Miss Bennet" and "the Miss
    Bennets" (*Miss / Mlle / Mademoiselle*) her daughters (the eldest is formally "Miss
    Bennet"). Only when both are written; else ``[ms]``. The other mentions (untitled, other
    titles) join the side with at least twice the other's mentions, else stay a group of their
    own ("Lucas" beside four "Lady Lucas" and four "Miss Lucas")."""
    married = [m for m in ms if {title_class(t) for t in m.titles} & MARRIED]
    wed = {id(m) for m in married}
    unmarried = [
        m for m in ms if id(m) not in wed and {title_class(t) for t in m.titles} & UNMARRIED
    ]
    if not married or not unmarried:
        return [list(ms)]
    sides = {id(m) for m in married + unmarried}
    others = [m for m in ms if id(m) not in sides]
    big, small = sorted((married, unmarried), key=len, reverse=True)
    if others and len(big) >= 2 * len(small):
        big.extend(others)
        others = []
    return [married, unmarried] + ([others] if others else [])


def nickname_pairs(
    kept: dict[str, list[Mention]], words: dict[str, tuple[str, ...]], size: dict[str, int]
) -> list[tuple[str, str]]:
    """``(nickname key, full key)`` pairs: same surname, first names where one is a prefix of
    the other ("hick"/"hickman") or a known diminutive, and mentioned within one passage-sized
    window (2,000 characters) of each other at least once."""
    by_surname: dict[str, list[str]] = defaultdict(list)
    for key, w in words.items():
        if len(w) == 2:
            by_surname[w[1]].append(key)
    pairs: list[tuple[str, str]] = []
    for keys in by_surname.values():
        for a in keys:
            for b in keys:
                fa, fb = words[a][0], words[b][0]
                if a == b or not nickname_of(fa, fb):
                    continue
                if cooccur(kept[a], kept[b]):
                    pairs.append((a, b) if size[a] <= size[b] else (b, a))
    return sorted(set(pairs))


def cooccur(xs: list[Mention], ys: list[Mention], window: int = 2000) -> bool:
    """Some mention of ``xs`` lies within ``window`` characters of one of ``ys``."""
    starts = sorted(m.start for m in ys)
    for m in xs:
        i = bisect.bisect_left(starts, m.start - window)
        if i < len(starts) and starts[i] <= m.start + window:
            return True
    return False
