"""Agreement page, imported evaluations: an auto-rater against a crowd (its majority and its slots).

Items follow the one unit rule (:data:`core.views.agreement_pairs.UNIT_RULE`): a question and a
pair of systems, verdicts read relative to the pair in alphabetical order; an auto-rater that judged
both orders is compared in each order with the crowd's verdict in that order, as PRD does.
Anonymous human slots (raters named ``human:NAME#1``, ``#2``, ...; see
:mod:`core.corpus.evaluations`) are not people, so only identity-free statistics are computed over
them: Fleiss' kappa and Krippendorff's alpha (nominal), never a per-slot Cohen's kappa.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, TypedDict

import numpy as np
import pandas as pd

from core.corpus.evaluation_ratings import is_slot, slot_group
from core.stats.agreement import (
    cohen_kappa_ci,
    percent_agreement,
)
from core.store.judgments import (
    PairwiseVerdict,
    RaterKind,
    human_raters,
    imported_human_raters,
    pairwise_rater_kinds,
)
from core.store.verdict_reads import verdict_summary
from core.views.agreement_pairs import PairAgreement, inter_annotator, paired, verdict_frame

if TYPE_CHECKING:
    from core.store.engine import Database

_VERDICT_COLUMNS = ["question_id", "system_a", "system_b", "rater", "verdict"]


def shown_verdicts(db: Database, raters: list[str] | None = None) -> pd.DataFrame:
    """Each rater's latest effective pairwise verdict per item in the order shown (one row per
    rater and item: :func:`core.store.verdict_reads.verdict_summary`), by its id: ``question_id,
    system_a, system_b, rater, verdict, item_id``."""
    found = [
        (qid, a, b, rater, verdict)
        for rater, _, qid, a, b, _, _, _, _, verdict in verdict_summary(db, "pairwise", raters)
    ]
    df = pd.DataFrame(found, columns=_VERDICT_COLUMNS)
    df["item_id"] = [  # a structure (JSON list), not a string joined by "|": names may hold "|"
        json.dumps(list(t), ensure_ascii=False)
        for t in zip(df["question_id"], df["system_a"], df["system_b"])
    ]
    return df


def crowd_raters(db: Database) -> dict[str, list[str]]:
    """Candidates: ``auto`` raters, ``crowd`` (human raters that are not slots), ``slots``
    (the NAME# prefixes of anonymous slot groups)."""
    names = pairwise_rater_kinds(db)
    slots = sorted({str(slot_group(r)) for r, _ in names if is_slot(r)})
    return {
        "auto": [r for r, k in names if k == RaterKind.AUTO],
        "crowd": [r for r, k in names if k == RaterKind.HUMAN and not is_slot(r)],
        "slots": slots,
    }


def default_pair(options: dict[str, list[str]]) -> tuple[str | None, str | None, str | None]:
    """The PRD defaults when present: an auto-rater named ``(PRD)``, a ``majority`` crowd rater."""
    auto = next((r for r in options["auto"] if "(PRD)" in r), None) or next(
        iter(options["auto"]), None
    )
    crowd = next((r for r in options["crowd"] if "majority" in r), None) or next(
        iter(options["crowd"]), None
    )
    return auto, crowd, next(iter(options["slots"]), None)


def _agreement(a: list[str], b: list[str], seed: int, n_boot: int) -> PairAgreement:
    out: PairAgreement = {
        "n": len(a),
        "agreement": None,
        "kappa": None,
        "kappa_low": None,
        "kappa_high": None,
    }
    if not a:
        return out
    out["agreement"] = percent_agreement(a, b)
    ci = cohen_kappa_ci(a, b, n_boot=n_boot, seed=seed)
    out["kappa"] = None if np.isnan(ci.estimate) else float(ci.estimate)
    if np.isfinite(ci.low):
        out["kappa_low"], out["kappa_high"] = float(ci.low), float(ci.high)
    return out


class AutoVsCrowd(TypedDict):
    """An auto-rater against a crowd rater (:func:`auto_vs_crowd`)."""

    auto: str
    crowd: str
    with_ties: PairAgreement
    without_ties: PairAgreement  # units where either said Equal left out
    confusion: pd.DataFrame


class SlotAgreement(TypedDict):
    """Agreement among one group of anonymous slots (:func:`slot_agreement`)."""

    prefix: str
    slots: int
    ratings: int
    items: int
    fleiss_kappa: float | None
    krippendorff_alpha: float | None


class CrowdOverview(TypedDict):
    """The imported crowd on the Agreement page (:func:`crowd_overview`)."""

    options: dict[str, list[str]]  # :func:`crowd_raters`
    imported: list[str]  # the imported human raters
    vs: AutoVsCrowd | None
    slots: SlotAgreement | None  # :func:`slot_agreement` of the first slot group


def auto_vs_crowd(
    db: Database, auto: str, crowd: str, seed: int = 0, n_boot: int = 500
) -> AutoVsCrowd:
    """An auto-rater vs a crowd rater on their shared units (canonical labels; an item either
    judged in both orders is compared per order: :func:`core.views.agreement_pairs.paired`, as
    every agreement figure): percent agreement and Cohen's kappa (95% large-sample interval over
    units, none under 20), with ties and without (units where either said Equal are left out), and the
    confusion counts."""
    both = paired(verdict_frame(db, "pairwise", [auto, crowd]), auto, crowd).rename(
        columns={"a": "verdict_auto", "b": "verdict_crowd"}
    )
    no_ties = both[
        (both["verdict_auto"] != PairwiseVerdict.EQUAL)
        & (both["verdict_crowd"] != PairwiseVerdict.EQUAL)
    ]
    return {
        "auto": auto,
        "crowd": crowd,
        "with_ties": _agreement(
            both["verdict_auto"].tolist(), both["verdict_crowd"].tolist(), seed, n_boot
        ),
        "without_ties": _agreement(
            no_ties["verdict_auto"].tolist(), no_ties["verdict_crowd"].tolist(), seed, n_boot
        ),
        "confusion": pd.crosstab(
            both["verdict_auto"].rename(auto), both["verdict_crowd"].rename(crowd)
        ),
    }


def slot_agreement(db: Database, prefix: str) -> SlotAgreement:
    """Fleiss' kappa and Krippendorff's alpha of the anonymous slots ``prefix1, prefix2, ...``
    over the items with at least two of their ratings, by the one unit rule (:data:`UNIT_RULE`:
    verdicts relative to the pair in alphabetical order), so they equal "Between annotators"
    for the same people (:func:`core.views.agreement_pairs.inter_annotator`)."""
    slots = [r for r in human_raters(db) if is_slot(r) and slot_group(r) == prefix]
    frame = verdict_frame(db, "pairwise", slots)
    among = inter_annotator(frame, "human")
    return {
        "prefix": prefix,
        "slots": len(slots),
        "ratings": len(frame),
        "items": among["items"],
        "fleiss_kappa": among["fleiss_kappa"],
        "krippendorff_alpha": among["krippendorff_alpha"],
    }


def crowd_overview(db: Database) -> CrowdOverview | None:
    """The default auto-vs-crowd comparison and slot agreement, with the ``imported`` human
    raters (whatever their names); None when no human verdicts were imported and there are no
    anonymous slots."""
    options = crowd_raters(db)
    imported = list(imported_human_raters(db))
    if not options["slots"] and not imported:
        return None  # no crowd: people who signed in are compared in the every-pair table
    auto, crowd, prefix = default_pair(options)
    return {
        "options": options,
        "imported": imported,
        "vs": auto_vs_crowd(db, auto, crowd) if crowd and auto else None,
        "slots": slot_agreement(db, prefix) if prefix else None,
    }
