"""The offline generator's question types: pure functions over a book's passage offsets, the
entities' mention passages and their mention sentences. Each answer is computed exactly from
these (relative to the extracted entities), never appears in the question, and rests on at least
two evidence passages at least ``min_span`` of the book apart.

* ``co-occurrence-bridge`` (:func:`bridge`): the one character Z mentioned in a passage with X in
  the first third (fifth, tenth) of the book and in a passage with Y in its last third (fifth,
  tenth); zones narrow until Z is unique, else no question.
* ``companion`` (:func:`companion`): the one character Z mentioned both in the passage where X is
  first mentioned after the book's first tenth (fifth, quarter) and in the one where X is last
  mentioned before its last tenth (fifth, quarter).
* ``event-order`` (:func:`event_order`): two moments described, never quoted (the first
  sentence naming Z_A with exactly one other character, A; the last one naming Z_B with exactly
  one other, B, at least ``min_span`` later); the answer is the character of the earlier one.
  Which of A / B is the earlier one, and which moment is listed first, follow a hash of the
  names (not always the first-listed). Of the possible pairs, the one with the fewest moments
  in the book's first or last tenth, then the closest, is taken.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from core.generation.names import TITLES, fold
from core.generation.span import at_ends
from core.store.entities import Entity

#: (zone fraction, its name) tried in turn by :func:`bridge`.
ZONES = ((1 / 3, "third"), (1 / 5, "fifth"), (1 / 10, "tenth"))
#: :func:`companion` looks for X's first and last appearance inside the book's first and last
#: END zone (tried in turn).
END = ((1 / 10, "tenth"), (1 / 5, "fifth"), (1 / 4, "quarter"))


@dataclass(frozen=True)
class Sentence:
    """A mention sentence: absolute offsets and its text (quotation marks removed)."""

    passage_idx: int
    start: int
    end: int
    text: str


@dataclass
class Draft:
    """A question before storage. ``anchors``: (passage idx, entity ids) whose evidence sentence
    the caller looks up; ``quotes``: evidence already resolved (event order)."""

    qtype: str
    question: str
    answer: str
    focus: Entity
    entities: list[Entity]
    anchors: list[tuple[int, tuple[int, ...]]] = field(default_factory=list)
    quotes: list[Sentence] = field(default_factory=list)


def names_of(e: Entity) -> list[str]:
    """An entity's name and aliases, longest first."""
    return sorted({e.name, *(e.aliases or [])}, key=lambda n: (-len(n), n))


def name_words(e: Entity) -> set[str]:
    """Folded words (3+ letters, no titles) of an entity's name and aliases."""
    words = {w for n in names_of(e) for w in re.findall(r"[^\W\d_]+", fold(n))}
    return {w for w in words if len(w) >= 3 and w not in TITLES}


def leaks(answer_entity: Entity, question: str) -> bool:
    """True when the question holds the answer entity's name or any word of its names."""
    words = set(re.findall(r"[^\W\d_]+", fold(question)))
    return fold(answer_entity.name) in fold(question) or bool(name_words(answer_entity) & words)


def bridge(
    x: Entity,
    y: Entity,
    universe: Sequence[Entity],
    where: dict[int, set[int]],
    starts: dict[int, int],
    length: int,
    min_span: float,
    same: Callable[[Entity, Entity], bool],
) -> Draft | None:
    """The unique character Z (a PERSON of ``universe``, not X or Y or a name of theirs) mentioned
    in a passage with X in the first zone and in a passage with Y in the last zone of the book;
    evidence: the latest such X passage and the earliest such Y passage (the ones nearest the
    middle of the book, not its two ends), ``min_span`` apart."""
    for frac, word in ZONES:
        early = {p for p in where[x.id] if starts[p] < frac * length}
        late = {p for p in where[y.id] if starts[p] >= (1 - frac) * length}
        hits = []
        for z in universe:
            a, b = where[z.id] & early, where[z.id] & late
            if not a or not b or z.id in (x.id, y.id) or same(z, x) or same(z, y):
                continue
            hits.append((z, (max(a, key=starts.__getitem__), min(b, key=starts.__getitem__))))
        if not hits:
            return None
        if len(hits) > 1:
            continue
        z, (p1, p2) = hits[0]
        if z.label != "PERSON" or (starts[p2] - starts[p1]) / length < min_span:
            return None
        question = (
            f"Which character is mentioned together with {x.name} (in the same passage) in "
            f"the first {word} of the book, and together with {y.name} in its last {word}?"
        )
        if leaks(z, question):
            return None
        return Draft(
            "co-occurrence-bridge",
            question,
            z.name,
            x,
            [x, y, z],
            anchors=[(p1, (z.id, x.id)), (p2, (z.id, y.id))],
        )
    return None


def companion(
    x: Entity,
    universe: Sequence[Entity],
    where: dict[int, set[int]],
    starts: dict[int, int],
    length: int,
    min_span: float,
    same: Callable[[Entity, Entity], bool],
) -> Draft | None:
    """The unique character Z mentioned both in X's first and in X's last mention passage
    outside the book's first and last ``END`` zone (a tenth, else a fifth or a quarter: a main
    character's first and last appearance are the book's two ends), which lie at least
    ``min_span`` of the book apart. The first zone with such a Z is taken."""
    for end, word in END:
        inner = [p for p in where[x.id] if end * length <= starts[p] < (1 - end) * length]
        if not inner:
            return None
        first, last = min(inner, key=starts.__getitem__), max(inner, key=starts.__getitem__)
        if (starts[last] - starts[first]) / length < min_span:
            return None
        hits = [
            z for z in universe if {first, last} <= where[z.id] and z.id != x.id and not same(z, x)
        ]
        if len(hits) != 1 or hits[0].label != "PERSON":
            continue
        z = hits[0]
        question = (
            f"Which character is mentioned together with {x.name} (in the same passage) both "
            f"where {x.name} first appears after the book's first {word} and where {x.name} "
            f"last appears before its last {word}?"
        )
        if leaks(z, question):
            continue
        return Draft(
            "companion",
            question,
            z.name,
            x,
            [x, z],
            anchors=[(first, (z.id, x.id)), (last, (z.id, x.id))],
        )
    return None


def _flip(*keys: str) -> bool:
    return hashlib.sha256("\x1f".join(keys).encode()).digest()[0] % 2 == 1


#: Per entity Z: the sentences naming Z and exactly one other character, in book order, each
#: with that character's id (see :func:`event_order`).
Pairings = dict[int, list[tuple[Sentence, int]]]


def event_order(
    x: Entity,
    y: Entity,
    people: dict[int, Entity],
    paired: Pairings,
    length: int,
    min_span: float,
    used: set[int] | None = None,
) -> Draft | None:
    """Two moments described, not quoted: (A's moment) the first sentence naming a character
    Z_A together with exactly one other character, who is A; (B's moment) the last sentence
    naming Z_B (another character) together with exactly one other, who is B, at least
    ``min_span`` later. Which of the two characters is named in the earlier moment? The answer
    is A. A/B = X/Y or Y/X by a hash of the names, the order the moments are listed in by
    another. Of the possible pairs of moments (at least ``min_span`` apart), the one with the
    fewest moments in the book's first or last tenth (:func:`core.generation.span.at_ends`), then
    the closest, is taken, so evidence does not sit at the book's two ends. All four must be PERSON (``people``); a sentence starting at an offset in ``used``
    (described before) is not described again. A quoted sentence with the names blanked was
    found verbatim by BM25 and given back whole, both names in it (issue 36)."""
    a, b = (y, x) if _flip(x.name, y.name, "roles") else (x, y)
    if a.label != "PERSON" or b.label != "PERSON":
        return None
    used = used if used is not None else set()

    def moments(ix: int, who: int) -> list[tuple[Sentence, int]]:
        found = [
            (ps[ix][0], z)
            for z, ps in paired.items()
            if ps and ps[ix][1] == who and z not in (a.id, b.id) and ps[ix][0].start not in used
        ]
        return sorted(found, key=lambda m: (m[0].start, m[1]))

    early = moments(0, a.id)
    late = moments(-1, b.id)
    if not early or not late:
        return None
    pairs = [
        (
            at_ends(s_a.start, length) + at_ends(s_b.start, length),
            s_b.start - s_a.start,
            s_a.start,
            (s_a, z_a),
            (s_b, z_b),
        )
        for s_a, z_a in early
        for s_b, z_b in late
        if z_b != z_a and (s_b.start - s_a.start) / length >= min_span
    ]
    if not pairs:
        return None
    *_, (s_a, z_a), (s_b, z_b) = min(pairs, key=lambda p: p[:3])
    described = [
        f"the first sentence of the book that names {people[z_a].name} together with exactly "
        "one other character",
        f"the last sentence of the book that names {people[z_b].name} together with exactly "
        "one other character",
    ]
    if _flip(x.name, y.name, "order"):
        described.reverse()
    question = (
        f"Two moments of the book: (1) {described[0]}; (2) {described[1]}. Which character is "
        "that one other character in whichever of the two moments comes first in the book?"
    )
    if leaks(a, question) or leaks(b, question):
        return None
    return Draft("event-order", question, a.name, x, [a, b], quotes=[s_a, s_b])
