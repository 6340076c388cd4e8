"""A bare title joined to the one person who bears it (issue 36): *The Magnificent Ambersons*'
"the Major" is Major Amberson, the one man the book titles Major.

* A *bare title*: a rank, an office or a rank of nobility of :data:`BARE_TITLES` ("Major",
  "Colonel", "Admiral", "Doctor", "Baron", "Duchess") written alone, capitalised, after *the*
  ("the Major", "The Major’s"; not "the Major Amberson", a titled mention). Its mentions: an
  entity holding one untitled one-word name only, that title, written after *the* or a
  possessive in at least half of its mentions (:func:`bare_title`; the built-in finder keeps
  "the Major’s" through its possessive, a ROLE of :mod:`core.generation.not_names`), and every
  "the Major" that no mention covers in the story's paragraphs from its first mention to its
  last (:func:`bare_mentions`: the finders drop a title with no name after it, spaCy tags
  none). Kinship and address titles (*Father, Aunt,
  Mr, Miss, Sir, Lady, Lord, Master*) are none: "the Lord" is no Lord Goring.
* Its *bearers* (:func:`_bearers`): the people of the document (of the story, in a collection)
  with a mention that carries the title ("Major Amberson"; *Dr.* carries *Doctor*, a name
  beginning "Duchesse" or "Duc" the English title), each entity holding such mentions one
  person, each name of such a mention that no entity holds (named too rarely) another.
* Exactly one bearer, an entity labelled PERSON, and two mentions of the bare title at least:
  they join it. The bearer keeps its name and label, the title becomes its alias, the merge is
  noted on it ("Major -> Amberson (the one person titled Major)"). Two bearers or more
  (*Les Misérables*’ "the Emperor": Napoleon and two more; *Father Goriot*’s
  "the Duchess": de Langeais, de Carigliano; *The Art of War*'s "the Emperor"), or none: the
  title stays apart, an entity of its own where it was one; a shared title is never given to
  one of them.
"""

from __future__ import annotations

import bisect
import re
from collections import defaultdict
from collections.abc import Sequence

from core.generation.entity_labels import key_words
from core.generation.names import FEMALE_TITLES, MALE_TITLES, NEUTRAL_TITLES, Entity, Mention, fold
from core.generation.not_names import after_determiners

#: Titles of kinship or address, or of God ("the Lord"): "the X" names no one titled "X Name".
NOT_BARE = frozenset(
    {"m", "monsieur", "mr", "messieurs", "father", "brother", "uncle", "sir", "lord", "master",
     "citizen", "mme", "madame", "madam", "mlle", "mademoiselle", "mrs", "miss", "ms", "mother",
     "sister", "aunt", "lady", "dame", "st"}
)  # fmt: skip
#: Ranks, offices and nobility that name one person written as "the X" (folded).
BARE_TITLES = frozenset(fold(t) for t in MALE_TITLES | FEMALE_TITLES | NEUTRAL_TITLES) - NOT_BARE
#: Abbreviated and French titles -> the English word ("Dr. Herzl" is "the Doctor", the Duchesse
#: de Langeais one of the book's duchesses).
SAME_TITLE = {
    "dr": "doctor", "duc": "duke", "duchesse": "duchess", "comte": "count", "comtesse": "countess",
    "baronne": "baroness",
}  # fmt: skip


def _title(word: str) -> str:
    """A mention's title folded, its abbreviation written out."""
    word = fold(word)
    return SAME_TITLE.get(word, word)


def bare_title(e: Entity, text: str) -> str:
    """The title (folded) ``e`` is named by alone, or ``""`` (module docstring)."""
    if not after_determiners(e.mentions, e.name, text):
        return ""
    title = _title(key_words(fold(e.name))[0])  # "the Duchesse’s": the duchess
    return title if title in BARE_TITLES else ""


#: "the Major", "The Major’s": a capitalised word after *the*, no name after it ("the Major
#: Amberson" is a titled mention).
_THE_WORD = re.compile(r"(?<![\w’'])[Tt]he[ \t]*\n?[ \t]*([A-Z][^\W\d_]*)(?![\w-])(?![ \t]+[A-Z])")
#: Fewest mentions of a bare title that join its bearer.
BARE_MIN = 2


def bare_mentions(
    text: str, span: tuple[int, int], taken: Sequence[Mention]
) -> dict[str, list[Mention]]:
    """Title (folded) -> its mentions written "the Title" in ``text[span]`` (:data:`_THE_WORD`)
    that no mention of ``taken`` overlaps (the finders drop a title with no name after it; spaCy
    tags none of "the Major’s")."""
    covered = sorted((m.start, m.end) for m in taken)
    ends = [e for _, e in covered]
    out: dict[str, list[Mention]] = defaultdict(list)
    for hit in _THE_WORD.finditer(text, *span):
        word, (start, end) = hit.group(1), hit.span(1)
        title = _title(word)
        if title not in BARE_TITLES:
            continue
        i = bisect.bisect_left(ends, start + 1)  # the first mention ending after the hit starts
        if i < len(covered) and covered[i][0] < end:
            continue
        out[title].append(Mention(start=start, end=end, surface=word, core=word))
    return out


def _bearers(entities: Sequence[Entity], taken: Sequence[Mention]) -> dict[str, set[int | str]]:
    """Title (folded) -> the people of ``taken`` who bear it: the entity holding a mention that
    carries it ("Major Amberson"; a name that begins with it: "Duchesse de Carigliano"), by its
    index, or, for a mention no entity holds (named too rarely), its name: another person."""
    owner = {id(m): i for i, e in enumerate(entities) for m in e.mentions}
    out: dict[str, set[int | str]] = defaultdict(set)
    for m in taken:
        titles = {_title(t) for t in m.titles}
        first, _, rest = m.core.partition(" ")
        if rest:
            titles.add(_title(first))
        for title in titles & BARE_TITLES:
            out[title].add(owner.get(id(m), fold(rest if _title(first) == title else m.core)))
    return out


def join_bare_titles(entities: list[Entity], text: str, taken: Sequence[Mention]) -> list[Entity]:
    """``entities`` (of ``taken``, every mention found in a story of ``text``) without the bare
    titles of one bearer, whose mentions, and the uncovered "the Title" of the paragraphs from
    the story's first mention to its last (:func:`bare_mentions`), join that bearer (module
    docstring). The bearer entities are updated in place."""
    if not text or not taken:
        return entities
    end = text.find("\n\n", max(m.end for m in taken))
    span = (text.rfind("\n\n", 0, min(m.start for m in taken)) + 1, len(text) if end < 0 else end)
    held = {id(m) for e in entities for m in e.mentions}
    # a title alone that no entity kept ("the Major’s house", once spaCy's ORG) is no cover
    cover = [m for m in taken if id(m) in held or m.titles or _title(m.core) not in BARE_TITLES]
    scanned = bare_mentions(text, span, cover)
    alone: dict[str, list[Entity]] = defaultdict(list)
    for e in entities:
        if title := bare_title(e, text):
            alone[title].append(e)
    people = _bearers(entities, taken)
    joined: set[int] = set()
    for title in sorted(set(alone) | set(scanned)):
        added = [m for e in alone[title] for m in e.mentions] + scanned[title]
        one = people.get(title, set())
        if len(one) != 1 or len(added) < BARE_MIN:
            continue  # no one, or several people bear it: never a guess
        (who,) = one
        if not isinstance(who, int) or entities[who].label != "PERSON":
            continue
        bearer, core = entities[who], added[0].core
        bearer.mentions = sorted(bearer.mentions + added, key=lambda m: m.start)
        if core not in bearer.aliases and core != bearer.name:
            bearer.aliases.append(core)
        bearer.merges.append(f"{core} -> {bearer.name} (the one person titled {core})")
        joined.update(id(e) for e in alone[title])
    return [e for e in entities if id(e) not in joined]
