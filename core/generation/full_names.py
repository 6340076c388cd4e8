"""Name forms of one person that a written full name or a known diminutive ties together (issue
36: Levin written "Levin", "Konstantin Levin", "Konstantin Dmitrievitch" and "Kostya" was four
entities of the novel).

* First name + surname: "Konstantin Levin" is the person of "Konstantin Dmitrievitch Levin"
  when the text writes that full name, and it is the only full name of the text with that first
  name and that surname ("Nikolay Levin", his brother, matches no written full name and stays
  apart). The link goes to the group of the full name's "first name + patronymic".
* A known diminutive (:data:`core.generation.name_forms.RUSSIAN_DIMINUTIVES`: "Kostya" of
  "Konstantin") joins the one person the text names by its full first name (a name of two
  words or more beginning with it), when all those names are already one group, and the
  diminutive is written within ``SCENE_WINDOW`` characters of a mention of that group at least
  once. Two people sharing the full first name ("Nikolay" Levin and "Nikolay Ivanovitch"
  Sviazhsky): no link, whatever the diminutive ("Kolya") — a shared token is never evidence.
* Two known diminutives of one first name ("Katya" and "Kitty", of Katerina) where the text
  writes no fuller name beginning with that first name (:func:`pet_name_links`): the rarer
  joins the most mentioned when at least half of its mentions are written within
  ``SCENE_WINDOW`` characters of that one's names (Levin's "Katya, I'm a criminal" to Kitty).
* The other direction (:func:`diminutive_links`): a full name written at least twice, each time
  with the diminutive within ``SCENE_WINDOW`` characters and no other diminutive of that first
  name ("Katerina Alexandrovna Levin," answered the footman. / "Kitty! Kitty, whom ...": Kitty
  is too often far from her two full names for the first direction), joins the diminutive.
* Counting (:func:`mention_counts`): "Katerina Alexandrovna" and "Katerina Alexandrovna Levin"
  count together for the clustering's thresholds, and a name with a patronymic counts
  sentence-first too ("“Varvara Andreevna and he must sing ...”").
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Mapping, Sequence

from core.generation.name_address import (
    is_vocative,
    patronymic_gender,
    pronoun_gender,
    quoted,
)
from core.generation.name_forms import RUSSIAN_DIMINUTIVES, is_patronymic
from core.generation.names import Mention

#: How close (characters, about a page) a diminutive and its person's names are written.
SCENE_WINDOW = 3000


def surname_forms(
    words: Mapping[str, tuple[str, ...]], seen: Mapping[str, tuple[str, ...]]
) -> list[tuple[str, str, str]]:
    """``(first surname, first patronymic, reason)``: each kept two-word key whose words are the
    first and last words of exactly one written "First Patronymic Surname" of ``seen`` (every
    name written, also those NER cut), whose "First Patronymic" is kept."""
    fulls: dict[tuple[str, str], list[tuple[str, ...]]] = {}
    for w in seen.values():
        if len(w) == 3 and is_patronymic(w[1]):
            fulls.setdefault((w[0], w[2]), []).append(w)
    links = []
    for key, w in sorted(words.items()):
        if len(w) != 2 or is_patronymic(w[1]):  # (a key of particles alone has no words)
            continue
        found = list(dict.fromkeys(fulls.get((w[0], w[1]), [])))
        if len(found) != 1:
            continue
        first = " ".join(found[0][:2])
        if first in words:
            why = f"first name + surname of the written full name '{' '.join(found[0])}'"
            links.append((key, first, why))
    return links


def diminutive_links(
    kept: Mapping[str, Sequence[Mention]],
    words: Mapping[str, tuple[str, ...]],
    group_of: Callable[[str], str],
    window: int = SCENE_WINDOW,
    text: str = "",
) -> list[tuple[str, str, str]]:
    """``(diminutive, into, reason)``: each kept one-word key that is a known diminutive of a
    first name borne by exactly one group's names (two words or more), at least half of its
    mentions within ``window`` characters of a mention of that group; ``into`` is the group's most
    mentioned such name. Else ``(into, diminutive, reason)`` when the full name is written only in
    the diminutive's scenes (:func:`_in_scenes_of`) or, with ``text``, said as a vocative in
    one of them (:func:`_addressed_in_scene_of`)."""
    links = []
    for key, w in sorted(words.items()):
        if len(w) != 1 or w[0] not in RUSSIAN_DIMINUTIVES:
            continue
        fulls = [k for k, kw in words.items() if len(kw) > 1 and kw[0] in RUSSIAN_DIMINUTIVES[w[0]]]
        groups = {group_of(k) for k in fulls}
        if len(groups) != 1 or group_of(key) in groups:
            continue
        group = groups.pop()
        starts = sorted(m.start for k in words if group_of(k) == group for m in kept[k])
        near = sum(_within(starts, m.start, window) for m in kept[key])
        into = max(fulls, key=lambda k: (len(kept[k]), -len(words[k]), k))
        if near * 2 >= len(kept[key]):
            links.append((key, into, f"diminutive of the one person named '{into}', nearby"))
        elif _in_scenes_of(kept, fulls, key, words, window):  # the full name joins the pet's
            why = f"written only in scenes of '{key}', its first name's diminutive, no other's"
            links.append((into, key, why))
        elif text and _addressed_in_scene_of(kept, fulls, key, words, text, window):
            why = (
                f"said to someone in a scene the narrator names '{key}' in, its first name's "
                "diminutive; no other's near any of its mentions"
            )
            links.append((into, key, why))
    return links


def _other_pet_names_at(
    kept: Mapping[str, Sequence[Mention]], pet: str, words: Mapping[str, tuple[str, ...]]
) -> list[int]:
    """Where (sorted offsets) the kept one-word names other than ``pet`` that are diminutives
    of the same first name are written ("Katya" beside "Kitty", both Ekaterina's)."""
    firsts = set(RUSSIAN_DIMINUTIVES[words[pet][0]])
    return sorted(
        m.start
        for k, w in words.items()
        if k != pet and len(w) == 1 and firsts & set(RUSSIAN_DIMINUTIVES.get(w[0], ()))
        for m in kept[k]
    )


def _in_scenes_of(
    kept: Mapping[str, Sequence[Mention]],
    fulls: Sequence[str],
    pet: str,
    words: Mapping[str, tuple[str, ...]],
    window: int,
) -> bool:
    """Every mention (two at least) of the full names ``fulls`` has ``pet`` within ``window``
    characters and no other kept diminutive of that first name: the full name is the pet
    name's person ("Katerina Alexandrovna Levin," answered the footman. / "Kitty! Kitty, ...":
    Kitty, 95 mentions, is too often far from her two full names for the other direction)."""
    at = [m.start for k in fulls for m in kept[k]]
    others = _other_pet_names_at(kept, pet, words)
    own = sorted(m.start for m in kept[pet])
    return len(at) >= 2 and all(
        _within(own, a, window) and not _within(others, a, window) for a in at
    )


def _addressed_in_scene_of(  # noqa: PLR0913
    kept: Mapping[str, Sequence[Mention]],
    fulls: Sequence[str],
    pet: str,
    words: Mapping[str, tuple[str, ...]],
    text: str,
    window: int,
) -> bool:
    """A mention of the full names ``fulls`` (a first name + patronymic of ``pet``'s gender) is
    a vocative with ``pet`` written by the narrator within ``window`` characters, and no mention
    of them has another kept diminutive of that first name within ``window``: the person spoken
    to in that scene is the one the narrator calls by the diminutive (“Varvara Andreevna, when
    I was very young ...” while the narrator writes "Varenka" of the woman he walks with)."""
    others = _other_pet_names_at(kept, pet, words)
    told = sorted(m.start for m in kept[pet] if not quoted(text, m.start))
    ms = [m for k in fulls for m in kept[k]]
    gender = pronoun_gender(kept[pet], text)
    return (
        bool(gender)
        and all(patronymic_gender(words[k]) == gender for k in fulls)
        and not any(_within(others, m.start, window) for m in ms)
        and any(is_vocative(text, m) and _within(told, m.start, window) for m in ms)
    )


def name_form_links(
    kept: Mapping[str, Sequence[Mention]],
    words: Mapping[str, tuple[str, ...]],
    seen: Mapping[str, tuple[str, ...]],
    union: Callable[[str, str], None],
    group_of: Callable[[str], str],
    text: str = "",
) -> list[tuple[str, str, str]]:
    """Apply :func:`surname_forms`, then :func:`diminutive_links` (which sees the groups the
    first made; ``text``: the document, for vocatives) through ``union``; returns every link
    made."""
    made = surname_forms(words, seen)
    for name, into, _ in made:
        union(name, into)
    more = diminutive_links(kept, words, group_of, text=text)
    for name, into, _ in more:
        union(name, into)
    pets = pet_name_links(kept, words, group_of)
    for name, into, _ in pets:
        union(name, into)
    return made + more + pets


def pet_name_links(
    kept: Mapping[str, Sequence[Mention]],
    words: Mapping[str, tuple[str, ...]],
    group_of: Callable[[str], str],
    window: int = SCENE_WINDOW,
) -> list[tuple[str, str, str]]:
    """``(pet name, into, reason)``: two known diminutives of one first name ("Katya", "Kitty":
    Katerina) where every name of two words or more beginning with that first name the text
    writes is already the most mentioned one's (else :func:`diminutive_links` decides): each
    joins the most mentioned of them when at least
    half of its mentions are within ``window`` characters of a mention of that one's group."""
    pets = sorted(k for k, w in words.items() if len(w) == 1 and w[0] in RUSSIAN_DIMINUTIVES)
    links = []
    for key in pets:
        first = set(RUSSIAN_DIMINUTIVES[key])
        same = [k for k in pets if first & set(RUSSIAN_DIMINUTIVES[k])]
        host = max(same, key=lambda k: (len(kept[k]), k))
        fuller = [k for k, w in words.items() if len(w) > 1 and w[0] in first]
        if group_of(key) == group_of(host) or {group_of(k) for k in fuller} - {group_of(host)}:
            continue
        starts = sorted(m.start for k in words if group_of(k) == group_of(host) for m in kept[k])
        near = sum(_within(starts, m.start, window) for m in kept[key])
        if near * 2 >= len(kept[key]):
            why = f"pet name of the same first name as '{host}', nearby; no other person's fuller name has it"
            links.append((key, host, why))
    return links


def stray_namesakes(
    by_key: Mapping[str, list[Mention]], window: int = SCENE_WINDOW
) -> dict[str, list[Mention]]:
    """``by_key`` without the untitled mentions of a titled one-word name ("Princess Varvara")
    written within ``window`` characters of a first name + patronymic that begins with it
    ("Varvara Andreevna", another woman) and farther than that from every titled mention: the
    bare "Varvara" two women bear stays unresolved where the titled one is not the nearer."""
    out = dict(by_key)
    for key, ms in by_key.items():
        if " " in key or all(m.titles for m in ms) or not any(m.titles for m in ms):
            continue
        other = sorted(
            m.start
            for k, ks in by_key.items()
            if len(w := k.split()) == 2 and w[0] == key and is_patronymic(w[1])
            for m in ks
        )
        titled = sorted(m.start for m in ms if m.titles)
        out[key] = [
            m
            for m in ms
            if m.titles or not _within(other, m.start, window) or _within(titled, m.start, window)
        ]
    return out


def _within(ordered: Sequence[int], at: int, window: int) -> bool:
    """One of the sorted ``ordered`` offsets lies within ``window`` characters of ``at``."""
    i = bisect.bisect_left(ordered, at - window)
    return i < len(ordered) and ordered[i] <= at + window


def mention_counts(by_key: Mapping[str, Sequence[Mention]]) -> dict[str, tuple[int, int]]:
    """Each key's ``(mentions, mentions not sentence-first or titled)`` for the clustering's
    thresholds. A first name + patronymic ("katerina alexandrovna") and its "First Patronymic
    Surname" forms ("katerina alexandrovna levin") count together, one person's name written
    once each; a name with a patronymic is a name wherever it stands (sentence-first too)."""
    words = {k: k.split() for k in by_key}
    pooled: dict[str, list[str]] = {k: [k] for k in by_key}
    for key, w in words.items():
        first = " ".join(w[:2])
        if len(w) == 3 and is_patronymic(w[1]) and first in by_key:
            pooled[key].append(first)
            pooled[first].append(key)
    counts = {}
    for key, w in words.items():
        ms = [m for k in pooled[key] for m in by_key[k]]
        named = len(w) > 1 and is_patronymic(w[1])
        counts[key] = (len(ms), sum(named or not m.initial or bool(m.titles) for m in ms))
    return counts
