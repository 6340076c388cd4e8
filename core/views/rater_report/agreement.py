"""The report's agreement section: the auto-rater against leave-one-out gold (on the same
(person, item) pairs the people are scored on: :func:`core.views.gold.loo_gold_pairs`) and against each person, beside
the people's agreement among themselves (the ceiling), and by question type or document.

Cohen's kappa with a 95% large-sample interval (none under 20 items) (:func:`core.views.gold.kappa_row`);
percent agreement with a 95% Wilson interval. Anonymous slots get no per-slot kappa: the
rater is compared with the crowd's aggregate verdict (in the order shown,
:func:`core.views.agreement_view.auto_vs_crowd`) and the ceiling is the slots' Fleiss' kappa and
Krippendorff's alpha (:func:`core.views.agreement_view.slot_agreement`).
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import combinations
from typing import TYPE_CHECKING, Any

from core.annotation.pairwise import split_pair_key
from core.corpus.evaluation_ratings import slot_group
from core.stats.significance import wilson_ci
from core.store.judgments import RaterKind
from core.store.questions import Question, questions_by_id
from core.views.agreement_view import auto_vs_crowd, slot_agreement
from core.views.gold import K, KappaRow, gold_agreement, kappa_row, loo_gold_pairs
from core.views.rater_report.labels import TASK, majority

if TYPE_CHECKING:
    from core.store.engine import Database


class Comparison(KappaRow):
    """A :class:`KappaRow` with the percent agreement and its 95% Wilson interval."""

    agreement: float | None
    agreement_low: float | None
    agreement_high: float | None


def compare(
    a: Mapping[K, str], b: Mapping[K, str], n_boot: int, seed: int, pooled: bool = False
) -> Comparison:
    """Kappa (:func:`kappa_row`) and percent agreement with its Wilson interval over the shared
    items of two label maps."""
    shared = set(a) & set(b)
    same = sum(a[i] == b[i] for i in shared)
    row: Comparison = {
        **kappa_row(a, b, n_boot, seed, pooled=pooled),
        "agreement": same / len(shared) if shared else None,
        "agreement_low": None,
        "agreement_high": None,
    }
    if shared:
        ci = wilson_ci(same, len(shared))
        row["agreement_low"], row["agreement_high"] = ci.low, ci.high
    return row


def _group_of(question: Question | None) -> tuple[str, str]:
    """(grouping, group) of a question: its type, else its metadata category, else its document."""
    if question is not None and question.qtype:
        return "question type", question.qtype
    category = question.metadata.get("category") if question is not None else None
    if category:
        return "question category", str(category)
    return "document", str((question.document_id if question else None) or "(none)")


def by_group(
    db: Database,
    mine: Mapping[str, str],
    reference: Mapping[str, str],
    n_boot: int,
    seed: int,
) -> dict[str, Any]:
    """The rater against the people's majority label, per question type (or category, or
    document): ``{"grouping", "rows": [{"group", **compare}]}``."""
    shared = sorted(set(mine) & set(reference))
    qids = sorted({split_pair_key(k)[0] for k in shared})
    meta = questions_by_id(db, qids)
    groups: dict[str, list[str]] = {}
    grouping = "document"
    for key in shared:
        grouping, group = _group_of(meta.get(split_pair_key(key)[0]))
        groups.setdefault(group, []).append(key)
    rows = []
    for group, keys in sorted(groups.items()):
        part = {k: mine[k] for k in keys}
        rows.append({"group": group, **compare(part, reference, n_boot, seed)})
    return {"grouping": grouping, "rows": rows}


def people_ceiling(
    people: Mapping[str, Mapping[str, str]], n_boot: int, seed: int
) -> list[dict[str, Any]]:
    """Cohen's kappa of every pair of people over the items both labelled."""
    return [
        {"a": a, "b": b, **compare(people[a], people[b], n_boot, seed)}
        for a, b in combinations(sorted(people), 2)
    ]


def slot_ceiling(db: Database, slots: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Fleiss' kappa and Krippendorff's alpha of each group of anonymous slots."""
    prefixes = sorted({g for s in slots if (g := slot_group(s)) is not None})
    return [slot_agreement(db, f"human:{p}") for p in prefixes]


def auto_gold_rows(db: Database) -> dict[str, dict[str, Any]]:
    """The auto-raters' rows of the Agreement page's table (:func:`core.views.gold.gold_agreement`)
    by rater: the rater's kappa against leave-one-out gold and ``people_kappa``, the people's
    kappa on exactly the same (person, item) pairs."""
    table = gold_agreement(db, TASK)
    return {
        str(r["rater"]): {str(k): v for k, v in r.items()}
        for r in table.to_dict("records")
        if r["kind"] == RaterKind.AUTO
    }


def agreement_section(
    db: Database,
    rater: str,
    mine: Mapping[str, str],
    humans: Mapping[str, Mapping[str, str]],
    labels: Mapping[str, Any],
    slots_used: bool,
    n_boot: int = 500,
    seed: int = 0,
    gold_rows: Mapping[str, Mapping[str, Any]] | None = None,
) -> dict[str, Any]:
    """Gold (beside it ``people_kappa``, the people's kappa against the same leave-one-out golds
    on the same pairs, from ``gold_rows``: :func:`auto_gold_rows`, computed here when not given), each
    person (or the crowd aggregates, for slots), the ceiling, by group."""
    rows = auto_gold_rows(db) if gold_rows is None else gold_rows
    people_kappa = rows.get(rater, {}).get("people_kappa")
    pairs = loo_gold_pairs(db, TASK)
    mine_pairs = {(p, i): mine[i] for (p, i) in pairs if i in mine}
    gold = {k: pairs[k] for k in mine_pairs}
    people = labels["humans"]["person"]
    out: dict[str, Any] = {
        "gold": {
            "gold_items": len({i for _, i in pairs}),
            **compare(mine_pairs, gold, n_boot, seed, pooled=True),
            "people_kappa": None if people_kappa != people_kappa else people_kappa,
        },
        "people": [
            {"name": name, **compare(mine, people[name], n_boot, seed)} for name in sorted(people)
        ],
        "ceiling": people_ceiling(people, n_boot, seed),
        "crowd": [],
        "slot_ceiling": [],
    }
    if slots_used:
        for name in sorted(labels["humans"]["aggregate"]):
            vs = auto_vs_crowd(db, rater, f"human:{name}", seed=seed, n_boot=n_boot)
            out["crowd"].append(
                {"name": name, "with_ties": vs["with_ties"], "without_ties": vs["without_ties"]}
            )
        out["slot_ceiling"] = slot_ceiling(db, labels["humans"]["slot"])
    out["by_group"] = by_group(db, mine, majority(humans), n_boot, seed)
    return out
