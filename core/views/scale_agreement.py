"""Agreement on a task's own scale (issue 32, item 3; read-only): an auto-rater against each
person and against leave-one-out gold, the people among themselves, and the labels' prevalence.

Labels are the ones :func:`core.views.rater_validation.validation_labels` reads (the same people
the alt-test compares with). The rater's label on an item is its one label there (an item where
its labels differ, e.g. both presentation orders judged differently, is left out).

- every scale: percent agreement, Cohen's kappa and Gwet's AC1 (with the kappa-paradox sentence
  of :func:`core.stats.agreement_scales.kappa_paradox` when one label dominates);
- ordinal: also weighted (quadratic) kappa, and Krippendorff's alpha with the ordinal and
  interval metrics beside the nominal one; label sets count as one label each (exact match);
- leave-one-out gold of a person's item: the label more than half of the *other* people gave,
  and at least two of them (the rule of :mod:`core.annotation.gold`); the rater is scored on
  exactly the (person, item) pairs the people are.

Items are taken in sorted order, so every figure is the same for the same labels in any order.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Hashable, Mapping, Sequence
from itertools import combinations
from typing import TYPE_CHECKING

from core.stats.agreement import cohen_kappa
from core.stats.agreement_scales import (
    gwet_ac1,
    kappa_paradox,
    krippendorff_alpha,
    prevalence,
    weighted_kappa,
)
from core.views.rater_validation import auto_raters, choose_annotators, validation_labels
from core.views.scale_records import (
    AmongPeople,
    PairFigures,
    PeoplePair,
    PersonFigures,
    ScaleAgreement,
    ScaleRow,
    TaskAgreement,
    TaskRater,
)
from core.views.shared_reads import shared, shared_reads
from core.views.task_scales import BUILT_IN, TaskScale, task_scale, validation_tasks

if TYPE_CHECKING:
    from core.store.engine import Database

#: Fewest others whose majority label is leave-one-out gold (as core.annotation.gold).
MIN_GOLD_VOTERS = 2


def _finite(x: float) -> float | None:
    return x if math.isfinite(x) else None


def scale_labels(ts: TaskScale, seen: Sequence[str]) -> list[str]:
    """The scale's labels, then any other label seen (label sets: every set seen), sorted."""
    return [*ts.labels, *sorted(set(seen) - set(ts.labels))]


def pair_figures(
    a: Sequence[str], b: Sequence[str], ts: TaskScale, labels: Sequence[str]
) -> PairFigures:
    """``n``, ``agreement``, ``kappa``, ``weighted_kappa`` (ordinal only), ``ac1`` and, when
    kappa is low at high agreement, ``why`` (the kappa-paradox sentence)."""
    n = len(a)
    if not n:
        return {"n": 0, "agreement": None, "kappa": None, "weighted_kappa": None, "ac1": None}
    agreement = sum(x == y for x, y in zip(a, b, strict=True)) / n
    kappa = cohen_kappa(list(a), list(b), list(labels))
    ac1 = gwet_ac1(a, b, labels) if len(labels) > 1 else float("nan")
    out: PairFigures = {
        "n": n,
        "agreement": agreement,
        "kappa": _finite(kappa),
        "weighted_kappa": _finite(weighted_kappa(a, b, labels)) if ts.ordered else None,
        "ac1": _finite(ac1),
    }
    why = kappa_paradox(agreement, kappa, ac1, prevalence([*a, *b], labels))
    if why:
        out["why"] = why
    return out


def one_label(labels: Sequence[str]) -> str | None:
    """The rater's label on an item: its only label, or the one all its labels agree on."""
    return labels[0] if labels and len(set(labels)) == 1 else None


def loo_gold(people: Mapping[str, Mapping[Hashable, str]]) -> dict[tuple[str, Hashable], str]:
    """(person, item) -> the majority label of the other people (more than half of them and at
    least :data:`MIN_GOLD_VOTERS`), for every item the person labelled."""
    by_item: dict[Hashable, dict[str, str]] = {}
    for name, labels in people.items():
        for item, label in labels.items():
            by_item.setdefault(item, {})[name] = label
    out = {}
    for item in sorted(by_item, key=repr):
        given = by_item[item]
        for name in sorted(given):
            others = [v for k, v in given.items() if k != name]
            if len(others) < MIN_GOLD_VOTERS:
                continue
            label, votes = Counter(sorted(others)).most_common(1)[0]
            if votes * 2 > len(others):
                out[name, item] = label
    return out


def scale_agreement(
    db: Database, rater: str, task: str, include_slots: bool | None = None
) -> ScaleAgreement:
    """Agreement of ``rater`` on ``task``'s scale (module docstring): ``{"task", "scale",
    "labels", "prevalence": {"people", "rater"}, "people": [{"name", **figures}], "gold":
    {"pairs", "items", "rater", "people"}, "among_people": {"pairs": [...], "alpha": {level:
    value}}}``; figures as :func:`pair_figures`."""
    ts = task_scale(db, task)
    who = choose_annotators(db, rater, task, include_slots)
    humans, mine_all = validation_labels(db, rater, task, who.slots)
    # the people's labels do not depend on the (auto-)rater: what only they decide is shared
    # by every rater of a report (core.views.shared_reads)
    key = ("scale_people", id(db), task, who.slots, "" if rater.startswith("auto:") else rater)
    people = shared(
        key,
        lambda: {n: {i: v[0] for i, v in sorted(m.items(), key=repr)} for n, m in humans.items()},
    )
    mine = {i: x for i, v in sorted(mine_all.items(), key=repr) if (x := one_label(v))}
    seen = [*mine.values(), *(v for m in people.values() for v in m.values())]
    labels = scale_labels(ts, seen)
    per_person: list[PersonFigures] = []
    for name in sorted(people):
        common = [i for i in people[name] if i in mine]
        figures = pair_figures(
            [mine[i] for i in common], [people[name][i] for i in common], ts, labels
        )
        per_person.append({"name": name, **figures})
    gold = shared((*key, "gold"), lambda: loo_gold(people))
    pairs = sorted((k for k in gold if k[1] in mine), key=repr)
    every = shared((*key, "every"), lambda: sorted(gold, key=repr))
    among_people = shared((*key, tuple(labels), ts), lambda: _among(people, ts, labels))
    return {
        "task": ts.task,
        "scale": ts.scale,
        "labels": labels,
        "annotators_text": who.sentence,
        "prevalence": {
            "people": among_people["prevalence"],
            "rater": prevalence(mine.values(), labels),
        },
        "people": per_person,
        "gold": {
            "pairs": len(pairs),
            "items": len({i for _, i in every}),
            "rater": pair_figures(
                [mine[k[1]] for k in pairs], [gold[k] for k in pairs], ts, labels
            ),
            "people": pair_figures(
                [people[k[0]][k[1]] for k in pairs], [gold[k] for k in pairs], ts, labels
            ),
        },
        "among_people": {"pairs": among_people["pairs"], "alpha": among_people["alpha"]},
    }


class _Among(AmongPeople):
    prevalence: dict[str, float]


def _among(
    people: Mapping[str, Mapping[Hashable, str]], ts: TaskScale, labels: Sequence[str]
) -> _Among:
    """What the people's labels alone give: their prevalence, each pair's figures and
    Krippendorff's alpha among them (the ordinal and interval metrics too on an ordered scale)."""
    units: dict[Hashable, list[str]] = {}
    for labels_of in people.values():
        for item, label in labels_of.items():
            units.setdefault(item, []).append(label)
    levels = ("nominal", "ordinal", "interval") if ts.ordered else ("nominal",)
    ordered_units = [sorted(units[i]) for i in sorted(units, key=repr)]
    return {
        "prevalence": prevalence((v for m in people.values() for v in m.values()), labels),
        "pairs": [
            _pair(a, b, pair_figures(*_shared(people[a], people[b]), ts, labels))
            for a, b in combinations(sorted(people), 2)
        ],
        "alpha": {
            level: _finite(krippendorff_alpha(ordered_units, labels, level)) for level in levels
        },
    }


def _pair(a: str, b: str, figures: PairFigures) -> PeoplePair:
    return {"a": a, "b": b, **figures}


def _shared(a: Mapping[Hashable, str], b: Mapping[Hashable, str]) -> tuple[list[str], list[str]]:
    """The two people's labels on the items both labelled, in item order."""
    items = [i for i in a if i in b]
    return [a[i] for i in items], [b[i] for i in items]


def _row(compared: str, f: PairFigures, ordered: bool) -> ScaleRow:
    row: ScaleRow = {
        "compared with": compared,
        "items": f["n"],
        "agreement": f["agreement"],
        "Cohen's kappa": f["kappa"],
        "Gwet's AC1": f["ac1"],
    }
    if ordered:
        row["weighted kappa (quadratic)"] = f["weighted_kappa"]
    return row


def scale_rows(sa: ScaleAgreement) -> list[ScaleRow]:
    """The agreement table of :func:`scale_agreement`'s result, one row per comparison: the
    rater against leave-one-out gold, the people against the same gold, the rater against each
    person, each pair of people (the ceiling)."""
    ordered = sa["scale"] == "ordinal"
    rows = [
        _row("rater vs leave-one-out gold", sa["gold"]["rater"], ordered),
        _row("people vs the same gold", sa["gold"]["people"], ordered),
    ]
    rows += [_row(f"rater vs {p['name']}", p, ordered) for p in sa["people"]]
    rows += [
        _row(f"{p['a']} vs {p['b']} (ceiling)", p, ordered) for p in sa["among_people"]["pairs"]
    ]
    return rows


def scale_notes(sa: ScaleAgreement) -> list[str]:
    """Sentences under the table: the labels' prevalence, Krippendorff's alpha among the people
    and every kappa-paradox explanation."""

    def shares(found: Mapping[str, float]) -> str:
        return ", ".join(f"{label} {share:.0%}" for label, share in found.items()) or "none"

    alpha = ", ".join(
        f"{level} {'-' if value is None else f'{value:.3f}'}"
        for level, value in sa["among_people"]["alpha"].items()
    )
    notes = [
        f"Labels ({sa['scale']}): people {shares(sa['prevalence']['people'])}; rater "
        f"{shares(sa['prevalence']['rater'])}.",
        f"Krippendorff's alpha among the people: {alpha}.",
    ]
    seen: set[str] = set()
    for f in [sa["gold"]["rater"], sa["gold"]["people"], *sa["people"]]:
        why = f.get("why")
        if why and why not in seen:
            seen.add(why)
            notes.append(why)
    return notes


def task_agreement(db: Database, task: str) -> TaskAgreement:
    """The Agreement page's view of ``task`` on its scale: for each auto-rater with labels in it,
    the rows of :func:`scale_rows` and the sentences of :func:`scale_notes`."""
    ts = task_scale(db, task)
    raters: list[TaskRater] = []
    with shared_reads():  # the rows and the people's figures read once for every rater
        sas = [(rater, scale_agreement(db, rater, task)) for rater in auto_raters(db, task)]
    for rater, sa in sas:
        raters.append(
            {
                "rater": rater,
                "annotators_text": sa["annotators_text"],
                "rows": scale_rows(sa),
                "notes": scale_notes(sa),
            }
        )
    return {"task": task, "scale": ts.scale, "labels": list(ts.labels), "raters": raters}


def imported_tasks(db: Database) -> list[str]:
    """The tasks imported on their own scale (not the built-in side-by-side and yes/no)."""
    return [t for t in validation_tasks(db) if t not in BUILT_IN]
