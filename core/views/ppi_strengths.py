"""People + judge, Bradley-Terry side: each system's strength from the people's verdicts alone,
the judge's alone and combined (PPI++ for the logistic model,
:func:`core.stats.ppi_bt.ppi_strengths`), centred log-strengths with normal intervals, as the
``"bt"`` block of ``rank --method ppi --json`` and the Leaderboard's People + judge tab show them.
The win probabilities (:mod:`core.views.ppi_ranking`) are the ranking; the strengths say by how
much, on the Bradley-Terry scale of ``rank --method bt``. docs/statistics.md, "People + judge".
"""

from __future__ import annotations

import numpy as np

from core.errors import InputError
from core.stats.ppi_bt import StrengthFit, classical_strengths, ppi_strengths
from core.stats.ppi_mean import Battles
from core.views.ppi_records import PpiRanking, Strength, StrengthsBlock, StrengthSystem, TableRow


def _entry(fit: StrengthFit, iv: np.ndarray, m: int) -> Strength:
    return {"strength": float(fit.estimate[m]), "interval": [float(x) for x in iv[m]]}


def strengths_block(
    systems: list[str],
    people: Battles,
    judge_paired: Battles,
    judge_only: Battles,
    judge_all: Battles,
    alpha: float,
) -> StrengthsBlock:
    """``{"lambda", "scale", "interval", "systems": [{"name", "strength", "interval", "people":
    {...}, "judge": {...}}], "judge_why"}`` best first; ``{"why": ...}`` alone when the combined
    or the people's strengths are not finite (a system that wins or loses every battle); the
    judge's alone not finite (a judge that always crowns one system): each ``"judge"`` None and
    ``judge_why`` says why."""
    k = len(systems)
    try:
        fits = {
            "combined": ppi_strengths(people, judge_paired, judge_only, k),
            "people": classical_strengths(people, k),
        }
    except InputError as exc:
        return {"why": str(exc)}
    judge_why = ""
    try:
        fits["judge"] = classical_strengths(judge_all, k)
    except InputError as exc:
        judge_why = f"judge alone: {exc}"
    ivs = {name: fit.intervals(alpha) for name, fit in fits.items()}
    rows: list[StrengthSystem] = [
        {
            "name": name,
            **_entry(fits["combined"], ivs["combined"], m),
            "people": _entry(fits["people"], ivs["people"], m),
            "judge": _entry(fits["judge"], ivs["judge"], m) if "judge" in fits else None,
        }
        for m, name in enumerate(systems)
    ]
    rows.sort(key=lambda r: (-r["strength"], r["name"]))
    return {
        "lambda": fits["combined"].lam,
        "scale": "Bradley-Terry log-strength, centred to mean 0; a tie is half a win",
        "interval": f"{1 - alpha:.0%} normal interval (sandwich over battles, as ppi_py's "
        "ppi_logistic_ci)",
        "systems": rows,
        "judge_why": judge_why,
    }


def strengths_table(result: PpiRanking) -> list[TableRow]:
    """One row per system of ``result["bt"]``: the three strengths and intervals side by side
    (empty when there are none)."""
    out = []
    for r in result["bt"].get("systems", []):
        row: TableRow = {"system": r["name"]}
        ways: tuple[tuple[str, Strength | None], ...] = (
            ("people", r["people"]),
            ("judge", r["judge"]),
            ("combined", r),
        )
        for kind, src in ways:
            if src is None:  # the judge's alone are not finite (judge_why)
                row[f"{kind} strength"], row[f"{kind} interval"] = None, "-"
                continue
            lo, hi = src["interval"]
            row[f"{kind} strength"] = round(src["strength"], 3)
            row[f"{kind} interval"] = f"[{lo:.3f}, {hi:.3f}]"
        out.append(row)
    return out
