"""The report's cost section: the auto-rater's cost per verdict against the people's time per
verdict.

Cost per verdict = the USD of the model calls tagged with the judge's name in the call ledger
(``llm_calls``, :func:`core.llm.cost.cost_totals`; cache hits cost 0) divided by the rater's
stored verdicts. People's time per verdict = the median gap between one person's consecutive
labels, gaps over 10 minutes counted as breaks (:func:`core.stats.label_time.seconds_per_label`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from core.llm.cost import cost_totals
from core.stats.label_time import MAX_GAP_S, seconds_per_label

if TYPE_CHECKING:
    from core.store.engine import Database
    from core.views.rater_report.records import PeopleTime, RaterCost, RaterSection


def rater_cost(db: Database, rater: str, verdicts: int) -> RaterCost:
    """``calls``, ``cost_usd``, ``verdicts``, ``usd_per_verdict`` (None without recorded calls)
    and ``note`` for the auto-rater ``rater``."""
    judge = rater.removeprefix("auto:")
    found = [r for r in cost_totals(db, by=("judge",))["judge"] if r["group"] == judge]
    calls = int(found[0]["calls"]) if found else 0
    usd = float(found[0]["cost_usd"] or 0.0) if found else 0.0
    if not calls:
        note = (
            "no model call of this rater is in the call ledger (imported verdicts, or made "
            "elsewhere): its cost is unknown here"
        )
    elif usd == 0:
        note = "its calls cost nothing here (an offline baseline, cached or unpriced model)"
    else:
        note = f"{calls} recorded call(s), {usd:.4f} USD in all"
    return {
        "calls": calls,
        "cost_usd": usd,
        "verdicts": verdicts,
        "usd_per_verdict": usd / verdicts if calls and verdicts else None,
        "note": note,
    }


def people_time(
    rows: Sequence[Mapping[str, Any]], names: Sequence[str], max_gap_s: float = MAX_GAP_S
) -> PeopleTime:
    """Median seconds per label of each of ``names`` and pooled, from the ``created_at`` of
    their label ``rows`` (:func:`core.annotation.tasks.human_labels` rows)."""
    wanted = set(names)
    stamps: dict[str, list[str]] = {n: [] for n in names}
    for r in rows:
        if r["annotator"] in wanted and r.get("created_at"):
            stamps[r["annotator"]].append(r["created_at"])
    found = seconds_per_label(stamps, max_gap_s)
    return {
        "per_person": {
            name: {"labels": p["labels"], "gaps": p["gaps"], "median_s": p["median_s"]}
            for name, p in found["per_person"].items()
        },
        "gaps": found["gaps"],
        "median_s": found["median_s"],
        "max_gap_s": found["max_gap_s"],
        "rule": f"median gap between one person's consecutive labels; gaps over "
        f"{max_gap_s / 60:g} minutes are breaks and left out, as are labels stored at one "
        "instant (imported)",
    }


def cost_texts(sec: RaterSection) -> tuple[str, str]:
    """A rater section's cost per verdict ("0.00012 USD", or "unknown") and the people's time
    per verdict ("7 s", or "not recorded"), as the page and the HTML report both show them."""
    time = sec["time"]
    usd, seconds = sec["cost"]["usd_per_verdict"], time["median_s"] if time else None
    return (
        "unknown" if usd is None else f"{usd:.5f} USD",
        "not recorded" if seconds is None else f"{seconds:.0f} s",
    )
