"""Names: title and word lists, the ``Mention`` and ``Entity`` records, name folding.

Shared by the mention finders (:mod:`core.generation.mentions`) and the alias clustering
(:mod:`core.generation.entities`).
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache

from core.corpus.bm25 import stop_words

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
    "admiral",
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
# Nationalities, religious and political groups (spaCy's NORP) the built-in finder must not take
# for people or places.
NORP_WORDS = {
    "indian", "indians", "mormon", "mormons", "mexican", "mexicans", "american", "americans",
    "spaniard", "spaniards", "comanche", "comanches", "apache", "apaches", "navajo", "navajos",
    "yankee", "yankees", "englishman", "englishmen", "frenchman", "frenchmen", "turk", "turks",
    "arab", "arabs", "moor", "moors", "saxon", "saxons", "norman", "normans", "scotch", "irish",
    "dutch", "swiss", "chinese", "japanese", "hindu", "hindus", "brahman", "brahmans",
    "buddhist", "muslim", "mussulman", "mohammedan", "puritan", "puritans", "quaker", "quakers",
    "royalist", "royalists", "republican", "republicans", "bonapartist", "bonapartists",
    "democrat", "democrats", "tory", "tories", "whig", "whigs", "jews", "christians",
    "catholics", "protestants", "gentile", "gentiles", "pagan", "pagans", "israelite",
    "israelites", "egyptian", "egyptians", "roman", "romans", "greeks", "barbarian", "barbarians",
}  # fmt: skip
# Diminutives that share a surname with the full name ("Bob Cratchit" = "Robert Cratchit").
DIMINUTIVES = {
    "bob": "robert", "bobby": "robert", "rob": "robert", "bill": "william", "billy": "william",
    "will": "william", "dick": "richard", "jim": "james", "jimmy": "james", "jack": "john",
    "johnny": "john", "tom": "thomas", "tommy": "thomas", "ned": "edward", "ted": "edward",
    "harry": "henry", "hal": "henry", "kate": "katherine", "kitty": "katherine",
    "peggy": "margaret", "meg": "margaret", "betsy": "elizabeth", "bess": "elizabeth",
    "lizzy": "elizabeth", "lizzie": "elizabeth", "polly": "mary", "molly": "mary",
    "sally": "sarah", "nell": "eleanor", "nancy": "ann", "jenny": "jane", "sam": "samuel",
    "ben": "benjamin", "joe": "joseph", "nick": "nicholas", "charley": "charles",
    "charlie": "charles", "fanny": "frances", "georgie": "george", "dolly": "dorothy",
}  # fmt: skip
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
    *NORP_WORDS,
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
    "maison",
}

#: A word :func:`lower_counts` counts, whole ("polly" of "polly’s").
LOWER_WORD = re.compile(r"[a-zß-öø-ÿ][^\W\d_]*")
_LOWER = re.compile(r"(?<![\w’'])" + LOWER_WORD.pattern)


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
    cue: str = ""  # "PERSON" when titled or next to a verb of speech


@dataclass
class Entity:
    """A merged entity: canonical name, aliases by frequency, label and its mention chain."""

    name: str
    aliases: list[str]
    label: str
    mentions: list[Mention] = field(default_factory=list)
    merges: list[str] = field(default_factory=list)  # "Hick Holt -> Hickman Holt (nickname)"

    @property
    def n_mentions(self) -> int:
        """How often the entity is mentioned."""
        return len(self.mentions)


def fold(name: str) -> str:
    """Accent- and case-folded key of a name: ``fold("Thénardier") == "thenardier"``."""
    decomposed = unicodedata.normalize("NFKD", name.replace("’", "'"))
    bare = "".join(c for c in decomposed if not unicodedata.combining(c))
    return " ".join(bare.casefold().split())


def lower_counts(text: str) -> Counter[str]:
    """How often each word occurs written in lower case (evidence that it is a common word)."""
    return Counter(_LOWER.findall(text))


# Common adjectives that open a name-like run ("Poor Anna", "Old Jolyon"): dropped like stop words.
LEADING_ADJECTIVES = frozenset({"poor", "little", "old", "dear", "good", "young"})


@lru_cache(maxsize=1)
def _stop_words() -> frozenset[str]:
    """The shared English stop words (:mod:`core.corpus.bm25`) plus :data:`LEADING_ADJECTIVES`."""
    return stop_words() | LEADING_ADJECTIVES


def mostly_norp(ms: list[Mention]) -> bool:
    """NER called the name a nationality/religious/political group at least as often as
    anything else it called it (e.g. "Indian", "Mormon"). ORG counts as something else: Hesse's
    "Govinda" (NORP 37, ORG 98, a speaker 13 times) is a person NER could not place."""
    labels = Counter(m.label for m in ms)
    others = labels["PERSON"] + labels["PLACE"] + labels["ORG"]
    return labels["NORP"] > 0 and labels["NORP"] >= others
