"""Leaderboard page figures: forest plot, system matrices, AutoAIS accuracy, and the ranking
from human verdicts next to the ranking from an auto-rater.

Both rankings are Bradley-Terry fits (:func:`core.views.leaderboard.compute_leaderboard`, ties
count half, question-clustered bootstrap) over the systems *both* sources compared, so the two
rank orders are of the same systems; their agreement is Spearman's rho and Kendall's tau-b of the
two beta vectors. A source is one rater, or ``NAME#*``: every anonymous slot ``NAME#1``, ``#2``, ...
(each rating one comparison).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NotRequired, TypedDict

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from scipy import stats

from core.corpus.evaluation_ratings import is_slot
from core.stats.ranking_settings import RankingSettings
from core.stats.significance import bernoulli_ci
from core.store.judgments import AbsoluteVerdict, JudgmentKind, JudgmentStatus, effective_values
from core.views.agreement_view import crowd_raters, shown_verdicts
from core.views.leaderboard import PAGE_RANKING, compute_leaderboard
from core.views.numbers import num
from core.views.text import chart_template_text, inert_figure

if TYPE_CHECKING:
    from core.stats.leaderboard import Leaderboard
    from core.store.engine import Database


def forest_figure(lb: Leaderboard, scale: str = "beta") -> go.Figure:
    """Forest plot of each system's Bradley-Terry score with its bootstrap interval.

    ``scale='beta'``: log-strength (centred); ``'strength'``: ``e^beta``.
    """
    t = lb.table.iloc[::-1]
    f = np.exp if scale == "strength" else (lambda x: x)
    x, lo, hi = (
        f(t["beta"].to_numpy(float)),
        f(t["ci_low"].to_numpy(float)),
        f(t["ci_high"].to_numpy(float)),
    )
    has_ci = np.isfinite(lo).all()
    fig = go.Figure(
        go.Scatter(
            x=x,
            y=t["name"],
            mode="markers",
            marker={"size": 10},
            error_x={
                "type": "data",
                "symmetric": False,
                "array": hi - x,
                "arrayminus": x - lo,
                "visible": bool(has_ci),
            },
            customdata=np.stack([lo, hi, t["n_comparisons"], t["rank_ub"].astype(float)], axis=1),
            hovertemplate="%{y}<br>"
            + ("e^beta" if scale == "strength" else "beta")
            + " = %{x:.3f}<br>"
            + f"{lb.settings.level:.0%} CI "
            + "[%{customdata[0]:.3f}, %{customdata[1]:.3f}]"
            "<br>comparisons = %{customdata[2]}<br>best possible rank = %{customdata[3]}<extra></extra>",
        )
    )
    label = "strength e^beta" if scale == "strength" else "beta (log-strength, centred)"
    fig.update_layout(
        title=f"Bradley-Terry {label} with {lb.settings.level:.0%} bootstrap intervals "
        f"({lb.settings.n_boot} question resamples)",
        xaxis_title=label,
        yaxis_title="system",
        height=140 + 40 * len(t),
        margin={"l": 10, "r": 10, "t": 60, "b": 40},
    )
    return inert_figure(fig)


def matrix_figure(
    frame: pd.DataFrame,
    title: str,
    value_label: str,
    fmt: str = ".2f",
    zmin: float | None = 0.0,
    zmax: float | None = 1.0,
) -> go.Figure:
    """Heatmap of a square system-by-system matrix (row system vs column system).

    The diagonal (a system against itself) is left blank. Shares (``zmin=0, zmax=1``) use a
    diverging scale centred on 1/2; counts (no bounds) a sequential one.
    """
    z = frame.to_numpy(float).copy()
    if z.shape[0] == z.shape[1]:
        np.fill_diagonal(z, np.nan)
    text = [[("" if not np.isfinite(v) else format(v, fmt)) for v in row] for row in z]
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x=list(frame.columns),
            y=list(frame.index),
            zmin=zmin,
            zmax=zmax,
            colorscale="RdBu" if zmax is not None else "Blues",
            text=text,
            texttemplate="%{text}",
            colorbar={"title": value_label},
            hovertemplate="row %{y} vs column %{x}<br>"
            + chart_template_text(value_label)
            + " = %{z:"
            + fmt
            + "}<extra></extra>",
        )
    )
    fig.update_layout(
        title=title,
        xaxis_title="opponent (column)",
        yaxis_title="system (row)",
        yaxis={"autorange": "reversed"},
        margin={"l": 10, "r": 10, "t": 60, "b": 40},
    )
    return inert_figure(fig)


def autoais_accuracy(db: Database, level: float = 0.95) -> pd.DataFrame:
    """Per auto-rater and system: share of answers judged supported (``yes``) among the parsed
    absolute verdicts, with the paper's Bernoulli (Wald) interval at ``level``."""

    tally: dict[tuple[str, str], list[int]] = {}
    for rater, system, verdict in effective_values(
        db, ("rater", "system", "verdict"), kind=JudgmentKind.ABSOLUTE, status=JudgmentStatus.OK
    ):
        if verdict in tuple(AbsoluteVerdict):
            nk = tally.setdefault((rater, system), [0, 0])
            nk[0] += 1
            nk[1] += verdict == AbsoluteVerdict.YES
    out = []
    for (rater, system), (n, k) in sorted(tally.items(), key=lambda kv: str(kv[0])):
        ci = bernoulli_ci(k, n, level)
        out.append(
            {
                "rater": rater,
                "system": system,
                "n": n,
                "supported": k,
                "accuracy": ci.estimate,
                "ci_low": ci.low,
                "ci_high": ci.high,
            }
        )
    return pd.DataFrame(
        out, columns=["rater", "system", "n", "supported", "accuracy", "ci_low", "ci_high"]
    )


def accuracy_figure(acc: pd.DataFrame) -> go.Figure:
    """AutoAIS accuracy per system (one trace per rater) with interval error bars."""
    fig = go.Figure()
    for rater, part in acc.groupby("rater"):
        fig.add_trace(
            go.Bar(
                name=rater,
                x=part["system"],
                y=part["accuracy"],
                error_y={
                    "type": "data",
                    "symmetric": False,
                    "array": part["ci_high"] - part["accuracy"],
                    "arrayminus": part["accuracy"] - part["ci_low"],
                },
                customdata=part[["n", "ci_low", "ci_high"]].to_numpy(),
                hovertemplate="%{x}<br>accuracy = %{y:.3f}<br>95% CI [%{customdata[1]:.3f}, "
                "%{customdata[2]:.3f}]<br>n = %{customdata[0]}<extra>"
                + chart_template_text(rater)
                + "</extra>",
            )
        )
    fig.update_layout(
        title="AutoAIS accuracy (share of answers judged supported, 95% Bernoulli CI)",
        xaxis_title="system",
        yaxis_title="accuracy",
        yaxis_range=[0, 1],
        barmode="group",
    )
    return inert_figure(fig)


def ranking_sources(db: Database) -> dict[str, list[str]]:
    """Human sources (crowd raters and ``NAME#*`` slot groups) and auto sources, PRD first."""
    options = crowd_raters(db)
    human = [f"{p}*" for p in options["slots"]] + options["crowd"]
    auto = sorted(options["auto"], key=lambda r: ("(PRD)" not in r, r))
    return {"human": human, "auto": auto}


def _records(db: Database, source: str) -> pd.DataFrame:
    if source.endswith("#*"):
        prefix = source[:-1]
        df = shown_verdicts(db)
        df = df[df["rater"].map(lambda r: is_slot(r) and r.startswith(prefix))]
    else:
        df = shown_verdicts(db, [source])
    return df[["question_id", "system_a", "system_b", "verdict"]]


class RankingComparison(TypedDict):
    """Two Bradley-Terry leaderboards compared (:func:`compare_rankings`): ``why`` says why
    there is none (and the rest is left out), else the boards, the table and the correlations
    (None under three common systems)."""

    human: str
    auto: str
    systems: list[str]  # the systems both sources judged
    why: str  # "" when both rankings exist
    n_human: NotRequired[int]  # verdicts on the common systems
    n_auto: NotRequired[int]
    leaderboards: NotRequired[dict[str, Leaderboard]]  # "human", "auto"
    table: NotRequired[pd.DataFrame]  # system, beta and rank of each
    spearman: NotRequired[float | None]
    kendall: NotRequired[float | None]


def compare_rankings(
    db: Database, human: str, auto: str, settings: RankingSettings = PAGE_RANKING
) -> RankingComparison:
    """Two Bradley-Terry leaderboards (``settings``) over the common systems and their rank
    correlations."""
    recs = {"human": _records(db, human), "auto": _records(db, auto)}
    systems = [set(r["system_a"]) | set(r["system_b"]) if len(r) else set() for r in recs.values()]
    common = sorted(systems[0] & systems[1])
    out: RankingComparison = {"human": human, "auto": auto, "systems": common, "why": ""}
    boards = {}
    for key, r in recs.items():
        r = r[r["system_a"].isin(common) & r["system_b"].isin(common)]
        if key == "human":
            out["n_human"] = len(r)
        else:
            out["n_auto"] = len(r)
        lb, why = compute_leaderboard(r, settings)
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
        out["spearman"], out["kendall"] = None, None
    return out


def slope_figure(cmp: RankingComparison) -> go.Figure:
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
                hovertemplate=chart_template_text(row[0])
                + "<br>%{x}: beta = %{y:.3f}<extra></extra>",
            )
        )
    rho = num(cmp["spearman"], ".2f", "-")
    tau = num(cmp["kendall"], ".2f", "-")
    fig.update_layout(
        title=f"Bradley-Terry beta: {cmp['human']} vs {cmp['auto']} "
        f"(Spearman {rho}, Kendall {tau})",
        xaxis_title="verdict source",
        yaxis_title="beta (log-strength, centred)",
        showlegend=False,
        height=420,
    )
    return inert_figure(fig)
