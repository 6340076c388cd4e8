"""Confusable skeletons (Unicode TR39 section 4) and the one look-alike check of new names
(:func:`check_lookalikes`: accounts, raters, systems, judges).

``skeleton(s)`` = NFD(map(NFD(NFKC(s)))), where ``map`` replaces every character by the prototype of
its confusable class. The classes come from Unicode's ``confusables.txt`` as shipped (as a
symmetric source/target table) by the pinned package ``confusable-homoglyphs``: a character
whose only partner is a multi-character string maps to that string (``m`` -> ``rn``); other
characters are grouped with their single-character partners and the class maps to its member
with the most partners (the prototype, which every source of the class points to). Two names
with the same skeleton look alike (``gpt4`` and ``gрt4`` with a Cyrillic ``р``). The NFKC fold
first catches the compatibility forms ``confusables.txt`` leaves out: full-width letters and
punctuation (``(PRD）`` with a full-width parenthesis looks like ``(PRD)``), ligatures, superscripts.
Names that differ only in case (``Alice``, ``alice``) are look-alikes too (:func:`lookalike_keys`).
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Iterable
from functools import lru_cache
from importlib import resources

from core.errors import InputError


@lru_cache(maxsize=1)
def _prototypes() -> dict[str, str]:
    """Character -> the string its confusable class maps to."""
    raw = json.loads(
        resources.files("confusable_homoglyphs").joinpath("confusables.json").read_text("utf-8")
    )
    partners = {c: [e["c"] for e in entries] for c, entries in raw.items() if len(c) == 1}
    parent = {c: c for c in partners}

    def find(c: str) -> str:
        while parent[c] != c:
            parent[c] = parent[parent[c]]
            c = parent[c]
        return c

    mapping: dict[str, str] = {}
    for c, others in partners.items():
        if len(others) == 1 and len(others[0]) > 1:
            mapping[c] = others[0]
            continue
        for o in others:
            if len(o) == 1 and o in parent:
                parent[find(c)] = find(o)
    best: dict[str, str] = {}
    for c in partners:
        if c in mapping:
            continue
        root = find(c)
        rank = (len(partners[c]), -ord(c))
        if root not in best or rank > (len(partners[best[root]]), -ord(best[root])):
            best[root] = c
    for c in partners:
        if c not in mapping:
            mapping[c] = best[find(c)]
    return mapping


def skeleton(text: str) -> str:
    """The TR39 confusable skeleton of ``text`` (see the module docstring)."""
    table = _prototypes()
    folded = unicodedata.normalize("NFD", unicodedata.normalize("NFKC", text))
    mapped = "".join(table.get(ch, ch) for ch in folded)
    return unicodedata.normalize("NFD", mapped)


def lookalike_keys(text: str) -> tuple[str, str]:
    """What two look-alike names share: the TR39 :func:`skeleton`, or the skeleton of the
    case-folded name (``Alice``, ``ALICE`` and ``alice`` read as one name; the plain skeleton
    keeps ``I`` and ``l`` alike, which folding alone would part)."""
    return skeleton(text), skeleton(text.casefold())


def check_lookalikes(
    new: Iterable[str], existing: Iterable[str], what: str, *, hint: str = ""
) -> None:
    """Refuse the first name of ``new`` that looks like a different name of ``existing`` or of
    ``new`` itself (same skeleton, also once case-folded: :func:`lookalike_keys`; an
    ``InputError`` showing both names); ``hint`` tells how to override."""
    by_key: dict[tuple[int, str], set[str]] = {}
    new = set(new)
    for name in set(existing) | new:
        for i, key in enumerate(lookalike_keys(name)):
            by_key.setdefault((i, key), set()).add(name)
    for name in sorted(new):
        others = sorted(
            set().union(*(by_key[(i, k)] for i, k in enumerate(lookalike_keys(name)))) - {name}
        )
        if others:
            raise InputError(
                f"{what} {name!r} looks like the different {what} {others[0]!r} (same "
                f"confusable skeleton, Unicode TR39, or the same letters in another case){hint}"
            )
