"""Distractor articles for XRAG pairs: BM25 over the English article pool, by date, de-duplicated.

For a pair (A, B), candidates are English articles published at least ``GAP_DAYS`` days before
the earlier of A and B. They are ranked by BM25 (bm25s, Lucene variant, English stemming, the
analyser of :mod:`core.corpus.retrieval`) against the titles and texts of A and B. A candidate is a
near-duplicate, and skipped, when the Jaccard similarity of its word 5-shingles with A, B or an
already chosen distractor is at least ``NEAR_DUP``. The top ``N_DISTRACTORS`` (6) are the
monolingual distractors (language 'en'); for each language X, the multilingual setting uses the
top three English ones plus the X versions of the next-ranked candidates that have one (three).
"""

from __future__ import annotations

import re
from collections.abc import Hashable
from collections.abc import Set as AbstractSet
from datetime import date, timedelta
from typing import TYPE_CHECKING, Any

import numpy as np

from core.corpus.bm25 import BM25Index
from core.corpus.retrieval import tokenize
from core.errors import InputError
from core.store.connection import transaction
from core.store.xrag import add_distractors, delete_distractors, has_distractors, pair_distractors
from core.xrag.articles import EnglishArticle, english_articles, get_pairs, version_of

if TYPE_CHECKING:
    from core.store.engine import Database

GAP_DAYS = 14
N_DISTRACTORS = 6
PER_LANGUAGE = 3
NEAR_DUP = 0.5
SHINGLE = 5
_WORD = re.compile(r"\w+", re.U)


def shingles(text: str, k: int = SHINGLE) -> set[tuple[str, ...]]:
    """Word ``k``-shingles of the lower-cased text (the whole text if shorter than ``k``)."""
    words = [w.lower() for w in _WORD.findall(text)]
    if len(words) < k:
        return {tuple(words)} if words else set()
    return {tuple(words[i : i + k]) for i in range(len(words) - k + 1)}


def jaccard(a: AbstractSet[Hashable], b: AbstractSet[Hashable]) -> float:
    """``|a & b| / |a | b|`` (0 for two empty sets)."""
    return len(a & b) / len(a | b) if a or b else 0.0


class ArticlePool:
    """A BM25 index over English articles (one index; date filters applied per query)."""

    def __init__(self, articles: list[EnglishArticle]) -> None:
        self.articles = articles
        self.index = BM25Index(
            [f"{a['title']}\n{a['text']}" for a in articles], tokenizer=tokenize, unique_terms=True
        )

    def scores(self, query: str) -> np.ndarray:
        """BM25 score of every article for ``query`` (zeros when no query term is known)."""
        return np.asarray(self.index.scores(query), dtype=float)


def rank_distractors(
    pool: ArticlePool,
    a: EnglishArticle,
    b: EnglishArticle,
    *,
    gap_days: int = GAP_DAYS,
    near_dup: float = NEAR_DUP,
) -> list[tuple[EnglishArticle, float]]:
    """Eligible candidates for the pair (a, b), best first, near-duplicates removed."""
    cutoff: date = min(a["published"], b["published"]) - timedelta(days=gap_days)
    scores = pool.scores(f"{a['title']} {a['text']} {b['title']} {b['text']}")
    order = sorted(range(len(pool.articles)), key=lambda i: (-scores[i], pool.articles[i]["id"]))
    kept: list[tuple[EnglishArticle, float]] = []
    seen = [shingles(a["text"]), shingles(b["text"])]
    for i in order:
        cand = pool.articles[i]
        if cand["id"] in (a["id"], b["id"]) or cand["published"] > cutoff or scores[i] <= 0:
            continue
        sh = shingles(cand["text"])
        if any(jaccard(sh, s) >= near_dup for s in seen):
            continue
        seen.append(sh)
        kept.append((cand, float(scores[i])))
    return kept


def select_distractors(
    db: Database,
    *,
    languages: tuple[str, ...] = (),
    n: int = N_DISTRACTORS,
    per_language: int = PER_LANGUAGE,
    gap_days: int = GAP_DAYS,
    replace: bool = False,
) -> dict[str, int]:
    """Choose and store distractors for every active pair (pairs already done are kept).

    Raises InputError when a pair has fewer than ``n`` eligible English candidates or, for a
    language in ``languages``, fewer than ``per_language`` candidates with a version in it.
    """
    articles = english_articles(db)
    by_id = {x["id"]: x for x in articles}
    pool = ArticlePool(articles)
    stats = {"pairs": 0, "skipped": 0, "rows": 0}
    with transaction(db):
        for pair in get_pairs(db):
            if has_distractors(db, pair["id"]):
                if not replace:
                    stats["skipped"] += 1
                    continue
                delete_distractors(db, pair["id"])
            ranked = rank_distractors(
                pool, by_id[pair["article_a"]], by_id[pair["article_b"]], gap_days=gap_days
            )
            if len(ranked) < n:
                raise InputError(
                    f"pair {pair['id']}: only {len(ranked)} articles published "
                    f"{gap_days}+ days earlier are related; need {n}"
                )
            out = [("en", r, c["id"], c["id"], s) for r, (c, s) in enumerate(ranked[:n], 1)]
            for lang in languages:
                chosen = []
                for cand, score in ranked[per_language:]:
                    vid = version_of(db, cand["id"], lang)
                    if vid:
                        chosen.append((vid, cand["id"], score))
                    if len(chosen) == per_language:
                        break
                if len(chosen) < per_language:
                    raise InputError(
                        f"pair {pair['id']}: fewer than {per_language} distractor "
                        f"candidates have a {lang!r} version"
                    )
                out += [(lang, r, vid, eid, s) for r, (vid, eid, s) in enumerate(chosen, 1)]
            add_distractors(
                db,
                (
                    {
                        "pair_id": pair["id"],
                        "language": lang,
                        "rank": r,
                        "document_id": d,
                        "english_id": e,
                        "score": s,
                    }
                    for lang, r, d, e, s in out
                ),
            )
            stats["pairs"] += 1
            stats["rows"] += len(out)
    return stats


def distractors(db: Database, pair_id: int, language: str = "en") -> list[dict[str, Any]]:
    """Stored distractors of a pair for ``language`` (rank order)."""
    return pair_distractors(db, pair_id, language)
