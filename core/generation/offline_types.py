"""The offline generator's question types: pure functions over a book's passage offsets, the
entities' mention passages and their mention sentences. Each answer is computed exactly from
these (relative to the extracted entities), never appears in the question, and rests on at least
two evidence passages at least ``min_span`` of the book apart.

* ``co-occurrence-bridge`` (:func:`bridge`): the one character Z mentioned in a passage with X in
  the first third (fifth, tenth) of the book and in a passage with Y in its last third (fifth,
  tenth); zones narrow until Z is unique, else no question.
* ``companion`` (:func:`companion`): the one character Z mentioned both in the passage where X is
  first mentioned and in the one where X is last mentioned.
* ``event-order`` (:func:`event_order`): two quoted sentences, one naming A (early) and one naming
  B (at least ``min_span`` later), with A's and B's names blanked; the answer is the character of
  the earlier one. Which of A / B is the earlier one, and which sentence is quoted first, follow a
  hash of the names (not always the first-listed).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from core.generation.names import TITLES, fold
from core.store.entities import Entity

#: (zone fraction, its name) tried in turn by :func:`bridge`.
ZONES = ((1 / 3, "third"), (1 / 5, "fifth"), (1 / 10, "tenth"))
BLANK = "___"


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
    evidence: the earliest such X passage and the latest such Y passage, ``min_span`` apart."""
    for frac, word in ZONES:
        early = {p for p in where[x.id] if starts[p] < frac * length}
        late = {p for p in where[y.id] if starts[p] >= (1 - frac) * length}
        hits = []
        for z in universe:
            a, b = where[z.id] & early, where[z.id] & late
            if not a or not b or z.id in (x.id, y.id) or same(z, x) or same(z, y):
                continue
            hits.append((z, (min(a), max(b))))
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
    """The unique character Z mentioned both in X's first and in X's last mention passage,
    which lie at least ``min_span`` of the book apart."""
    first, last = min(where[x.id]), max(where[x.id])
    if (starts[last] - starts[first]) / length < min_span:
        return None
    hits = [z for z in universe if {first, last} <= where[z.id] and z.id != x.id and not same(z, x)]
    if len(hits) != 1 or hits[0].label != "PERSON":
        return None
    z = hits[0]
    question = (
        f"Which character is mentioned together with {x.name} (in the same passage) both "
        f"where {x.name} first appears in the book and where {x.name} last appears?"
    )
    if leaks(z, question):
        return None
    return Draft(
        "companion",
        question,
        z.name,
        x,
        [x, z],
        anchors=[(first, (z.id, x.id)), (last, (z.id, x.id))],
    )


def blank(text: str, entities: Sequence[Entity]) -> str:
    """``text`` with every name, alias and name word of ``entities`` replaced by ``___``."""
    terms = sorted(
        {t for e in entities for t in names_of(e)}
        | {w for e in entities for n in names_of(e) for w in n.split() if len(w) >= 3},
        key=lambda t: (-len(t), t),
    )
    terms = [t for t in terms if fold(t).strip(".") not in TITLES]
    if not terms:
        return text
    pattern = re.compile(r"(?<!\w)(?:" + "|".join(map(re.escape, terms)) + r")(?!\w)", re.I)
    return pattern.sub(BLANK, text)


def blank_pattern(quote: str) -> re.Pattern[str]:
    """A pattern matching ``quote`` in the book's whitespace-collapsed, unquoted text with any
    name (1-4 words) in each blank."""
    parts = [re.escape(re.sub(r"\s+", " ", p)).replace("\\ ", " ") for p in quote.split(BLANK)]
    return re.compile(r"[^\s.!?]+(?: [^\s.!?]+){0,3}?".join(parts))


_END = re.compile(r"[.!?][\"'’”)\]]*$")


def prose(text: str) -> bool:
    """A sentence fit to quote: 8-40 words, ending in . ! or ?, at least 60 % of its words in
    lower case (not a heading, a table of contents or a list of names)."""
    words = text.split()
    lower = sum(w[0].islower() for w in words if w[0].isalpha())
    return 8 <= len(words) <= 40 and bool(_END.search(text)) and lower >= 0.6 * len(words)


def _flip(*keys: str) -> bool:
    return hashlib.sha256("\x1f".join(keys).encode()).digest()[0] % 2 == 1


def event_order(
    x: Entity,
    y: Entity,
    sentences: dict[int, list[Sentence]],
    length: int,
    min_span: float,
    used: set[int] | None = None,
    occurrences: Callable[[str], int] | None = None,
) -> Draft | None:
    """Of a sentence naming A (its earliest usable one) and a sentence naming B (its latest one
    at least ``min_span`` later), both with A's and B's names blanked, which character is named
    in the earlier? A/B = X/Y or Y/X by a hash of the names; the quotes' order by another. Both
    must be PERSON. A usable sentence is prose (see :func:`prose`), names only its own character
    of the two, and does not start at an offset in ``used`` (sentences quoted before); each
    blanked quote must match exactly one place of the book (``occurrences(quote)``, e.g. of its
    :func:`blank_pattern`), so the two moments are unambiguous."""
    a, b = (y, x) if _flip(x.name, y.name, "roles") else (x, y)
    if a.label != "PERSON" or b.label != "PERSON":
        return None
    words_a, words_b = name_words(a), name_words(b)
    used = used if used is not None else set()

    def clean(s: Sentence, other: set[str]) -> bool:
        words = set(re.findall(r"[^\W\d_]+", fold(s.text)))
        return not words & other and s.start not in used and prose(s.text)

    early = next((s for s in sentences.get(a.id, []) if clean(s, words_b)), None)
    if early is None:
        return None
    late = next(
        (
            s
            for s in reversed(sentences.get(b.id, []))
            if clean(s, words_a) and (s.start - early.start) / length >= min_span
        ),
        None,
    )
    if late is None:
        return None
    quoted = [blank(s.text, [a, b]) for s in (early, late)]
    if BLANK not in quoted[0] or BLANK not in quoted[1] or quoted[0] == quoted[1]:
        return None
    if occurrences is not None and any(occurrences(q) != 1 for q in quoted):
        return None
    if _flip(x.name, y.name, "order"):
        quoted.reverse()
    question = (
        "Two moments of the book are quoted below with the characters' names blanked (___). "
        f"Which character is named in the one that comes first in the book? (1) “{quoted[0]}” "
        f"(2) “{quoted[1]}”"
    )
    if leaks(a, question) or leaks(b, question):
        return None
    return Draft("event-order", question, a.name, x, [a, b], quotes=[early, late])
