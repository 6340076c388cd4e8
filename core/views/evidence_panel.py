"""The evidence beside a decision: the passages most relevant to a question and its answers.

On Side by side and Disputes the annotator sees, next to the answers, the BM25 best passages of the
question's documents for the query *question + every answer shown* (:func:`evidence_passages`),
with the words that matched highlighted through the one escaping path
(:func:`core.views.text.highlight_markdown`). :func:`passage_window` reads further: a passage with
its neighbours, for next / previous browsing of the full text.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, TypedDict

from core.corpus.retrieval import cache_info, get_index, tokenize
from core.errors import InputError
from core.store.documents import passage_key
from core.views.review import searchable_documents
from core.views.text import highlight_markdown

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from core.store.engine import Database

_WORD = re.compile(r"\w+", re.UNICODE)


class EvidenceHit(TypedDict):
    """One of the best passages for a question: where it is, its score and the matched words."""

    document_id: str
    document: str
    idx: int
    position: int
    score: float
    n_passages: int
    matched: list[str]
    markdown: str


class WindowPassage(TypedDict):
    """A passage of a window; ``centre``: the one the window was opened on."""

    idx: int
    position: int
    centre: bool
    markdown: str


class PassageWindow(TypedDict):
    """Passages around a position; ``first`` / ``last``: the window touches an end of the text."""

    passages: list[WindowPassage]
    first: bool
    last: bool
    n_passages: int


def evidence_query(question: str, answers: Sequence[str]) -> str:
    """The BM25 query: the question followed by every answer (empty parts dropped)."""
    return "\n".join(t.strip() for t in [question, *answers] if t and t.strip())


def matched_words(text: str, terms: set[str]) -> list[str]:
    """The distinct words of ``text`` whose analysed form (stemmed, as the index sees it) is one
    of the index terms ``terms``; stop-words never match."""
    if not terms:
        return []
    words = list(dict.fromkeys(w for w in _WORD.findall(text) if len(w) > 1))
    if not words:
        return []
    analysed = tokenize(words)
    return [w for w, toks in zip(words, analysed) if toks and toks[0] in terms]


def evidence_passages(
    db: Database,
    documents: Sequence[tuple[str, str]],
    question: str,
    answers: Sequence[str],
    k: int = 3,
) -> list[EvidenceHit]:
    """The ``k`` passages (over ``documents``, the question's searchable documents as
    :func:`~core.views.review.searchable_documents` gives them) that score best for
    :func:`evidence_query`, best first: ``{document_id, document, idx, score, n_passages,
    markdown, matched}`` (``markdown`` escaped, matched words in bold)."""
    query = evidence_query(question, answers)
    if not query:
        return []
    hits = []
    for doc_id, label in documents:
        try:
            index = get_index(db, doc_id)
        except InputError:
            continue
        terms = set(index.bm25.terms(query))
        for i, score in index.bm25.top(query, k):
            hits.append((score, doc_id, label, index, i, terms))
    hits.sort(key=lambda h: (-h[0], h[1], h[4]))
    out: list[EvidenceHit] = []
    for score, doc_id, label, index, i, terms in hits[:k]:
        p = index.passages[i]
        words = matched_words(p.text, terms)
        out.append(
            {
                "document_id": doc_id,
                "document": label,
                "idx": p.idx,
                "position": i,
                "score": round(score, 2),
                "n_passages": len(index.passages),
                "matched": words,
                "markdown": highlight_markdown(p.text, words),
            }
        )
    return out


def passage_window(
    db: Database, doc_id: str, position: int, query: str = "", radius: int = 1
) -> PassageWindow:
    """Passages ``position - radius .. position + radius`` of ``doc_id`` (clamped to the book),
    each ``{idx, position, markdown, centre}`` with the words matching ``query`` in bold, and
    ``first`` / ``last`` telling whether the window touches either end of the text."""
    index = get_index(db, doc_id)
    n = len(index.passages)
    if not 0 <= position < n:
        raise InputError(f"passage position {position} is outside 0..{n - 1}")
    terms = set(index.bm25.terms(query)) if query else set()
    lo, hi = max(0, position - radius), min(n - 1, position + radius)
    out: list[WindowPassage] = []
    for i in range(lo, hi + 1):
        p = index.passages[i]
        out.append(
            {
                "idx": p.idx,
                "position": i,
                "centre": i == position,
                "markdown": highlight_markdown(p.text, matched_words(p.text, terms)),
            }
        )
    return {"passages": out, "first": lo == 0, "last": hi == n - 1, "n_passages": n}


def warm_indexes(db: Database, question_ids: Iterable[str]) -> int:
    """Build (into :mod:`core.corpus.retrieval`'s cache) the BM25 index of every searchable
    document of ``question_ids``, in order, while the cache's passage budget holds (so none
    built here pushes another out); return how many were built. A server's start-up warm-up
    runs it for the Side by side items (issue 37: an index built during a label took 0.3-1 s of
    the server's CPU, the first time a document's item was shown)."""
    built, seen = 0, set()
    for question_id in question_ids:
        for doc_id, _ in searchable_documents(db, question_id):
            if doc_id in seen:
                continue
            seen.add(doc_id)
            info, found = cache_info(), passage_key(db, doc_id)
            room = info["passages"] + (found[1] if found else 0) <= info["max_passages"]
            if info["size"] >= info["max_size"] and not room:
                return built
            before = info["size"]
            try:
                get_index(db, doc_id)
            except InputError:  # no passages: nothing to search
                continue
            built += cache_info()["size"] > before
    return built
