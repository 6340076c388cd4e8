"""Labelled tasks on their own scales for the tests (issue 32, item 3): people and an auto-rater
labelling items with categories or 1-5 stars, imported as ``import-judgments --task`` does."""

from __future__ import annotations

import numpy as np
import pandas as pd

from core.corpus.evaluations import store_evaluation
from core.corpus.label_input import read_label_judgments, resolve_scale
from core.store.database import open_db
from core.store.label_scales import label_scale

CATEGORIES = ["Food", "Location", "Service", "unknown"]
PEOPLE = ["human:ann", "human:ben", "human:cat", "human:dan"]


def label_rows(kind: str, seed: int = 3, n: int = 45) -> list[dict[str, str]]:
    """People labelling ``n`` items with some noise, and an auto-rater a little noisier."""
    rng = np.random.default_rng(seed)
    rows = []
    for q in range(n):
        if kind == "categorical":
            truth = int(rng.choice(4, p=[0.3, 0.3, 0.3, 0.1]))

            def noisy(p: float, truth: int = truth) -> str:
                return CATEGORIES[truth if rng.random() > p else int(rng.integers(4))]
        else:
            truth = int(rng.integers(1, 6))

            def noisy(p: float, truth: int = truth) -> str:
                wide = 3 if p > 0.25 else 2  # the auto-rater is off by up to 2 stars
                step = int(rng.integers(1 - wide, wide)) if rng.random() < p else 0
                return str(int(np.clip(truth + step, 1, 5)))

        for person in PEOPLE:
            if rng.random() < 0.9:
                rows.append({"question_id": f"q{q}", "verdict": noisy(0.25), "rater": person})
        rows.append({"question_id": f"q{q}", "verdict": noisy(0.3), "rater": "auto:judge"})
    return rows


def import_rows(db, tmp_path, rows, task, scale, labels=()):
    path = tmp_path / f"{task}.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    found = resolve_scale(task, scale, tuple(labels), label_scale(db, task))
    store_evaluation(db, read_label_judgments(path, found, None))


def build_scaled_db(path, folder) -> None:
    """A database with task ``aspects`` (categorical) and ``stars`` (ordinal, 1-5)."""
    db = open_db(path)
    try:
        import_rows(db, folder, label_rows("categorical"), "aspects", "categorical", CATEGORIES)
        import_rows(db, folder, label_rows("ordinal"), "stars", "ordinal")
    finally:
        db.close()
