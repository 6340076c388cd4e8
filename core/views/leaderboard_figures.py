"""Leaderboard page: the ranking from human verdicts next to the ranking from an auto-rater.

Both rankings are Bradley-Terry fits (:func:`core.views.leaderboard.compute_leaderboard`, ties
count half, question-clustered bootstrap) over the systems *both* sources compared, so the two
rank orders are of the same systems; their agreement is Spearman's rho and Kendall's tau-b of the
two beta vectors. A source is one rater, or ``NAME#*``: every anonymous slot ``NAME#1``, ``#2``, ...
(each rating one comparison).
"""

from __future__ import annotations

import re
from typing import Any

import pandas as pd
import plotly.graph_objects as go
import sqlite_utils
from scipy import stats

from core.views.agreement_view import crowd_raters, shown_verdicts
from core.views.leaderboard import compute_leaderboard

_SLOT = re.compile(r"^(human:.+#)\d+$")


def ranking_sources(db: sqlite_utils.Database) -> dict[str, list[str]]:
    """Human sources (crowd raters and ``NAME#*`` slot groups) and auto sources, PRD first."""
    options = crowd_raters(db)
    human = [f"{p}*" for p in options["slots"]] + options["crowd"]
    auto = sorted(options["auto"], key=lambda r: ("(PRD)" not in r, r))
    return {"human": human, "auto": auto}


def _records(db: sqlite_utils.Database, source: str) -> pd.DataFrame:
    if source.endswith("#*"):
        prefix = source[:-1]
        df = shown_verdicts(db)
        df = df[df["rater"].map(lambda r: bool(_SLOT.match(r)) and r.startswith(prefix))]
    else:
        df = shown_verdicts(db, [source])
    return df[["question_id", "system_a", "system_b", "verdict"]]


def compare_rankings(
    db: sqlite_utils.Database, human: str, auto: str, n_boot: int = 200, seed: int = 0
) -> dict[str, Any]:
    """Two Bradley-Terry leaderboards over the common systems and their rank correlations."""
    recs = {"human": _records(db, human), "auto": _records(db, auto)}
    systems = [set(r["system_a"]) | set(r["system_b"]) if len(r) else set() for r in recs.values()]
    common = sorted(systems[0] & systems[1])
    out: dict[str, Any] = {"human": human, "auto": auto, "systems": common, "why": ""}
    boards = {}
    for key, r in recs.items():
        r = r[r["system_a"].isin(common) & r["system_b"].isin(common)]
        out[f"n_{key}"] = len(r)
        lb, why = compute_leaderboard(r, n_boot=n_boot, seed=seed)
        if lb is None:
            out["why"] = f"{key} ranking: {why}"
            return out
        boards[key] = lb
    tables = {k: lb.table.set_index("name") for k, lb in boards.items()}
    merged = pd.DataFrame(
        {
            "system": common,
            "beta human": [float(tables["human"].loc[s, "beta"]) for s in common],
            "beta auto": [float(tables["auto"].loc[s, "beta"]) for s in common],
        }
    )
    merged["rank human"] = merged["beta human"].rank(ascending=False, method="min").astype(int)
    merged["rank auto"] = merged["beta auto"].rank(ascending=False, method="min").astype(int)
    out["leaderboards"] = boards
    out["table"] = merged.sort_values("rank human").reset_index(drop=True)
    if len(common) >= 3:
        out["spearman"] = float(stats.spearmanr(merged["beta human"], merged["beta auto"])[0])
        out["kendall"] = float(stats.kendalltau(merged["beta human"], merged["beta auto"])[0])
    else:
        out["spearman"] = out["kendall"] = None
    return out


def slope_figure(cmp: dict[str, Any]) -> go.Figure:
    """Slope chart: each system's Bradley-Terry beta from human verdicts (left) and from the
    auto-rater (right)."""
    t = cmp["table"]
    fig = go.Figure()
    for row in t.itertuples(index=False):
        fig.add_trace(
            go.Scatter(
                x=["human verdicts", "auto-rater"],
                y=[row[1], row[2]],
                mode="lines+markers+text",
                text=[row[0], row[0]],
                textposition=["middle left", "middle right"],
                name=row[0],
                hovertemplate=f"{row[0]}<br>%{{x}}: beta = %{{y:.3f}}<extra></extra>",
            )
        )
    rho = "-" if cmp["spearman"] is None else f"{cmp['spearman']:.2f}"
    tau = "-" if cmp["kendall"] is None else f"{cmp['kendall']:.2f}"
    fig.update_layout(
        title=f"Bradley-Terry beta: {cmp['human']} vs {cmp['auto']} "
        f"(Spearman {rho}, Kendall {tau})",
        xaxis_title="verdict source",
        yaxis_title="beta (log-strength, centred)",
        showlegend=False,
        height=420,
    )
    return fig
