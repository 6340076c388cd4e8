"""Text helpers of the offline baselines: sentences with offsets, content words, BM25, F1."""

from __future__ import annotations

import hashlib
import re
import string
import threading
from collections import Counter, OrderedDict
from dataclasses import dataclass

from core.corpus.bm25 import BM25Index, stem_content

_SENT_END = re.compile(r"(?<=[.!?])[\"'”’)\]]*\s+|\n\s*\n")
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*", re.UNICODE)


@dataclass(frozen=True)
class Sentence:
    """A sentence of a text and its character offsets ``[start, end)``."""

    start: int
    end: int
    text: str


_ABBREV = frozenset("mr mrs ms dr st jr sr prof rev gen col capt lt sgt mt vs etc no".split())
_LAST_WORD = re.compile(r"([^\W\d_]+)\.$")


def split_sentences(text: str) -> list[Sentence]:
    """Sentences split at ``.!?`` + whitespace or blank lines (not after ``Mr.``, initials),
    with verbatim offsets."""
    out: list[Sentence] = []
    pos = 0
    for m in _SENT_END.finditer(text):
        if m.group(0).strip():
            end = m.start() + len(m.group(0).rstrip())
        else:
            end = m.start()
            last = _LAST_WORD.search(text, max(pos, m.start() - 12), m.start())
            if last and (last.group(1).lower() in _ABBREV or len(last.group(1)) == 1):
                continue
        _add(out, text, pos, end)
        pos = m.end()
    _add(out, text, pos, len(text))
    return out


def _add(out: list[Sentence], text: str, start: int, end: int) -> None:
    chunk = text[start:end]
    lead = len(chunk) - len(chunk.lstrip())
    body = chunk.strip()
    if body:
        out.append(Sentence(start + lead, start + lead + len(body), body))


def words(text: str) -> list[str]:
    """Lower-cased word tokens."""
    return [w.lower() for w in _WORD.findall(text)]


def content_words(text: str) -> list[str]:
    """Stemmed words of ``text`` without English stop words."""
    return stem_content(words(text))


_PUNCTUATION = frozenset(string.punctuation)
_ARTICLES = re.compile(r"\b(a|an|the)\b")


def squad_tokens(text: str) -> list[str]:
    """SQuAD v1.1 answer normalisation, then whitespace tokens: lower case, drop ASCII
    punctuation, drop the articles a/an/the (in that order, as the official script does)."""
    text = "".join(ch for ch in (text or "").lower() if ch not in _PUNCTUATION)
    return _ARTICLES.sub(" ", text).split()


def token_f1(prediction: str, reference: str) -> float:
    """The SQuAD v1.1 token F1 ``2PR/(P+R)`` of the multiset overlap of :func:`squad_tokens`
    (0 when nothing overlaps, an empty side included): the one token F1 of the project."""
    pred, gold = squad_tokens(prediction), squad_tokens(reference)
    common = sum((Counter(pred) & Counter(gold)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(pred), common / len(gold)
    return 2 * precision * recall / (precision + recall)


def best_token_f1(prediction: str, references: list[str]) -> float:
    """Max of :func:`token_f1` over ``references`` (SQuAD's ``metric_max_over_ground_truths``);
    0 without references."""
    return max((token_f1(prediction, r) for r in references), default=0.0)


class SentenceIndex:
    """BM25 (bm25s, Lucene variant, k1=1.5, b=0.75) over the sentences of one text."""

    def __init__(self, text: str) -> None:
        self.sentences = split_sentences(text)
        texts = [s.text for s in self.sentences]
        self.tokens = _content_tokens(texts)
        self.index = BM25Index(texts, tokenizer=_content_tokens, tokens=self.tokens)

    def scores(self, query: str) -> list[float]:
        """BM25 score of every sentence for ``query``."""
        return [float(x) for x in self.index.scores(query)]


def _content_tokens(texts: list[str]) -> list[list[str]]:
    """:func:`content_words` of each text (the sentence index's analyser)."""
    return [content_words(t) for t in texts]


_indexes: OrderedDict[str, SentenceIndex] = OrderedDict()
_lock = threading.Lock()


def sentence_index(text: str) -> SentenceIndex:
    """The (memoised, 8 most recent) sentence index of ``text``."""
    key = hashlib.sha256(text.encode("utf-8")).hexdigest()
    with _lock:
        if key in _indexes:
            _indexes.move_to_end(key)
            return _indexes[key]
    index = SentenceIndex(text)
    with _lock:
        _indexes[key] = index
        while len(_indexes) > 8:
            _indexes.popitem(last=False)
    return index
