"""Name forms the alias clustering links or drops by rule (pure functions over folded keys).

* Patronymics (Russian novels in translation): a word ending in *-ovitch, -evitch, -ovich,
  -evich, -ovna, -evna, -ichna* (or *-itch* on a word of 7+ letters: *Ilyitch, Kuzmitch*) is a
  patronymic. "First Patronymic Surname" written together links "First Patronymic" and
  "Surname" (when that surname follows only one first name + patronymic); a diminutive from
  :data:`RUSSIAN_DIMINUTIVES` links to the one "First Patronymic" of its full first name when both
  are written close together (within ``window`` characters) at least once. The full name may be
  found in the text itself (:func:`written_full_names`) when NER cut it at a line break. A
  patronymic, or a known diminutive, makes a name a PERSON whatever NER said.
* Demonyms: "Nantucketer", "Parisian", "Londoner", "Chinese" = a place name of the same book +
  *-er(s), -ian(s), -an(s), -ese, -ite(s)* (the place's final *a / y / e* may drop).
* Place-like names: mostly written right after *at / in / to* (and never titled twice).
* Common nouns in capitals: a one-word name written after *a / an* in at least a quarter of its
  untitled mentions (at least twice) is a noun, not a name ("a Samana", "an Alsatian", "a
  State": a person's or a place's name almost never takes the indefinite article); its plural
  ("the Samanas") is one too. Neither is an entity.
* Epithets: "Gotama, the Buddha" written at least twice, where the second name is written after
  *the* in at least a third of its mentions and the first is not, names one person twice.
* A feature's name: an untitled mention written "the X of Y" ("the Hill of Howth", "the Bank of
  Ireland") names a place or a thing, not the person X ("Miss Hill"):
  :func:`of_phrase`, whose mentions the clustering drops.
* The text's own equation: "Stepan Arkadyevitch Oblonsky—Stiva, as he was called" (a dash or
  comma, then *as he/she was called / known*) names one person twice: the short name joins the
  longest kept name written in the full one (:func:`equated_names`).
* A bare first name and the fuller names that begin with it (:func:`first_name_host`): a shared
  token is no evidence. "Nikolay" (the brother) is not "Nikolay Ivanovitch Sviazhsky", "Alexey"
  (Anna's lover) is not "Alexey Alexandrovitch", the servant "Mary" is not "Mary Jane". The bare
  name joins a fuller name only where the two are written close together (within a page,
  ``FIRST_NAME_WINDOW`` characters) in at least half of the mentions of one of them (not for a
  first name + patronymic), or where
  the bare name carries the fuller name's title ("Sir Robert" / "Sir Robert Chiltern"), and only
  when exactly one fuller name has that evidence; otherwise it stays an entity of its own.
"""

from __future__ import annotations

import bisect
import re
from collections import defaultdict
from collections.abc import Callable, Iterator, Mapping, Sequence
from collections.abc import Set as AbstractSet

from core.generation.names import Mention, fold

#: A woman's patronymic ending ("Alexandrovna"); the others are a man's.
FEMALE_PATRONYMIC = re.compile(r"(?:ovna|evna|ichna)$")
PATRONYMIC = re.compile(r"^[a-z]{3,}(?:ovitch|evitch|ovich|evich|ovna|evna|ichna)$|^[a-z]{3,}itch$")

#: Common Russian diminutives -> full first names (small on purpose; folded, transliterations
#: as in the Constance Garnett translations and modern ones).
RUSSIAN_DIMINUTIVES: dict[str, tuple[str, ...]] = {
    "dounia": ("avdotya",), "dunya": ("avdotya",), "dunia": ("avdotya",),
    "dunechka": ("avdotya",), "rodya": ("rodion",), "rodka": ("rodion",),
    "sonia": ("sofya", "sofia"), "sonya": ("sofya", "sofia"), "sonechka": ("sofya", "sofia"),
    "katya": ("katerina", "ekaterina"), "katia": ("katerina", "ekaterina"),
    "mitya": ("dmitri", "dmitry"), "mitka": ("dmitri", "dmitry"), "polenka": ("polina",),
    "alyosha": ("alexey", "alexei"), "petya": ("pyotr",), "kolya": ("nikolay", "nikolai"),
    "vanya": ("ivan",), "misha": ("mikhail",), "natasha": ("natalya",), "masha": ("marya",),
    "grusha": ("agrafena",), "grushenka": ("agrafena",), "pasha": ("pavel",),
    "sasha": ("alexandr", "alexander", "alexandra"), "lida": ("lidia",), "nastya": ("anastasia",),
    "kostya": ("konstantin",), "varenka": ("varvara",), "varya": ("varvara",),
    # the English pet name Garnett keeps for Ekaterina Shtcherbatskaya ("Kitty", "Katya")
    "kitty": ("katerina", "ekaterina"),
}  # fmt: skip

DEMONYM_SUFFIXES = ("ers", "er", "ians", "ian", "ans", "an", "ese", "ites", "ite")
PLACE_PREPOSITIONS = frozenset({"at", "in", "to"})
_INDEFINITE = frozenset({"a", "an"})
_QUANTIFIERS = frozenset({"some", "many", "every", "each"})
_DEFINITE = frozenset({"the"})


def is_patronymic(word: str) -> bool:
    """True for a folded patronymic ("petrovitch", "romanovna", "ilyitch")."""
    return bool(PATRONYMIC.match(word))


def patronymic_links(
    keys: dict[str, tuple[str, ...]],
    all_keys: dict[str, tuple[str, ...]],
    near: Callable[[str, str], bool],
) -> list[tuple[str, str, str]]:
    """``(name, into, reason)`` links among the kept ``keys`` (key -> words).

    ``all_keys`` holds every name seen (also those mentioned once) for the "written together"
    evidence; ``near(a, b)`` says whether two kept names are written close together once."""
    forms: dict[str, list[str]] = defaultdict(list)  # first name -> its "first patronymic" keys
    for key, w in keys.items():
        if len(w) == 2 and is_patronymic(w[1]):
            forms[w[0]].append(key)
    surnames: dict[str, set[str]] = defaultdict(
        set
    )  # surname -> "first patronymic" written with it
    for w in all_keys.values():
        if len(w) == 3 and is_patronymic(w[1]):
            surnames[w[2]].add(f"{w[0]} {w[1]}")
    links = []
    for surname, fulls in surnames.items():
        # the bare (masculine) surname is the one man's: "Levin", not "Katerina Alexandrovna Levin"
        men = {f for f in fulls if not FEMALE_PATRONYMIC.search(f.split()[1])}
        full = next(iter(fulls)) if len(fulls) == 1 else next(iter(men)) if len(men) == 1 else ""
        if full in keys and surname in keys:
            links.append((surname, full, "surname written with first name + patronymic"))
    for key, w in keys.items():  # "Katerina Alexandrovna Levin": whatever other Levins
        if len(w) == 3 and is_patronymic(w[1]) and f"{w[0]} {w[1]}" in keys:
            links.append((key, f"{w[0]} {w[1]}", "first name + patronymic + surname"))
        if len(w) != 1:
            continue
        targets = [f for first in RUSSIAN_DIMINUTIVES.get(w[0], ()) for f in forms.get(first, [])]
        if len(targets) == 1 and near(key, targets[0]):
            links.append((key, targets[0], "diminutive of the first name, written nearby"))
    return links


_OF_AFTER = re.compile(r"[ \t]*\n?[ \t]*of[ \t]*\n?[ \t]*[A-ZÀ-ÖØ-Þ]")


def of_phrase(text: str, start: int, end: int) -> bool:
    """The mention ``text[start:end]`` is written "the X of Y" (Y capitalised)."""
    return preceding_word(text, start) == "the" and bool(_OF_AFTER.match(text, end))


_CAP = r"[A-ZÀ-ÖØ-Þ][^\W\d_]*(?:[’'-][^\W\d_]+)*"
#: "Full Name—Nick, as he was called": up to five capitalised words, a dash (or comma), one.
_EQUATION = re.compile(
    rf"({_CAP}(?:[ \t]*\n?[ \t]*{_CAP}){{0,4}})[ \t]*(?:—|--|,)[ \t\n]*({_CAP}),?\s+"
    r"as\s+(?:he|she)\s+was\s+(?:called|known)\b"
)
#: The end of every :data:`_EQUATION`: the places to look for one.
_AS_CALLED = re.compile(r"as\s+(?:he|she)\s+was\s+(?:called|known)\b")
#: Characters other than letters and white space an equation may hold before its end.
_EQUATION_MARKS = frozenset("’'-—,_")


def _in_equation(char: str) -> bool:
    """``char`` may be part of an :data:`_EQUATION` before its "as he was called" (a superset:
    letters and digits, white space, apostrophes, dashes, commas)."""
    return char.isalnum() or char.isspace() or char in _EQUATION_MARKS


def equations(text: str) -> Iterator[re.Match[str]]:
    """The matches of ``_EQUATION.finditer(text)``, the same ones in the same order, found
    without trying the pattern at every capital of a long book (3 s CPU on Les Misérables,
    which has none): a match ends at an "as he/she was called / known" and starts within the
    run of letters, white space, apostrophes, dashes and commas just before it, so only those
    starts are tried, left to right."""
    pos = 0  # no match starts before pos (finditer's own rule: the next one after the last)
    for tail in _AS_CALLED.finditer(text):
        end = tail.start()
        if end < pos:
            continue
        start = end
        while start > pos and _in_equation(text[start - 1]):
            start -= 1
        for at in range(start, end):
            found = _EQUATION.match(text, at)
            if found:
                yield found
                pos = found.end()
                break
        else:
            pos = end


def equated_names(keys: Mapping[str, tuple[str, ...]], text: str) -> list[tuple[str, str, str]]:
    """``(nick, into, reason)`` for each "Full Name—Nick, as he was called" of ``text`` whose
    one-word nick is a kept key (``keys``: key -> its words) and whose full name holds a kept
    key of two words or more as consecutive words (the longest such key is ``into``)."""
    links = []
    for m in equations(text):
        nick, full = fold(m.group(2)), tuple(fold(m.group(1)).split())
        if nick not in keys:
            continue
        inside = [
            k
            for k, w in keys.items()
            if len(w) > 1 and any(full[i : i + len(w)] == w for i in range(len(full) - len(w) + 1))
        ]
        if inside:
            into = max(inside, key=lambda k: (len(keys[k]), k))
            shown = " ".join(m.group(0).split())
            links.append((nick, into, f"the text says '{shown}'"))
    return links


def equated_nicks(text: str) -> set[str]:
    """The folded one-word nicks of every "Full Name—Nick, as he was called" of ``text``."""
    return {fold(m.group(2)) for m in equations(text)}


#: How close (characters, about a page) a bare first name and its fuller name are written
#: to count as evidence that they name one person (:func:`first_name_host`).
FIRST_NAME_WINDOW = 3000


def _near_share(xs: Sequence[int], ys: Sequence[int], window: int) -> float:
    """The share of ``xs`` (offsets) with one of ``ys`` within ``window`` characters."""
    ordered = sorted(ys)
    hits = 0
    for x in xs:
        i = bisect.bisect_left(ordered, x - window)
        hits += i < len(ordered) and ordered[i] <= x + window
    return hits / len(xs) if xs else 0.0


def _all_patronymic(full: Sequence[Mention]) -> bool:
    """Every fuller name is a first name + patronymic ("Alexey Alexandrovitch ...")."""
    return all(len(w) > 1 and is_patronymic(w[1]) for w in (fold(m.core).split() for m in full))


def _same_titles(bare: Sequence[Mention], full: Sequence[Mention]) -> bool:
    """At least two of the bare name's mentions carry a title, and at least half of those
    share one with the fuller name's mentions ("Sir Robert" and "Sir Robert Chiltern")."""
    titles = {t for m in full for t in m.titles}
    titled = [m for m in bare if m.titles]
    return len(titled) >= 2 and sum(bool(titles & set(m.titles)) for m in titled) * 2 >= len(titled)


def first_name_host(
    bare: Sequence[Mention],
    hosts: Mapping[str, Sequence[Mention]],
    window: int = FIRST_NAME_WINDOW,
) -> str | None:
    """The one host a bare first name joins, or None.

    ``bare``: the bare name's mentions; ``hosts``: each candidate person (a group root) -> the
    mentions of its fuller names that begin with the bare name ("Marius" -> "Marius
    Pontmercy"). A host has evidence when at least half of the bare mentions, or half of its
    fuller mentions, have the other within ``window`` characters (not for a first name +
    patronymic: Russian first names are shared by many people, and "Alexey" is written beside
    "Alexey Alexandrovitch" when Anna speaks to her lover of her husband), or when the bare name
    is titled as the fuller one is ("Sir Robert" / "Sir Robert Chiltern"); the bare name joins the
    host only when exactly one host has evidence (two people sharing a first name: the bare
    form stays unresolved, never goes to both).
    """
    starts = [m.start for m in bare]
    with_evidence = []
    for root, full in hosts.items():
        at = [m.start for m in full]
        near = max(_near_share(starts, at, window), _near_share(at, starts, window))
        if (near >= 1 / 2 and not _all_patronymic(full)) or _same_titles(bare, full):
            with_evidence.append(root)
    return with_evidence[0] if len(with_evidence) == 1 else None


def is_diminutive(word: str) -> bool:
    """True for a folded first-name diminutive of :data:`RUSSIAN_DIMINUTIVES` ("dounia")."""
    return word in RUSSIAN_DIMINUTIVES


def written_full_names(keys: dict[str, tuple[str, ...]], text: str) -> dict[str, tuple[str, ...]]:
    """ "First Patronymic Surname" written in ``text`` (words apart by any whitespace, a line
    break too) where "First Patronymic" and "Surname" are kept ``keys``: NER may cut such a name
    at a line break ("Pyotr\\nPetrovitch Luzhin"), so the text itself is the evidence that the
    two are one person's. Returns folded full name -> its words."""
    firsts = [w for w in keys.values() if len(w) == 2 and is_patronymic(w[1])]
    singles = {w[0] for w in keys.values() if len(w) == 1}
    out: dict[str, tuple[str, ...]] = {}
    for first, patronymic in firsts:
        pattern = rf"(?<!\w){re.escape(first)}\s+{re.escape(patronymic)}\s+([^\W\d_]+)"
        for m in re.finditer(pattern, text, re.I):
            surname = fold(m.group(1))
            if surname in singles:
                out[f"{first} {patronymic} {surname}"] = (first, patronymic, surname)
    return out


def is_demonym(key: str, place_keys: set[str]) -> bool:
    """True when the one-word ``key`` is a place name of ``place_keys`` + a demonym suffix
    ("nantucketer" <- "nantucket", "parisian" <- "paris", "chinese" <- "china")."""
    if " " in key:
        return False
    for suffix in DEMONYM_SUFFIXES:
        if key.endswith(suffix) and len(key) > len(suffix) + 2:
            stem = key[: -len(suffix)]
            if {stem, stem + "a", stem + "y", stem + "e"} & place_keys:
                return True
    return False


def preceding_word(text: str, start: int) -> str:
    """The lower-cased word right before offset ``start`` ('' at the start or after a sentence
    end)."""
    m = re.search(r"([A-Za-z]+)[ \t\n]+$", text[max(0, start - 24) : start])
    return m.group(1).lower() if m else ""


def mostly_after_prepositions(starts: list[int], text: str) -> bool:
    """More than half of at least three mentions come right after *at / in / to*."""
    if len(starts) < 3 or not text:
        return False
    return _share_after(starts, text, PLACE_PREPOSITIONS)[1] > 1 / 2


def _share_after(starts: Sequence[int], text: str, words: frozenset[str]) -> tuple[int, float]:
    """How many of ``starts`` come right after one of ``words``, and that count's share."""
    hits = sum(preceding_word(text, s) in words for s in starts)
    return hits, hits / len(starts) if starts else 0.0


def common_nouns(untitled: Mapping[str, Sequence[int]], text: str) -> set[str]:
    """The keys of ``untitled`` (key -> starts of its untitled mentions) used as common nouns:
    after *a / an* (or, for a name and its plural counted together, *some / many / every /
    each*: "so many Hallow Eves", "some Hallow Eve games", a feast, not a person) at least twice
    and in at least a quarter of those mentions, plus their plurals (key + "s"). Names of one
    word only for *a / an* ("a Samana"; "a Mr Smith" is titled, "an Ideal Husband" a title)."""
    nouns = set()
    for key, starts in untitled.items():
        if not starts or not text:
            continue
        hits, share = (0, 0.0) if " " in key else _share_after(starts, text, _INDEFINITE)
        both = [*starts, *untitled.get(key + "s", ())]
        counted, part = _share_after(both, text, _QUANTIFIERS | _INDEFINITE)
        if (hits >= 2 and share >= 0.25) or (counted >= 2 and part >= 0.25):
            nouns.add(key)
    return nouns | {key for key in untitled if key.endswith("s") and key[:-1] in nouns}


#: "Name, the Epithet": two one-word capitalised names, the second not followed by more word.
_APPOSITION = re.compile(r"(?<![\w'’])([^\W\d_][\w-]+),\s+the\s+([^\W\d_][\w-]+)(?![\w'’-])")


def epithet_links(
    starts: Mapping[str, Sequence[int]], text: str, place_words: AbstractSet[str]
) -> list[tuple[str, str, str]]:
    """``(name, epithet, reason)`` for "Name, the Epithet" written at least twice among the
    kept keys of ``starts`` (key -> mention starts; the name's there counted only), where the epithet is written after *the*
    in at least a third of its mentions and the name is not ("Gotama, the Buddha"). Words of
    ``place_words`` ("Rue", "Street") are never epithets."""
    written: dict[tuple[str, str], int] = defaultdict(int)
    shown: dict[tuple[str, str], str] = {}
    mentioned = {s for found in starts.values() for s in found}  # (in a story: that story's)
    for m in _APPOSITION.finditer(text):
        if m.start(1) in mentioned and m.group(1)[0].isupper() and m.group(2)[0].isupper():
            pair = (fold(m.group(1)), fold(m.group(2)))
            written[pair] += 1
            shown.setdefault(pair, f"{m.group(1)}, the {m.group(2)}")
    links = []
    for (name, epithet), n in sorted(written.items()):
        if n < 2 or name == epithet or name not in starts or epithet not in starts:
            continue
        if {name, epithet} & place_words:
            continue
        if (
            _share_after(starts[epithet], text, _DEFINITE)[1]
            >= 1 / 3
            > _share_after(starts[name], text, _DEFINITE)[1]
        ):
            links.append((name, epithet, f"written '{shown[(name, epithet)]}' {n} times"))
    return links
