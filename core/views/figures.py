"""Analysis views: the Leaderboard and Agreement pages' tables and plotly figures.

Data come from the store (effective labels only: a row superseded by another is ignored), the
statistics from :mod:`core.stats`, :mod:`core.stats` and :mod:`core.stats.significance`. Every figure has a
title, axis labels and hover text with the numbers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from core.stats.agreement import (
    cohen_kappa_ci,
    confusion,
    fleiss_kappa,
    krippendorff_alpha_nominal,
    percent_agreement,
    ratings_matrix,
    self_consistency,
)
from core.stats.rater_bias import position_inconsistency
from core.stats.significance import bernoulli_ci
from core.store.judgments import effective_judgments

if TYPE_CHECKING:  # sqlite_utils imports pandas: loaded only when a database is opened
    import sqlite_utils

# ------------------------------------------------------------------------------------------
# Leaderboard figures (the data and the live fit: core.views.leaderboard, re-exported here)
# ------------------------------------------------------------------------------------------


def forest_figure(lb, scale: str = "beta") -> go.Figure:
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
            + f"{lb.level:.0%} CI "
            + "[%{customdata[0]:.3f}, %{customdata[1]:.3f}]"
            "<br>comparisons = %{customdata[2]}<br>Rank (UB) = %{customdata[3]}<extra></extra>",
        )
    )
    label = "strength e^beta" if scale == "strength" else "beta (log-strength, centred)"
    fig.update_layout(
        title=f"Bradley-Terry {label} with {lb.level:.0%} bootstrap intervals "
        f"({lb.n_boot} question resamples)",
        xaxis_title=label,
        yaxis_title="system",
        height=140 + 40 * len(t),
        margin={"l": 10, "r": 10, "t": 60, "b": 40},
    )
    return fig


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
            + value_label
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
    return fig


def autoais_accuracy(db: sqlite_utils.Database, level: float = 0.95) -> pd.DataFrame:
    """Per auto-rater and system: share of answers judged supported (``yes``) among the parsed
    absolute verdicts, with the paper's Bernoulli (Wald) interval at ``level``."""

    tally: dict[tuple[str, str], list[int]] = {}
    for j in effective_judgments(
        db, kind="absolute", status="ok", columns=["rater", "system", "verdict"]
    ):
        if j["verdict"] in ("yes", "no"):
            nk = tally.setdefault((j["rater"], j["system"]), [0, 0])
            nk[0] += 1
            nk[1] += j["verdict"] == "yes"
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
                "%{customdata[2]:.3f}]<br>n = %{customdata[0]}<extra>" + rater + "</extra>",
            )
        )
    fig.update_layout(
        title="AutoAIS accuracy (share of answers judged supported, 95% Bernoulli CI)",
        xaxis_title="system",
        yaxis_title="accuracy",
        yaxis_range=[0, 1],
        barmode="group",
    )
    return fig


# ------------------------------------------------------------------------------------------
# Agreement
# ------------------------------------------------------------------------------------------


def verdict_frame(db: sqlite_utils.Database, kind: str = "pairwise") -> pd.DataFrame:
    """Effective parsed verdicts as ``item_id, question_id, rater, rater_kind, verdict, pair,
    system_a, system_b, shown_verdict, order_shown, judgment_id``.

    Pairwise items are (question, canonically sorted pair) and ``verdict`` is translated to that
    canonical order (``A`` = the alphabetically first system wins), so raters who saw different
    orders are comparable; ``shown_verdict`` keeps the verdict as given. Absolute items are
    (question, system, criterion).
    """
    if kind == "pairwise":
        cols = ["id", "question_id", "rater", "rater_kind", "system_a", "system_b", "verdict"]
        found = effective_judgments(
            db, kind="pairwise", status="ok", with_verdict=True, columns=[*cols, "order_shown"]
        )
        df = pd.DataFrame(
            [list(r.values()) for r in found],
            columns=[
                "judgment_id",
                "question_id",
                "rater",
                "rater_kind",
                "system_a",
                "system_b",
                "verdict",
                "order_shown",
            ],
        )
        df["shown_verdict"] = df["verdict"]
        swap = df["system_a"] > df["system_b"]
        first = df["system_a"].where(~swap, df["system_b"])
        second = df["system_b"].where(~swap, df["system_a"])
        df["verdict"] = df["verdict"].where(
            ~swap, df["verdict"].map({"A": "B", "B": "A"}).fillna(df["verdict"])
        )
        df["pair"] = first + " vs " + second
        df["item_id"] = df["question_id"] + "|" + first + "|" + second
        df["position"] = df["system_a"]
    else:
        cols = ["id", "question_id", "rater", "rater_kind", "system", "criterion", "verdict"]
        found = effective_judgments(
            db, kind="absolute", status="ok", with_verdict=True, columns=[*cols, "order_shown"]
        )
        df = pd.DataFrame(
            [list(r.values()) for r in found],
            columns=[
                "judgment_id",
                "question_id",
                "rater",
                "rater_kind",
                "system",
                "criterion",
                "verdict",
                "order_shown",
            ],
        )
        df["shown_verdict"] = df["verdict"]
        df["pair"] = df["system"]
        df["item_id"] = df["question_id"] + "|" + df["system"] + "|" + df["criterion"]
        df["system_a"], df["system_b"] = df["system"], None
        df["position"] = ""
    return df[
        [
            "item_id",
            "question_id",
            "rater",
            "rater_kind",
            "verdict",
            "pair",
            "system_a",
            "system_b",
            "shown_verdict",
            "order_shown",
            "position",
            "judgment_id",
        ]
    ]


def latest_per_rater(frame: pd.DataFrame) -> pd.DataFrame:
    """One verdict per (item, rater): the latest."""
    return frame.sort_values("judgment_id").drop_duplicates(["item_id", "rater"], keep="last")


def paired(frame: pd.DataFrame, rater_a: str, rater_b: str) -> pd.DataFrame:
    """Items both raters labelled: ``item_id, question_id, pair, a, b``."""
    one = latest_per_rater(frame)
    a = one[one["rater"] == rater_a][["item_id", "question_id", "pair", "verdict"]]
    b = one[one["rater"] == rater_b][["item_id", "verdict"]]
    return a.merge(b, on="item_id", suffixes=("_a", "_b")).rename(
        columns={"verdict_a": "a", "verdict_b": "b"}
    )


def pair_agreement(both: pd.DataFrame, seed: int = 0, n_boot: int = 500) -> dict[str, Any]:
    """Percent agreement and Cohen's kappa with its 95% bootstrap interval (items resampled)."""

    out: dict[str, Any] = {
        "n": len(both),
        "agreement": None,
        "kappa": None,
        "kappa_low": None,
        "kappa_high": None,
    }
    if len(both) == 0:
        return out
    a, b = both["a"].tolist(), both["b"].tolist()
    out["agreement"] = percent_agreement(a, b)
    ci = cohen_kappa_ci(a, b, n_boot=n_boot, seed=seed)
    out["kappa"] = None if np.isnan(ci.estimate) else ci.estimate
    if np.isfinite(ci.low):
        out["kappa_low"], out["kappa_high"] = ci.low, ci.high
    return out


def _comparison(ra: str, rb: str) -> str:
    return " vs ".join(sorted((ra.split(":")[0], rb.split(":")[0]), reverse=True))


def agreement_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Every pair of raters over their common items: n, agreement, kappa and its interval."""
    raters = sorted(frame["rater"].unique())
    out = []
    for i, ra in enumerate(raters):
        for rb in raters[i + 1 :]:
            both = paired(frame, ra, rb)
            if len(both):
                out.append(
                    {
                        "rater_a": ra,
                        "rater_b": rb,
                        "comparison": _comparison(ra, rb),
                        **pair_agreement(both),
                    }
                )
    return pd.DataFrame(
        out,
        columns=[
            "rater_a",
            "rater_b",
            "comparison",
            "n",
            "agreement",
            "kappa",
            "kappa_low",
            "kappa_high",
        ],
    )


def by_system_pair(frame: pd.DataFrame, rater_a: str, rater_b: str) -> pd.DataFrame:
    """Agreement of two raters broken down by system pair (or system, for absolute items)."""
    both = paired(frame, rater_a, rater_b)
    out = [{"pair": pair, **pair_agreement(part)} for pair, part in both.groupby("pair")]
    return pd.DataFrame(out, columns=["pair", "n", "agreement", "kappa", "kappa_low", "kappa_high"])


def confusion_figure(both: pd.DataFrame, rater_a: str, rater_b: str) -> go.Figure:
    """Heatmap of the confusion counts of two raters (rows ``rater_a``, columns ``rater_b``)."""

    m = confusion(both["a"].tolist(), both["b"].tolist())
    labels = [str(x) for x in m.index]
    fig = go.Figure(
        go.Heatmap(
            z=m.to_numpy(),
            x=[str(c) for c in m.columns],
            y=labels,
            colorscale="Blues",
            texttemplate="%{z}",
            colorbar={"title": "items"},
            hovertemplate=rater_a
            + " = %{y}<br>"
            + rater_b
            + " = %{x}<br>items = %{z}<extra></extra>",
        )
    )
    fig.update_layout(
        title=f"Confusion: {rater_a} (rows) vs {rater_b} (columns), n = {len(both)}",
        xaxis_title=rater_b,
        yaxis_title=rater_a,
        yaxis={"autorange": "reversed"},
    )
    return fig


def inter_annotator(frame: pd.DataFrame, rater_kind: str = "human") -> dict[str, Any]:
    """Fleiss' kappa and Krippendorff's alpha (nominal) among raters of one kind, over the items
    at least two of them labelled."""

    one = latest_per_rater(frame[frame["rater_kind"] == rater_kind])
    multi = one[one.groupby("item_id")["rater"].transform("size") >= 2]
    out: dict[str, Any] = {
        "raters": int(one["rater"].nunique()),
        "items": int(multi["item_id"].nunique()),
        "fleiss_kappa": None,
        "krippendorff_alpha": None,
    }
    if out["items"]:
        fk = fleiss_kappa(multi[["item_id", "rater", "verdict"]])
        ka = krippendorff_alpha_nominal(ratings_matrix(multi[["item_id", "rater", "verdict"]]))
        out["fleiss_kappa"] = None if np.isnan(fk) else fk
        out["krippendorff_alpha"] = None if np.isnan(ka) else ka
    return out


def consistency(frame: pd.DataFrame) -> pd.DataFrame:
    """Per rater: self-consistency (an item judged again in the same order: first vs latest
    verdict) and position-swap inconsistency (:func:`core.stats.rater_bias.position_inconsistency`)."""

    out = []
    pairwise = frame[frame["system_b"].notna()]
    pos = (
        position_inconsistency(pairwise.assign(verdict=pairwise["shown_verdict"]))
        if len(pairwise)
        else pd.DataFrame(columns=["rater"])
    )
    pos = pos.set_index("rater") if len(pos) else pos
    for rater, part in frame.sort_values("judgment_id").groupby("rater"):
        g = part.groupby(["item_id", "position"])["verdict"]
        first, last, n = g.first(), g.last(), g.size()
        rep = n[n >= 2].index
        row = {
            "rater": rater,
            "repeated items": len(rep),
            "self-consistency": None,
            "self kappa": None,
            "items in both orders": 0,
            "position inconsistency": None,
        }
        if len(rep):
            sc = self_consistency(first[rep], last[rep])
            row["self-consistency"], row["self kappa"] = sc["agreement"], sc["cohen_kappa"]
        if len(pos) and rater in pos.index:
            row["items in both orders"] = int(pos.loc[rater, "n_pairs"])
            rate = pos.loc[rater, "inconsistency_rate"]
            row["position inconsistency"] = None if np.isnan(rate) else float(rate)
        out.append(row)
    return pd.DataFrame(
        out,
        columns=[
            "rater",
            "repeated items",
            "self-consistency",
            "self kappa",
            "items in both orders",
            "position inconsistency",
        ],
    )


def disagreements(
    frame: pd.DataFrame, rater_a: str, rater_b: str, limit: int = 500
) -> pd.DataFrame:
    """Items on which the two raters disagree (latest verdict each), to open in Browse."""
    both = paired(frame, rater_a, rater_b)
    diff = both[both["a"] != both["b"]].head(limit)
    return diff.rename(columns={"a": rater_a, "b": rater_b}).reset_index(drop=True)


def agreement_overview(
    db: sqlite_utils.Database, kind: str = "pairwise", with_consistency: bool = True
) -> dict[str, Any]:
    """Everything the Agreement page shows before a rater pair is chosen.

    ``with_consistency=False`` leaves out :func:`consistency`.
    """
    frame = verdict_frame(db, kind)
    return {
        "raters": sorted(frame["rater"].unique()),
        "n_verdicts": len(frame),
        "table": agreement_table(frame),
        "consistency": consistency(frame) if with_consistency else None,
        "humans": inter_annotator(frame, "human"),
        "autos": inter_annotator(frame, "auto"),
    }


def rater_pair_view(
    db: sqlite_utils.Database, kind: str, rater_a: str, rater_b: str
) -> dict[str, Any]:
    """Two raters: their common items, agreement by system pair, the disagreements."""
    frame = verdict_frame(db, kind)
    both = paired(frame, rater_a, rater_b)
    return {
        "both": both,
        "overall": pair_agreement(both),
        "by_pair": by_system_pair(frame, rater_a, rater_b),
        "disagreements": disagreements(frame, rater_a, rater_b),
    }
