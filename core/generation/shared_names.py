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
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection, Mapping, Sequence

from core.generation.names import PLACE_WORDS, Mention


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
    return [k for k in fuller if group_of(k) == own or not middle_name(key.split(), k.split())]


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
