"""How many of a book's known main characters the top PERSON entities hold (the issue-13 measure)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypedDict

from core.generation.names import NORP_WORDS, fold


class CharacterRecall(TypedDict):
    """:func:`character_recall`'s result: characters found / missing, the found share
    (found / characters; 1.0 with none) and the top PERSON names that are NORP words."""

    found: list[str]
    missing: list[str]
    share: float
    norp: list[str]


def character_recall(
    entities: Sequence[dict[str, Any]], characters: Sequence[Sequence[str]], top: int = 15
) -> CharacterRecall:
    """Match ``characters`` (each a list of name variants) against the ``top`` PERSON entities
    (dicts with ``name``, ``label``, ``aliases``, in rank order).

    A character is found when a variant (folded) is part of one top entity's name or alias.
    Returns ``{"found", "missing", "share", "norp"}`` where ``norp`` lists top PERSON names that
    are nationalities or religious/political groups.
    """
    people = [e for e in entities if e.get("label") == "PERSON"][:top]
    names = [[fold(n) for n in [e["name"], *e.get("aliases", [])]] for e in people]
    found: list[str] = []
    missing: list[str] = []
    for variants in characters:
        keys = [fold(v) for v in variants]
        hit = any(k in n for k in keys for group in names for n in group)
        (found if hit else missing).append(variants[0])
    norp = [e["name"] for e in people if fold(e["name"]) in NORP_WORDS]
    share = len(found) / len(characters) if characters else 1.0
    return CharacterRecall(found=found, missing=missing, share=share, norp=norp)
