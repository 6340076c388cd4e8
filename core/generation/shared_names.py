"""Names several people bear: a family's bare surname, a given name inside another's full name
(issue 36). Shared words are no evidence that two names are one person.

* **A family's bare surname joins none of its bearers** (:func:`hosts_of`). A one-word
  surname borne by two people or more
  (:func:`core.generation.surnames.family_surnames`: written after two first names that
  are no nickname of each other, "Joe Dillon" and "Leo Dillon", or with a man's and a woman's
  title, "Mr Kearney" and "Mrs Kearney"; a full name written once counts only when its first
  name is written elsewhere too) does not join a fuller name that holds it ("Dillon" is not
  "Leo Dillon" because Leo is named more often than Joe): it stays an entity of its own, titled
  mentions too ("Mr Dashwood" beside "Mr John Dashwood"), which the clustering then splits by
  title. Where one person only bears the surname nothing changes ("Valjean" joins "Jean
  Valjean").
* **Nor by a written "First Patronymic Surname"** (:func:`own_surname`): that the text writes
  "Stepan Arkadyevitch Oblonsky" shows he is an Oblonsky, not that every bare "Oblonsky" is he
  when "Pyotr Oblonsky" is one too.
* **Unless it is one bearer's own name** (:func:`own_name`): the name the narrator calls him by,
  its untitled mentions outnumbering those of each bearer's names ("Levin", 92 times in the
  bundled chapters, beside "Konstantin Levin", "Konstantin Dmitrievitch", "Konstantin",
  "Kostya": 25; his brother Nikolay Levin: 7; "Herzl", some 200 times, beside "Theodor Herzl"
  and his wife "Julie Herzl"). Then the old rules decide as before (the titled mentions of
  another class stay apart: :func:`core.generation.surnames.held_apart`), and the entity is
  named by the bare surname, its most frequent name.
* **A longer name whose first given name differs is another person** (:func:`middle_name`):
  "Walter Elliot" (or "Walter" alone) written inside "William Walter Elliot" is a middle name of
  that name, not its bearer's first name, so neither joins it by the containment rule; a one-word
  name at the end of a longer one (its surname) or at its start (its first name, decided by
  :func:`core.generation.name_forms.first_name_host`) is not a middle name. Names the text
  itself equates (already one group by the evidence rules) stay together. Words are whole
  words ("Ch’uan" is no middle name of "Li Ch’uan"); a title the lists of
  :mod:`core.generation.names` do not know reads as a first name ("Chevalier Eugene de
  Rastignac" is not joined by "Eugene de Rastignac").
* **A full name of a family's surname inside a longer one is another person**
  (:func:`other_surname`): "George Amberson" (Isabel's brother) at the start of "George Amberson
  Minafer" (her son, named after him) does not join it by containment, since "Amberson" is a
  surname the book's other people bear and the longer name ends in another; the text's own
  evidence (names already one group) still joins them.
* **A kinship title before a first name two people bear** (:func:`kin_titled`): "Uncle George"
  and "Brother George" are the mentions of the bare "George" by key, titles aside. Where fuller
  names beginning with that first name are two people or more (two groups), the mentions with a
  kinship title (:data:`KINSHIP`) leave the bare name: they join the one person whose fuller
  name the text writes with that title ("Uncle George Amberson": the nephew's "Uncle George" is
  George Amberson), else they stay apart, never with the bare name of another.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Collection, Mapping, Sequence

from core.generation.names import PLACE_WORDS, Entity, Mention


def contains(longer: Sequence[str], shorter: Sequence[str]) -> bool:
    """``shorter``'s words are consecutive words of the longer name ``longer``."""
    n = len(shorter)
    if len(longer) <= n:
        return False
    if n == 1:  # the common case, a one-word name: any word of the longer one
        return shorter[0] in longer
    short = tuple(shorter)
    return any(tuple(longer[i : i + n]) == short for i in range(len(longer) - n + 1))


def middle_name(short: Sequence[str], long: Sequence[str]) -> bool:
    """``short``'s words are consecutive words of ``long`` that do not begin it, and are more
    than its last word alone: "walter elliot" or "walter" in "william walter elliot", not
    "elliot"."""
    n = len(short)
    return any(
        tuple(long[i : i + n]) == tuple(short) and (n > 1 or i + n < len(long))
        for i in range(1, len(long) - n + 1)
    )


def group_sizes(
    kept: Mapping[str, Sequence[Mention]], group_of: Callable[[str], str]
) -> Counter[str]:
    """Group root -> the mentions of its names (``kept``: key -> mentions)."""
    sizes: Counter[str] = Counter()
    for k, ms in kept.items():
        sizes[group_of(k)] += len(ms)
    return sizes


def hosts_of(  # noqa: PLR0913
    key: str,
    kept: Mapping[str, Sequence[Mention]],
    words: Mapping[str, tuple[str, ...]],
    group_of: Callable[[str], str],
    families: Collection[str],
    sizes: Mapping[str, int],
) -> list[str]:
    """The longer names of ``kept`` (key -> mentions; ``words``: key -> its words) holding
    ``key``'s words that ``key`` may join by containment: never one that holds it as a middle
    name; for a family's one-word surname (``families``) none, unless it is the name of one of
    them (:func:`own_name`; ``sizes``: :func:`group_sizes`); names already of ``key``'s group
    (equated) always."""
    own = group_of(key)
    mine = words[key]
    fuller = [k for k, w in words.items() if len(w) > len(mine) and contains(w, mine)]
    if len(words[key]) == 1 and words[key][0] in families:
        if not own_name(kept[key], [sizes[group_of(k)] for k in fuller if group_of(k) != own]):
            return [k for k in fuller if group_of(k) == own]
    # whole words: "Ch’uan" is no middle name of "Li Ch’uan" (an apostrophe splits no name)
    return [
        k
        for k in fuller
        if group_of(k) == own
        or not (middle_name(key.split(), k.split()) or other_surname(mine, words[k], families))
    ]


def other_surname(short: Sequence[str], long: Sequence[str], families: Collection[str]) -> bool:
    """``short`` is a full name of its own inside ``long``: two words or more ending in a
    family's surname (``families``), where ``long`` ends in another word ("george amberson",
    the uncle, at the start of "george amberson minafer", his nephew)."""
    return len(short) > 1 and short[-1] in families and long[-1] != short[-1]


def own_name(bare: Sequence[Mention], others: Sequence[int]) -> bool:
    """A family's bare surname is one bearer's own name, the name the narrator calls him by:
    its untitled mentions (of ``bare``) outnumber the mentions of each bearer (``others``: the
    mention counts of their groups) ("Levin", "Herzl")."""
    return sum(not m.titles for m in bare) > max(others, default=0)


def own_surname(
    links: Sequence[tuple[str, str, str]],
    kept: Mapping[str, Sequence[Mention]],
    words: Mapping[str, tuple[str, ...]],
    families: Collection[str],
) -> list[tuple[str, str, str]]:
    """``links`` (``(name, into, reason)`` of
    :func:`core.generation.name_forms.patronymic_links`) without those joining a family's bare
    surname to one man's first name + patronymic, unless it is his own name (:func:`own_name`;
    his mentions: those of every kept name beginning with his first name)."""
    out = []
    for name, into, why in links:
        if len(words[name]) == 1 and words[name][0] in families and words[into]:
            first = words[into][0]
            his = sum(len(ms) for k, ms in kept.items() if words[k] and words[k][0] == first)
            if not own_name(kept[name], [his]):
                continue
        out.append((name, into, why))
    return out


def family_people(
    kept: Mapping[str, Sequence[Mention]],
    words: Mapping[str, tuple[str, ...]],
    families: Collection[str],
) -> set[str]:
    """The kept names of two words or more whose last word is a family's surname written with a
    title ("Leo Dillon" beside "Mrs Dillon"): a person's names, whatever NER said of them."""
    titled = {s for s in families if any(m.titles for m in kept.get(s, ()))}
    return {
        k
        for k, w in words.items()
        if len(w) > 1 and w[-1] in titled and not set(w) & PLACE_WORDS  # "Maison Vauquer"
    }


#: Titles of kinship a first name is written with ("Uncle George", "Aunt Fanny").
KINSHIP = frozenset({"uncle", "aunt", "brother", "sister"})


def kin_titled(
    kept: Mapping[str, Sequence[Mention]],
    words: Mapping[str, tuple[str, ...]],
    group_of: Callable[[str], str],
    taken: Collection[int] = (),
) -> tuple[dict[str, list[Mention]], list[list[Mention]]]:
    """The kinship-titled mentions of one-word names of ``kept`` (key -> mentions; ``words``:
    key -> its words) whose first name begins fuller names of two groups or more (module
    docstring), but those whose ``id`` is in ``taken`` (already held apart):
    ``(group root -> the mentions joining it, the groups of mentions left apart)``, one group a
    title ("Uncle George" joins George Amberson, written "Uncle George Amberson"; "Brother
    George", whose title no fuller name carries, stays apart)."""
    joining: dict[str, list[Mention]] = defaultdict(list)
    apart: list[list[Mention]] = []
    starting: dict[str, list[str]] = defaultdict(list)  # first word -> the fuller names
    for k, w in words.items():
        if len(w) > 1:
            starting[w[0]].append(k)
    for key, ms in kept.items():
        if len(words[key]) != 1:
            continue
        fuller = starting.get(words[key][0], [])
        if len({group_of(k) for k in fuller}) < 2:
            continue
        by_title: dict[str, list[Mention]] = defaultdict(list)
        for m in ms:
            if id(m) not in taken and (kin := sorted(set(m.titles) & KINSHIP)):
                by_title[kin[0]].append(m)
        for title, titled in sorted(by_title.items()):
            bearers = {group_of(k) for k in fuller if any(title in m.titles for m in kept[k])}
            if len(bearers) == 1:
                joining[bearers.pop()].extend(titled)
            else:
                apart.append(titled)
    return joining, apart


#: The merge note of a kinship-titled first name kept apart (:func:`kin_titled`).
KIN_APART = "a kinship title of a first name two people bear"


def kin_notes(entities: Sequence[Entity], kin: dict[str, list[Mention]]) -> None:
    """Note on the entity holding them how kinship-titled mentions joined it
    (:func:`kin_titled`); their bare first name is no alias of it unless written there untitled."""
    holder = {id(m): e for e in entities for m in e.mentions}
    for ms in kin.values():
        e, joined = holder[id(ms[0])], {id(m) for m in ms}
        cores = {m.core for m in ms} - {m.core for m in e.mentions if id(m) not in joined}
        e.merges = [n for n in e.merges if n not in {f"{c} -> {e.name}" for c in cores}]
        e.aliases = [a for a in e.aliases if a not in cores]  # no bare "George" is written in it
        for surface in dict.fromkeys(m.surface for m in ms):
            e.merges.append(f"{surface} -> {e.name} (its kinship title: written with that name)")


def other_person(key: str, group: list[str], host: str, words: dict[str, tuple[str, ...]]) -> bool:
    """``key``'s group already holds a full name (two words or more) that is not part of the
    ``host`` root's name: moving ``key`` into ``host`` would merge two people."""
    return any(
        k != key
        and len(words[k]) > 1
        and words[k] != words[host]
        and not contains(words[host], words[k])
        for k in group
    )
