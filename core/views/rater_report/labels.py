"""The side-by-side labels a rater-validation report compares: the auto-rater's, each person's,
the anonymous slots' and the crowd aggregates', all on the canonical scale of
:mod:`core.annotation.label_tasks.side_by_side` (``first``, ``second``, ``Equal``, ``None`` of
the sorted pair).

Human raters fall in three groups: *people* (signed-in annotators, or any named human),
*slots* (``human:NAME#k``, anonymous positions of an imported crowd: not people) and
*aggregates* (labels derived from other humans', e.g. PRD's ``crowd-majority``:
:data:`core.views.rater_validation.DERIVED_RATERS`; a vote of several people, not one person).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import TYPE_CHECKING

from core.annotation.label_tasks.side_by_side import auto_pair_labels
from core.annotation.task_names import SIDE_BY_SIDE_TASK
from core.annotation.tasks import human_labels
from core.corpus.evaluation_layouts import majority as vote_majority
from core.corpus.evaluation_ratings import is_slot
from core.store.judgments import JudgmentStatus
from core.views.rater_report.records import ReportLabels
from core.views.rater_validation import DERIVED_RATERS

if TYPE_CHECKING:
    from core.store.engine import Database

TASK = SIDE_BY_SIDE_TASK


def human_group(name: str) -> str:
    """``slot``, ``aggregate`` or ``person`` for an annotator name (without ``human:``)."""
    if is_slot(f"human:{name}"):
        return "slot"
    if f"human:{name}" in DERIVED_RATERS:
        return "aggregate"
    return "person"


def report_labels(db: Database) -> ReportLabels:
    """Everything the report's sections read once: ``auto`` (rater -> item -> label),
    ``humans`` (group -> name -> item -> label), ``rows`` (the effective human label rows, for
    timestamps and rationales)."""
    rows = [r for r in human_labels(db, TASK) if r["status"] == JudgmentStatus.OK]
    humans: dict[str, dict[str, dict[str, str]]] = {"person": {}, "slot": {}, "aggregate": {}}
    for r in rows:
        if r["label"] is None:  # never for an "ok" row: a skip has status "skipped"
            continue
        humans[human_group(r["annotator"])].setdefault(r["annotator"], {})[r["item"]] = r["label"]
    return {"auto": auto_pair_labels(db), "humans": humans, "rows": rows}


def compared_humans(labels: ReportLabels, include_slots: bool) -> dict[str, dict[str, str]]:
    """The human label maps a rater is compared with: the people, and the slots too when
    ``include_slots`` (decided by :func:`core.views.rater_validation.choose_annotators`)."""
    chosen = dict(labels["humans"]["person"])
    if include_slots:
        chosen.update(labels["humans"]["slot"])
    return chosen


def majority(humans: Mapping[str, Mapping[str, str]]) -> dict[str, str]:
    """Item -> the label more than half of its (at least two) human labels give
    (:func:`core.corpus.evaluation_layouts.majority`, the rule the PRD import uses); items
    without such a label are left out."""
    by_item: dict[str, list[str]] = {}
    for labels in humans.values():
        for item, label in labels.items():
            by_item.setdefault(item, []).append(label)
    found = {item: vote_majority(given) for item, given in by_item.items()}
    return {item: label for item, label in found.items() if label is not None}


def stable_sample(keys: list[str], k: int, seed: int = 0) -> list[str]:
    """``k`` of ``keys``, chosen by the sha256 of ``seed|key`` (the same items on every run)."""

    def rank(key: str) -> str:
        return hashlib.sha256(f"{seed}|{key}".encode()).hexdigest()

    return sorted(keys, key=rank)[:k]
