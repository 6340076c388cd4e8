"""Agreement with gold: each annotator and each auto-rater against the items' gold labels.

Gold (:func:`core.annotation.adjudication.gold_labels`) is the adjudicated label of an item, or
the unanimous label of two or more people. Agreement is Cohen's kappa over the items both have,
with a bootstrap percentile interval (items resampled, :func:`core.stats.agreement.cohen_kappa_ci`);
below :data:`MIN_ITEMS` shared items it says "too few items" instead of a number.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from itertools import combinations
from typing import TYPE_CHECKING, Any

import pandas as pd

from core.annotation.adjudication import gold_labels
from core.annotation.tasks import auto_pair_labels, human_labels
from core.stats.agreement import cohen_kappa_ci

if TYPE_CHECKING:  # sqlite_utils imports pandas: loaded only when a database is opened
    import sqlite_utils

MIN_ITEMS = 5
COLUMNS = ["rater", "kind", "items", "kappa", "interval", "note"]


def kappa_row(
    a: Mapping[str, str], b: Mapping[str, str], n_boot: int = 1000, seed: int = 0
) -> dict[str, Any]:
    """Cohen's kappa of two label maps over their shared items: ``items``, ``kappa`` (None when
    too few items or undefined), ``interval`` (text ``[low, high]`` at 95 %), ``note``."""
    shared = sorted(set(a) & set(b))
    row: dict[str, Any] = {"items": len(shared), "kappa": None, "interval": "", "note": ""}
    if len(shared) < MIN_ITEMS:
        row["note"] = f"too few items (fewer than {MIN_ITEMS} shared)"
        return row
    est = cohen_kappa_ci([a[i] for i in shared], [b[i] for i in shared], n_boot, seed)
    if math.isnan(est.estimate):
        row["note"] = "undefined: both gave one and the same label throughout"
        return row
    row["kappa"] = round(est.estimate, 3)
    if not (math.isnan(est.low) or math.isnan(est.high)):
        row["interval"] = f"[{est.low:.2f}, {est.high:.2f}]"
    return row


def _people(db: sqlite_utils.Database, task: str) -> dict[str, dict[str, str]]:
    out: dict[str, dict[str, str]] = {}
    for r in human_labels(db, task):
        if r["status"] == "ok":
            out.setdefault(r["annotator"], {})[r["item"]] = r["label"]
    return out


def gold_agreement(
    db: sqlite_utils.Database, task: str = "side-by-side", n_boot: int = 1000, seed: int = 0
) -> pd.DataFrame:
    """One row per annotator (kind ``human``) and, on side by side, per auto-rater (``auto``):
    Cohen's kappa against gold with its interval, or why there is none (:data:`COLUMNS`)."""
    gold = gold_labels(db, task)
    raters: list[tuple[str, str, dict[str, str]]] = [
        (name, "human", labels) for name, labels in sorted(_people(db, task).items())
    ]
    if task == "side-by-side":
        raters += [(r, "auto", labels) for r, labels in sorted(auto_pair_labels(db).items())]
    out = [
        {"rater": name, "kind": kind, **kappa_row(labels, gold, n_boot, seed)}
        for name, kind, labels in raters
    ]
    return pd.DataFrame(out, columns=COLUMNS)


def people_agreement(
    db: sqlite_utils.Database, task: str = "side-by-side", n_boot: int = 1000, seed: int = 0
) -> pd.DataFrame:
    """Cohen's kappa of every pair of annotators over the items both labelled
    (columns ``a``, ``b``, ``items``, ``kappa``, ``interval``, ``note``)."""
    people = _people(db, task)
    out = [
        {"a": a, "b": b, **kappa_row(people[a], people[b], n_boot, seed)}
        for a, b in combinations(sorted(people), 2)
    ]
    return pd.DataFrame(out, columns=["a", "b", "items", "kappa", "interval", "note"])


def gold_size(db: sqlite_utils.Database, task: str = "side-by-side") -> int:
    """How many items of ``task`` have a gold label."""
    return len(gold_labels(db, task))
