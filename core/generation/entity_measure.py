"""How many of a book's known main characters the top PERSON entities hold (issues 13 and 36).

A character counts as found only when a variant of its name is part of one top entity's own
name (or of that name written with a title: "Sir Walter" of the entity "Walter"): another alias
does not count, so a wrong merge ("Nikolay" the brother inside "Nikolay Ivanovitch
Sviazhsky") is no longer a hit. Beside the share the measure reports *splits* (one character
named by several top entities) and *wrong merges* (one top entity that holds two characters: one
named by it, or by an alias, and another by an alias that is one of its name variants, titles
aside). A variant that is part of a longer variant of another character found in the same
name is not that character's there: "George" (the nephew) in the name "George Amberson" (his
uncle, whose variant it is) is no hit and no merge. A name several characters share (a family's
surname: "Kirsanov" of a father, his son and his brother) is no one character's variant, so it
can show no wrong merge; the measure lists the top entities named otherwise that hold such a
name as an alias (*shared*): their mentions of it belong to several people.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypedDict

from core.generation.names import NORP_WORDS, TITLES, fold


class CharacterRecall(TypedDict):
    """:func:`character_recall`'s result: characters found / missing, the found share
    (found / characters; 1.0 with none), the top PERSON names that are NORP words, ``splits``
    (character -> the top entities named after it, when more than one) and ``wrong_merges``
    (top entity name -> the characters it holds, when more than one), ``shared`` (top entity
    name -> the shared names it holds as its name or an alias, titles aside)."""

    found: list[str]
    missing: list[str]
    share: float
    norp: list[str]
    splits: dict[str, list[str]]
    wrong_merges: dict[str, list[str]]
    shared: dict[str, list[str]]


def _untitled(alias: str) -> str:
    """An alias folded, its leading titles dropped ("Mr. Kritsky" -> "kritsky")."""
    words = fold(alias).split()
    while len(words) > 1 and words[0].rstrip(".") in TITLES:
        words = words[1:]
    return " ".join(words)


def _own(entity: dict[str, Any]) -> list[str]:
    """The entity's own name (folded), also as written with a title: an alias that is the name
    after a title ("Sir Walter" of "Walter", "Mr Elliot" of "Elliot"), since an entity's name
    drops the titles of its mentions."""
    name = fold(entity["name"])
    return [name] + [fold(a) for a in entity.get("aliases", []) if _untitled(a) == name != fold(a)]


def _specific(hits: dict[int, list[str]]) -> set[int]:
    """The characters (``hits``: index -> its variants found in one name) that name holds: not
    one whose every variant found is part of a longer variant of another character found there
    ("george", the nephew's, inside his uncle's "george amberson")."""
    return {
        i
        for i, vs in hits.items()
        if not all(
            any(v in w and v != w for j, ws in hits.items() if j != i for w in ws) for v in vs
        )
    }


def _named(keys: Sequence[Sequence[str]], names: Sequence[str], *, whole: bool) -> set[int]:
    """The characters (indexes of ``keys``, their folded variants) some of ``names`` holds
    (:func:`_specific`): a variant part of the (folded) name, or, ``whole``, equal to the alias
    as written or without its titles ("Uncle George" holds the variant "Uncle George" and, when
    no character has that one, "George")."""
    out: set[int] = set()
    for name in names:
        forms = {fold(name), _untitled(name)}
        hits = {
            i: found
            for i, variants in enumerate(keys)
            if (found := [k for k in variants if (k in forms if whole else k in name)])
        }
        out |= _specific(hits)
    return out


def character_recall(
    entities: Sequence[dict[str, Any]],
    characters: Sequence[Sequence[str]],
    top: int = 15,
    shared: Sequence[str] = (),
) -> CharacterRecall:
    """Match ``characters`` (each a list of name variants of one person) against the ``top``
    PERSON entities (dicts with ``name``, ``label``, ``aliases``, in rank order).

    found: a variant (folded) is part of a top entity's own name, or of that name written with a
    title ("Sir Walter" for the entity "Walter" whose alias it is). splits: a character found in
    the names of two or more top entities. wrong_merges: a top entity that holds two or more
    characters, each by its name (also written with a title) or by an alias that is one of the
    character's variants (titles
    aside: "Fanny Minafer" does not hold the variant "Minafer" of her nephew George; a bare
    "Nikolay" does hold Levin's brother). shared: a top entity named otherwise that holds one of
    ``shared`` (names several characters bear, e.g. a family's surname) as an alias, titles
    aside; an entity named by the shared name alone is that name left unresolved, not a merge.
    """
    people = [e for e in entities if e.get("label") == "PERSON"][:top]
    keys = [[fold(v) for v in variants] for variants in characters]
    found: list[str] = []
    missing: list[str] = []
    splits: dict[str, list[str]] = {}
    held: dict[str, list[str]] = {}
    in_own = {e["name"]: _named(keys, _own(e), whole=False) for e in people}
    for i, variants in enumerate(characters):
        named = [e["name"] for e in people if i in in_own[e["name"]]]
        (found if named else missing).append(variants[0])
        if len(named) > 1:
            splits[variants[0]] = named
    for e in people:
        by_alias = _named(keys, e.get("aliases", []), whole=True)
        held[e["name"]] = [
            variants[0]
            for i, variants in enumerate(characters)
            if i in in_own[e["name"]] or i in by_alias
        ]
    wrong = {name: chars for name, chars in held.items() if len(chars) > 1}
    common = {fold(n): n for n in shared}
    holding: dict[str, list[str]] = {}
    for e in people:  # an entity named by the shared name alone is it left unresolved: no merge
        aliases = {_untitled(a) for a in e.get("aliases", [])} - {fold(e["name"])}
        if held_shared := sorted(common[k] for k in common if k in aliases):
            holding[e["name"]] = held_shared
    norp = [e["name"] for e in people if fold(e["name"]) in NORP_WORDS]
    share = len(found) / len(characters) if characters else 1.0
    return CharacterRecall(
        found=found,
        missing=missing,
        share=share,
        norp=norp,
        splits=splits,
        wrong_merges=wrong,
        shared=holding,
    )
