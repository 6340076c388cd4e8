"""BM25 retrieval over a document's stored passages (bm25s, Lucene BM25 with English stemming).

A passage's score for query ``q`` is the Lucene BM25 sum over query terms ``t``::

    score(p, q) = sum_t idf(t) * tf(t, p) * (k1 + 1) / (tf(t, p) + k1 * (1 - b + b * |p| / avgdl))

with ``k1 = 1.5``, ``b = 0.75``, ``idf(t) = ln(1 + (N - df(t) + 0.5) / (df(t) + 0.5))``; terms are
lower-cased, English stop-words removed and Snowball-stemmed (PyStemmer); the index itself is
:class:`core.corpus.bm25.BM25Index` with the bm25s analyser.

Indexes are cached in memory per ``(doc_id, sha256 of the text, number of passages)``, so repeated
queries on one book do not re-index, and a re-imported (changed) book is re-indexed automatically.
The cache keeps the :data:`CACHE_SIZE` latest indexes, and more while all of them hold at most
:data:`CACHE_PASSAGES` passages (memory grows with passages): the demo's 250 short documents
(4,438 passages) all stay, so a team labelling across them does not rebuild an index per item
(issue 37: it did, 3-4 ms of a label's CPU, with eight kept).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from core.store.engine import Database

from core.corpus.bm25 import BM25Index, bm25s_tokenize
from core.corpus.documents import count_tokens, require_document
from core.corpus.sentences import split_sentences
from core.errors import InputError
from core.store.documents import Passage, get_passages, passage_key

#: Indexes always kept (the latest used)...
CACHE_SIZE = 8
#: ... and more while the cached indexes hold at most this many passages in all.
CACHE_PASSAGES = 50_000
PASSAGE_SEPARATOR = "\n\n-----\n\n"

_cache: "OrderedDict[tuple[str, str, int], _Index]" = OrderedDict()
_lock = threading.Lock()


@dataclass(frozen=True)
class _Index:
    """A built BM25 index and the passages it was built from (index i = passages[i])."""

    bm25: BM25Index
    passages: tuple[Passage, ...]


def tokenize(texts: list[str]) -> list[list[str]]:
    """Lower-cased, stop-word-filtered, stemmed tokens of each text (the index's analyser)."""
    return bm25s_tokenize(texts)


def _document_key(db: Database, doc_id: str) -> tuple[str, str, int]:
    found = passage_key(db, doc_id)
    if found is None:
        require_document(db, doc_id)  # raises, naming the closest known ids
        raise InputError(f"unknown document {doc_id!r}")  # not reached: the line above raises
    if found[1] == 0:
        raise InputError(f"document {doc_id!r} has no passages to search")
    return doc_id, found[0], found[1]


def get_index(db: Database, doc_id: str) -> _Index:
    """The (cached) BM25 index of ``doc_id``'s passages; builds it on first use."""
    key = _document_key(db, doc_id)
    with _lock:
        if key in _cache:
            _cache.move_to_end(key)
            return _cache[key]
    passages = tuple(get_passages(db, doc_id))
    index = _Index(
        bm25=BM25Index([p.text for p in passages], tokenizer=tokenize), passages=passages
    )
    with _lock:
        _cache[key] = index
        _cache.move_to_end(key)
        while len(_cache) > CACHE_SIZE and _cached_passages() > CACHE_PASSAGES:
            _cache.popitem(last=False)
    return index


def _cached_passages() -> int:
    """Passages held by the cached indexes (call with the lock held)."""
    return sum(len(index.passages) for index in _cache.values())


def clear_cache() -> None:
    """Forget every cached index."""
    with _lock:
        _cache.clear()


def cache_info() -> dict[str, int]:
    """How many indexes are cached (the tests check the cache with it)."""
    with _lock:
        return {
            "size": len(_cache),
            "max_size": CACHE_SIZE,
            "passages": _cached_passages(),
            "max_passages": CACHE_PASSAGES,
        }


def _ranked(index: _Index, query: str) -> list[tuple[int, float]]:
    """Positions of the passages with a positive score, best first (ties: book order)."""
    return index.bm25.top(query)


def search(db: Database, doc_id: str, query: str, k: int = 10) -> list[tuple[Passage, float]]:
    """The ``k`` best passages of ``doc_id`` for ``query`` with their BM25 scores, best first.

    Passages that share no term with the query are never returned.
    """
    if k < 1:
        raise InputError(f"k must be at least 1, got {k}")
    index = get_index(db, doc_id)
    return [(index.passages[i], s) for i, s in _ranked(index, query)[:k]]


def retrieve(db: Database, doc_id: str, query: str, budget_tokens: int = 4000) -> list[Passage]:
    """The best passages for ``query`` whose token counts sum to at most ``budget_tokens``,
    returned in book order.

    Passages are taken greedily by descending score; one that would overflow the budget is
    skipped and smaller lower-ranked ones may still fill the remainder. If the budget is smaller
    than every matching passage, the result is one excerpt of the best passage cut at sentence
    boundaries (:func:`best_excerpt`) rather than an empty context; if not even one sentence of
    it fits, :class:`InputError`. An empty list means no passage shares a term with the query.
    """
    if budget_tokens < 1:
        raise InputError(f"budget_tokens must be positive, got {budget_tokens}")
    index = get_index(db, doc_id)
    ranked = _ranked(index, query)
    chosen: list[Passage] = []
    used = 0
    for i, _score in ranked:
        passage = index.passages[i]
        if used + passage.n_tokens > budget_tokens:
            continue
        chosen.append(passage)
        used += passage.n_tokens
        if budget_tokens - used < 16:
            break
    if not chosen and ranked:
        return [best_excerpt(index.passages[ranked[0][0]], query, budget_tokens)]
    return sorted(chosen, key=lambda p: p.idx)


def best_excerpt(passage: Passage, query: str, budget_tokens: int) -> Passage:
    """The run of whole consecutive sentences of ``passage`` that fits ``budget_tokens`` and
    holds the most distinct query terms (stemmed, as the index sees them); ties go to the
    earliest run, then the longer one. Returned as a :class:`Passage` with the same ``idx`` and
    offsets narrowed to the excerpt (``text == document[start:end]`` still holds).

    Raises InputError when no single sentence fits the budget.
    """

    sentences = split_sentences(passage.text)
    if not sentences:
        raise InputError(f"passage {passage.idx} has no sentences to excerpt")
    terms = [set(t) for t in tokenize([passage.text[s.start : s.end] for s in sentences])]
    wanted = set(tokenize([query])[0])
    best: tuple[int, int, int] | None = None  # (-query terms held, first, -length)
    for i in range(len(sentences)):
        held: set[str] = set()
        for j in range(i, len(sentences)):
            if count_tokens(passage.text[sentences[i].start : sentences[j].end]) > budget_tokens:
                break
            held |= terms[j] & wanted
            key = (-len(held), i, -(j - i))
            if best is None or key < best:
                best = key
    if best is None:
        shortest = min(count_tokens(passage.text[s.start : s.end]) for s in sentences)
        raise InputError(
            f"budget_tokens={budget_tokens} is smaller than every sentence of the "
            f"best passage ({passage.idx}; shortest sentence {shortest} tokens): "
            "raise the retrieval budget"
        )
    first, last = best[1], best[1] - best[2]
    lo, hi = sentences[first].start, sentences[last].end
    text = passage.text[lo:hi]
    return Passage(
        idx=passage.idx,
        start=passage.start + lo,
        end=passage.start + hi,
        text=text,
        n_tokens=count_tokens(text),
    )


def format_context(passages: list[Passage]) -> str:
    """Passages as one context block: a ``[Passage N]`` header per passage, separated by a rule.

    The order given is kept (``retrieve`` already returns book order).
    """
    return PASSAGE_SEPARATOR.join(f"[Passage {p.idx}]\n{p.text}" for p in passages)
