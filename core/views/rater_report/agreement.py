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
from typing import TYPE_CHECKING

from core.annotation.pairwise import split_pair_key
from core.corpus.evaluation_ratings import slot_group
from core.stats.significance import wilson_ci
from core.store.judgments import RaterKind
from core.store.questions import Question, questions_by_id
from core.views.agreement_view import SlotAgreement, auto_vs_crowd, slot_agreement
from core.views.gold import K, gold_agreement, kappa_row, loo_gold_pairs
from core.views.rater_report.labels import TASK, majority
from core.views.rater_report.records import (
    AgreementSection,
    ByGroup,
    Comparison,
    GroupComparison,
    PeopleComparison,
    ReportLabels,
)

if TYPE_CHECKING:
    from core.store.engine import Database


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
) -> ByGroup:
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
    rows: list[GroupComparison] = []
    for group, keys in sorted(groups.items()):
        part = {k: mine[k] for k in keys}
        rows.append({"group": group, **compare(part, reference, n_boot, seed)})
    return {"grouping": grouping, "rows": rows}


def people_ceiling(
    people: Mapping[str, Mapping[str, str]], n_boot: int, seed: int
) -> list[PeopleComparison]:
    """Cohen's kappa of every pair of people over the items both labelled."""
    return [
        {"a": a, "b": b, **compare(people[a], people[b], n_boot, seed)}
        for a, b in combinations(sorted(people), 2)
    ]


def slot_ceiling(db: Database, slots: Mapping[str, object]) -> list[SlotAgreement]:
    """Fleiss' kappa and Krippendorff's alpha of each group of anonymous slots."""
    prefixes = sorted({g for s in slots if (g := slot_group(s)) is not None})
    return [slot_agreement(db, f"human:{p}") for p in prefixes]


def auto_people_kappas(db: Database) -> dict[str, float | None]:
    """Auto-rater -> ``people_kappa`` of its row of the Agreement page's table
    (:func:`core.views.gold.gold_agreement`): the people's kappa against leave-one-out gold on
    exactly the (person, item) pairs the rater is scored on (None when there is none)."""
    table = gold_agreement(db, TASK)
    found = {
        str(r["rater"]): r.get("people_kappa")
        for r in table.to_dict("records")
        if r["kind"] == RaterKind.AUTO
    }
    return {k: None if v is None or v != v else float(v) for k, v in found.items()}  # NaN: none


def agreement_section(
    db: Database,
    rater: str,
    mine: Mapping[str, str],
    humans: Mapping[str, Mapping[str, str]],
    labels: ReportLabels,
    slots_used: bool,
    n_boot: int = 500,
    seed: int = 0,
    people_kappas: Mapping[str, float | None] | None = None,
) -> AgreementSection:
    """Gold (beside it ``people_kappa``, the people's kappa against the same leave-one-out golds
    on the same pairs, from ``people_kappas``: :func:`auto_people_kappas`, computed here when not
    given), each person (or the crowd aggregates, for slots), the ceiling, by group."""
    kappas = auto_people_kappas(db) if people_kappas is None else people_kappas
    people_kappa = kappas.get(rater)
    pairs = loo_gold_pairs(db, TASK)
    mine_pairs = {(p, i): mine[i] for (p, i) in pairs if i in mine}
    gold = {k: pairs[k] for k in mine_pairs}
    people = labels["humans"]["person"]
    out: AgreementSection = {
        "gold": {
            "gold_items": len({i for _, i in pairs}),
            **compare(mine_pairs, gold, n_boot, seed, pooled=True),
            "people_kappa": people_kappa,
        },
        "people": [
            {"name": name, **compare(mine, people[name], n_boot, seed)} for name in sorted(people)
        ],
        "ceiling": people_ceiling(people, n_boot, seed),
        "crowd": [],
        "slot_ceiling": [],
        "by_group": by_group(db, mine, majority(humans), n_boot, seed),
    }
    if slots_used:
        for name in sorted(labels["humans"]["aggregate"]):
            vs = auto_vs_crowd(db, rater, f"human:{name}", seed=seed, n_boot=n_boot)
            out["crowd"].append(
                {"name": name, "with_ties": vs["with_ties"], "without_ties": vs["without_ties"]}
            )
        out["slot_ceiling"] = slot_ceiling(db, labels["humans"]["slot"])
    return out
