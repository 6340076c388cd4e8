"""Lexical primitives of the offline EXAM graders: terms, article windows, BM25.

These are the named offline baselines of the EXAM Q/A system (no model involved):

* ``offline:mc-bm25`` - multiple choice, a sliding-window baseline (after Richardson et al.'s
  MCTest window baseline): every choice ``c`` scores
  ``s(c) = max_w [BM25(T(q), w) + mean_{t in T(c) - T(q)} BM25(t, w)]`` over one-sentence
  windows ``w`` of the article, with Lucene BM25
  ``BM25(t, w) = idf(t) tf(t,w)(k1+1) / (tf(t,w) + k1(1-b+b|w|/avgdl))``, k1 = 1.5, b = 0.75.
  The answer is ``argmax_c s(c)``; it abstains when no choice term occurs in the article or the
  best score is shared by two choices.
* ``offline:lexical-answerability`` - free text, a self-rating stand-in: the grade 0-5 is
  ``round(5 * max_w |T(q) & T(w)| / |T(q)|)`` (half up), the largest share of the question's
  content terms that one window contains.
* the lexical ground-truth rater is the project's one SQuAD token F1, maximised over the
  references (:func:`core.corpus.sentences.best_token_f1`).

``T(x)`` is the set of lower-cased, Snowball-stemmed word tokens of ``x`` minus English stop words.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass

from core.corpus.bm25 import stem_content

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"'\u201d\u2019)]*\s+|\n\s*\n")
BM25_K1 = 1.5
BM25_B = 0.75


def content_terms(text: str) -> list[str]:
    """Stemmed, lower-cased content words of ``text`` in order (the shared stop words of
    :mod:`core.corpus.bm25` removed)."""
    return stem_content(_WORD.findall(text.lower()))


def windows_text(text: str, sentences: int = 3) -> list[str]:
    """Overlapping windows of ``sentences`` consecutive sentences (stride 1) covering ``text``.

    A text with fewer sentences than the window size is one window; an empty text has none.
    """
    parts = [p.strip() for p in _SENTENCE_END.split(text) if p and p.strip()]
    if not parts:
        return []
    if len(parts) <= sentences:
        return [" ".join(parts)]
    return [" ".join(parts[i : i + sentences]) for i in range(len(parts) - sentences + 1)]


@dataclass(frozen=True)
class ArticleIndex:
    """Term statistics of one article's windows (the unit every offline grader reads)."""

    windows: list[list[str]]
    tfs: list[Counter[str]]
    df: Counter[str]
    avgdl: float

    def idf(self, term: str) -> float:
        """BM25 idf with the +1 smoothing: ``ln(1 + (N - df + 0.5) / (df + 0.5))``."""
        n = len(self.windows)
        df = self.df.get(term, 0)
        return math.log(1.0 + (n - df + 0.5) / (df + 0.5))


def index_article(text: str, sentences: int = 3) -> ArticleIndex:
    """Split an article into sentence windows and count their terms."""
    windows = [content_terms(w) for w in windows_text(text, sentences)]
    tfs = [Counter(w) for w in windows]
    df: Counter[str] = Counter()
    for tf in tfs:
        df.update(tf.keys())
    avgdl = (sum(len(w) for w in windows) / len(windows)) if windows else 0.0
    return ArticleIndex(windows=windows, tfs=tfs, df=df, avgdl=avgdl)


def bm25_window_scores(index: ArticleIndex, terms: list[str]) -> list[float]:
    """BM25 score of the term list against every window of the article."""
    out = []
    uniq = set(terms)
    for tf, words in zip(index.tfs, index.windows):
        norm = BM25_K1 * (1 - BM25_B + BM25_B * len(words) / index.avgdl) if index.avgdl else 0
        score = 0.0
        for t in uniq:
            f = tf.get(t, 0)
            if f:
                score += index.idf(t) * f * (BM25_K1 + 1) / (f + norm)
        out.append(score)
    return out


@dataclass(frozen=True)
class ChoiceDecision:
    """The multiple-choice baseline's answer: a key, or None when it abstains."""

    key: str | None
    scores: dict[str, float]
    margin: float


def choose_answer(index: ArticleIndex, question: str, choices: dict[str, str]) -> ChoiceDecision:
    """``offline:mc-bm25`` (a sliding-window baseline): the choice whose best window scores highest.

    ``s(c) = max_w [BM25(T(q), w) + mean_{t in T(c) - T(q)} BM25(t, w)]``: the window must match
    the question and the choice together, and a choice's terms are averaged so long choices gain
    nothing by length. Abstains (``key=None``) when no choice term occurs in the article or the top
    score is tied. Meant for one-sentence windows (``index_article(text, sentences=1)``).
    """
    q_terms = sorted(set(content_terms(question)))
    base = bm25_window_scores(index, q_terms) if index.windows else []
    scores: dict[str, float] = {}
    matched = False
    for key, text in choices.items():
        own = sorted(set(content_terms(text)) - set(q_terms)) or sorted(set(content_terms(text)))
        best = 0.0
        if own and index.windows:
            per_term = [bm25_window_scores(index, [t]) for t in own]
            for w in range(len(index.windows)):
                part = sum(p[w] for p in per_term) / len(own)
                if part > 0:
                    matched = True
                    best = max(best, base[w] + part)
        scores[key] = best
    ranked = sorted(scores.values(), reverse=True)
    top = ranked[0] if ranked else 0.0
    second = ranked[1] if len(ranked) > 1 else 0.0
    if not matched or top <= 0.0 or top == second:
        return ChoiceDecision(key=None, scores=scores, margin=0.0)
    key = next(k for k, v in scores.items() if v == top)
    return ChoiceDecision(key=key, scores=scores, margin=top - second)


def lexical_answerability(index: ArticleIndex, question: str) -> tuple[int, float]:
    """``offline:lexical-answerability``: grade 0-5 = round(5 * best window coverage), half up.

    Returns ``(grade, coverage)``; a question without content terms, or an empty article, grades 0.
    """
    q = set(content_terms(question))
    if not q or not index.windows:
        return 0, 0.0
    best = max(len(q & set(words)) / len(q) for words in index.windows)
    return int(math.floor(5 * best + 0.5 + 1e-9)), best
