"""The one English stop-word set, stemmer and BM25 index every offline text component shares.

Pure: imports only bm25s, PyStemmer, scikit-learn and numpy (nothing of the project).

* :func:`stop_words` - scikit-learn's ``ENGLISH_STOP_WORDS`` (318 words); callers that need more
  (e.g. entity clean-up) extend it explicitly.
* :func:`stemmer` - the Snowball English stemmer (PyStemmer).
* :func:`bm25s_tokenize` - bm25s's own analyser: lower-cased ``\\w\\w+`` tokens, *bm25s's* English
  stop list, stemmed (the analyser of passage retrieval and the XRAG article pool).
* :class:`BM25Index` - bm25s Lucene BM25 (``k1 = 1.5``, ``b = 0.75``) over a list of texts with an
  explicit tokenizer; ``scores(query)`` and ``top(query, k)``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import lru_cache
from typing import Protocol

import numpy as np

BM25_K1 = 1.5
BM25_B = 0.75

Tokenizer = Callable[[list[str]], list[list[str]]]


@lru_cache(maxsize=1)
def stop_words() -> frozenset[str]:
    """English stop words (scikit-learn's ``ENGLISH_STOP_WORDS``, 318 words)."""
    from sklearn.feature_extraction.text import (
        ENGLISH_STOP_WORDS,
    )

    return frozenset(ENGLISH_STOP_WORDS)


class Stemmer(Protocol):
    """The part of PyStemmer's ``Stemmer.Stemmer`` used here."""

    def stemWords(self, words: list[str]) -> list[str]: ...  # noqa: N802 (PyStemmer's name)


@lru_cache(maxsize=1)
def stemmer() -> Stemmer:
    """The Snowball English stemmer (PyStemmer, a dependency of bm25s)."""
    import Stemmer as pystemmer

    snowball: Stemmer = pystemmer.Stemmer("english")
    return snowball


def stem_content(words: Iterable[str]) -> list[str]:
    """``words`` (already lower-cased) without :func:`stop_words`, Snowball-stemmed, in order."""
    stop = stop_words()
    kept = [w for w in words if w not in stop]
    return list(stemmer().stemWords(kept)) if kept else []


def bm25s_tokenize(texts: list[str]) -> list[list[str]]:
    """bm25s's analyser: lower-cased, bm25s English stop-words removed, stemmed tokens per text."""
    import bm25s

    tokens: list[list[str]] = bm25s.tokenize(
        texts, stopwords="en", stemmer=stemmer(), return_ids=False, show_progress=False
    )
    return tokens


class BM25Index:
    """bm25s BM25 (Lucene variant, ``k1 = 1.5``, ``b = 0.75``) over ``texts`` (index i = texts[i]).

    ``tokenizer`` maps a list of texts to their token lists; it analyses both the texts and the
    queries. With ``unique_terms`` a query's known terms are de-duplicated (and sorted) before
    scoring; otherwise a repeated query term counts once per occurrence. ``tokens``, when given,
    are the texts already run through ``tokenizer`` (saves analysing them twice).
    """

    def __init__(
        self,
        texts: list[str],
        *,
        tokenizer: Tokenizer = bm25s_tokenize,
        unique_terms: bool = False,
        tokens: list[list[str]] | None = None,
    ) -> None:
        import bm25s

        self.size = len(texts)
        self.tokenizer = tokenizer
        self.unique_terms = unique_terms
        self.retriever = bm25s.BM25(k1=BM25_K1, b=BM25_B)
        if texts:
            self.retriever.index(
                tokenizer(list(texts)) if tokens is None else tokens, show_progress=False
            )

    def terms(self, query: str) -> list[str]:
        """The query's tokens that occur in the index (as scored)."""
        if not self.size:
            return []
        vocab = self.retriever.vocab_dict
        known = [t for t in self.tokenizer([query])[0] if t in vocab]
        return sorted(set(known)) if self.unique_terms else known

    def scores(self, query: str) -> np.ndarray:
        """BM25 score (float32) of every text for ``query``; zeros when no query term is known."""
        known = self.terms(query)
        if not known:
            return np.zeros(self.size, dtype=np.float32)
        return np.asarray(self.retriever.get_scores(known), dtype=np.float32)

    def top(self, query: str, k: int | None = None) -> list[tuple[int, float]]:
        """``(index, score)`` of the ``k`` best texts with a positive score (all when ``k`` is
        None), best first; ties in index order."""
        scores = self.scores(query)
        order = np.lexsort((np.arange(len(scores)), -scores))
        ranked = [(int(i), float(scores[i])) for i in order if scores[i] > 0]
        return ranked if k is None else ranked[:k]
