"""Agreement with gold: each person, each group of anonymous slots and each auto-rater against
gold formed without the person being scored (leave-one-out, :mod:`core.annotation.gold`).

A person ``p`` is scored on their items against ``gold_for(..., leave_out=...)`` without ``p``
(and, for anonymous slots and a majority derived from them, without each other:
:func:`core.annotation.gold.leave_out_sets`). Anonymous slots
(``human:NAME#k``) are not people: their (slot, item) pairs are pooled into one row per slot
group. An auto-rater is scored on the very (person, item) pairs the people were scored on, each
against that person's leave-one-out gold, and ``people_kappa`` is the people's kappa on exactly
those pairs: the two figures compare like with like. Agreement is Cohen's kappa with its
large-sample interval (:func:`core.stats.agreement.cohen_kappa_ci`; pooled rows widen it by the
items' design effect, :func:`core.stats.agreement.cohen_kappa_ci_clustered`); below
:data:`MIN_ITEMS` shared items it says "too few items", and below :data:`KAPPA_CI_MIN_ITEMS` it
gives no interval.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from itertools import combinations
from typing import TYPE_CHECKING, NotRequired, TypedDict, TypeVar

import pandas as pd

from core.annotation.gold import (
    derived_raters,
    gold_for,
    gold_inputs,
    gold_labels,
    leave_out_sets,
    person_labels,
)
from core.annotation.task_names import SIDE_BY_SIDE_TASK
from core.annotation.task_registry import task_named
from core.corpus.evaluation_ratings import slot_group
from core.stats.agreement import KAPPA_CI_MIN_ITEMS, cohen_kappa_ci, cohen_kappa_ci_clustered

if TYPE_CHECKING:
    from core.store.engine import Database

MIN_ITEMS = 5
COLUMNS = ["rater", "kind", "items", "kappa", "interval", "note", "people_kappa"]
#: The page's one sentence on how gold is formed for each row.
LEAVE_ONE_OUT = (
    "Each person is scored against gold formed without their own label (the adjudicated label, "
    "else the gold sources' label, else the label of more than half, and at least two, of the "
    "other people); each "
    "auto-rater against those same golds on the same (person, item) pairs, with the people's "
    "kappa on exactly those pairs beside it (people_kappa)."
)


#: A label map's key: an item, or ``(rater, item)`` for pooled rows.
K = TypeVar("K", str, tuple[str, str])


class KappaRow(TypedDict):
    """Cohen's kappa of two label maps as a table row (:func:`kappa_row`)."""

    items: int
    kappa: float | None
    interval: str
    note: str
    people_kappa: NotRequired[float | None]


def kappa_row(
    a: Mapping[K, str],
    b: Mapping[K, str],
    n_boot: int = 1000,
    seed: int = 0,
    pooled: bool = False,
) -> KappaRow:
    """Cohen's kappa of two label maps over their shared keys: ``items``, ``kappa`` (None when
    too few items or undefined), ``interval`` (text ``[low, high]`` at 95 %, from
    :data:`KAPPA_CI_MIN_ITEMS` items on), ``note``. ``pooled``: keys are ``(rater, item)`` and
    the interval allows for one item's ratings being alike
    (:func:`core.stats.agreement.cohen_kappa_ci_clustered`); ``items`` counts distinct items."""
    shared = sorted(set(a) & set(b), key=repr)
    n_items = len({k[1] for k in shared}) if pooled else len(shared)
    row: KappaRow = {"items": n_items, "kappa": None, "interval": "", "note": ""}
    if n_items < MIN_ITEMS:
        row["note"] = f"too few items (fewer than {MIN_ITEMS} shared)"
        return row
    la, lb = [a[i] for i in shared], [b[i] for i in shared]
    if pooled:
        est = cohen_kappa_ci_clustered(la, lb, [k[1] for k in shared])
    else:
        est = cohen_kappa_ci(la, lb, n_boot, seed)
    if math.isnan(est.estimate):
        row["note"] = "undefined: both gave one and the same label throughout"
        return row
    row["kappa"] = round(est.estimate, 3)
    if not (math.isnan(est.low) or math.isnan(est.high)):
        row["interval"] = f"[{est.low:.2f}, {est.high:.2f}]"
    else:
        row["note"] = f"too few items for an interval (fewer than {KAPPA_CI_MIN_ITEMS})"
    return row


def gold_agreement(
    db: Database, task: str = SIDE_BY_SIDE_TASK, n_boot: int = 1000, seed: int = 0
) -> pd.DataFrame:
    """One row per person (kind ``human``), per group of anonymous slots (``slots``, pooled)
    and, on a task auto-raters label too (side by side), per auto-rater (``auto``): Cohen's
    kappa against leave-one-out gold with its interval, or why there is none (:data:`COLUMNS`)."""
    labels, adjudicated, sources = gold_inputs(db, task)
    derived = derived_raters(labels)
    loo = {
        p: gold_for(labels, adjudicated, sources, leave_out=out)
        for p, out in leave_out_sets(labels).items()
    }
    out: list[dict[str, object]] = []
    groups: dict[str, list[str]] = {}
    for name in sorted(labels):
        group = slot_group(name)
        if group is not None:
            groups.setdefault(group, []).append(name)
            continue
        row = kappa_row(labels[name], loo[name], n_boot, seed)
        if name in derived:
            said = f"the majority of the {derived[name]} slots: scored without them"
            row["note"] = "; ".join(filter(None, [said, row["note"]]))
        if name in sources:
            row["note"] = "; ".join(filter(None, ["a gold source", row["note"]]))
        out.append({"rater": name, "kind": "human", **row})
    for group, slots in sorted(groups.items()):
        mine = {(s, i): v for s in slots for i, v in labels[s].items()}
        gold = {(s, i): v for s in slots for i, v in loo[s].items()}
        row = kappa_row(mine, gold, n_boot, seed, pooled=True)
        n = len(set(mine) & set(gold))
        row["note"] = "; ".join(
            filter(None, [f"{len(slots)} slots pooled: {n} ratings", row["note"]])
        )
        out.append({"rater": f"{group} (slots)", "kind": "slots", **row})
    autos = task_named(task, db).auto_labels(db)  # side by side: the auto-raters' verdicts
    if autos:
        pairs = person_gold_pairs(labels, loo)
        for rater, auto in sorted(autos.items()):
            mine = {(p, i): auto[i] for (p, i) in pairs if i in auto}
            row = kappa_row(mine, pairs, n_boot, seed, pooled=True)
            people = kappa_row({k: labels[k[0]][k[1]] for k in mine}, pairs, pooled=True)
            note = f"{len(mine)} (person, item) pairs" if mine else ""
            row["note"] = "; ".join(filter(None, [note, row["note"]]))
            row["people_kappa"] = people["kappa"]
            out.append({"rater": rater, "kind": "auto", **row})
    return pd.DataFrame(out, columns=COLUMNS)


def person_gold_pairs(
    labels: Mapping[str, Mapping[str, str]], loo: Mapping[str, Mapping[str, str]]
) -> dict[tuple[str, str], str]:
    """The (person, item) pairs on which people are scored: each person's items with their
    leave-one-out gold label. An auto-rater is scored on the same pairs (its label on the item
    against that person's gold), so its figure and the people's are comparable."""
    return {(p, i): g for p, golds in loo.items() for i, g in golds.items() if i in labels[p]}


def loo_gold_pairs(db: Database, task: str = SIDE_BY_SIDE_TASK) -> dict[tuple[str, str], str]:
    """:func:`person_gold_pairs` of the store's labels of ``task``."""
    labels, adjudicated, sources = gold_inputs(db, task)
    loo = {
        p: gold_for(labels, adjudicated, sources, leave_out=out)
        for p, out in leave_out_sets(labels).items()
    }
    return person_gold_pairs(labels, loo)


def people_agreement(
    db: Database, task: str = SIDE_BY_SIDE_TASK, n_boot: int = 1000, seed: int = 0
) -> pd.DataFrame:
    """Cohen's kappa of every pair of annotators over the items both labelled
    (columns ``a``, ``b``, ``items``, ``kappa``, ``interval``, ``note``). Anonymous slots are
    not people and get no per-slot kappa (their numbers follow file order)."""
    people = {p: v for p, v in person_labels(db, task).items() if slot_group(p) is None}
    out = [
        {"a": a, "b": b, **kappa_row(people[a], people[b], n_boot, seed)}
        for a, b in combinations(sorted(people), 2)
    ]
    return pd.DataFrame(out, columns=["a", "b", "items", "kappa", "interval", "note"])


def gold_size(db: Database, task: str = SIDE_BY_SIDE_TASK) -> int:
    """How many items of ``task`` have a gold label (nobody left out)."""
    return len(gold_labels(db, task))
