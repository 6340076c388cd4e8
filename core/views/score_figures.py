"""Plots beside the tables of the EXAM and Cross lingual pages (issue 34: where people would
rather look than read). Each is built from the table the page already shows, so the two never
disagree, and goes through :func:`core.views.text.inert_figure`.

- :func:`xrag_accuracy_figure`: accuracy by language x setting (every question type together),
  a dot per model, language and setting with its Wilson interval.
- :func:`exam_scores_figure`: the EXAM score of each system of a run, with mean +- 1.96 SE over
  queries (or, for a single query, +- 1.96 x the per-question binomial SE), the gold articles
  marked.
- :func:`bias_figure`: a Rater validation section's biases, the auto-rater's share and the
  people's side by side, each with its Wilson interval.
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd
import plotly.graph_objects as go

from core.views.rater_report.tables import bias_rows
from core.views.text import chart_template_text, inert_figure

#: One colour per setting / for the gold articles (colour-blind safe, plotly's defaults apart).
_COLOURS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442")


def _number(value: Any) -> float | None:
    """``value`` as a finite float, None for a missing or undefined one (e.g. ``–``)."""
    try:
        out = float(value)
    except (TypeError, ValueError):
        return None
    return out if math.isfinite(out) else None


def xrag_accuracy_figure(acc: pd.DataFrame) -> go.Figure:
    """Accuracy by language (rows) and setting (colour) from
    :func:`core.views.xrag.accuracy_table`'s rows over every question type (``qtype`` ``all``);
    with several models a row is ``model · language``. The bars are the table's intervals."""
    rows = acc[acc["qtype"] == "all"] if "qtype" in acc else acc
    several = rows["model"].nunique() > 1
    fig = go.Figure()
    for i, (setting, part) in enumerate(rows.groupby("setting", sort=True)):
        names = [
            f"{m} · {lang}" if several else str(lang)
            for m, lang in zip(part["model"], part["language"])
        ]
        acc_v = part["accuracy"].astype(float)
        fig.add_trace(
            go.Scatter(
                x=acc_v,
                y=names,
                mode="markers",
                name=str(setting),
                marker={"size": 11, "color": _COLOURS[i % len(_COLOURS)]},
                error_x={
                    "type": "data",
                    "symmetric": False,
                    "array": (part["ci_high"].astype(float) - acc_v).tolist(),
                    "arrayminus": (acc_v - part["ci_low"].astype(float)).tolist(),
                },
                customdata=list(zip(part["n_correct"], part["n"])),
                hovertemplate=chart_template_text(str(setting))
                + ": %{y}<br>accuracy %{x:.1%} (%{customdata[0]} of %{customdata[1]} "
                "answers with a verdict)<extra></extra>",
            )
        )
    level = f"{float(rows['level'].iloc[0]):.0%} " if "level" in rows and len(rows) else ""
    fig.update_layout(
        title=f"Accuracy by language and setting (dots; bars: {level}Wilson interval)",
        xaxis={"title": "accuracy (share of answers judged correct)", "range": [0, 1.02]},
        yaxis={"title": "answer language", "autorange": "reversed"},
        legend={"title": {"text": "setting"}},
        height=max(260, 60 + 34 * rows[["model", "language"]].drop_duplicates().shape[0]),
        margin={"l": 10, "r": 10, "t": 50, "b": 10},
    )
    return inert_figure(fig)


def exam_scores_figure(board: pd.DataFrame) -> go.Figure:
    """EXAM per system of one run (:func:`core.views.exam_book.exam_leaderboard`'s table), best
    at the top: bars with mean +- 1.96 SE over queries, or +- 1.96 x the per-question binomial
    SE where the run has a single query (its SE over queries is undefined)."""
    binomial = "EXAM SE (per question, binomial)"
    errors = []
    for _, r in board.iterrows():
        se = _number(r.get("EXAM SE"))
        if not se and r.get(binomial) is not None:
            se = _number(r.get(binomial))
        errors.append(1.96 * se if se else 0.0)
    gold = board["gold"].astype(bool) if "gold" in board else pd.Series(False, index=board.index)
    fig = go.Figure(
        go.Bar(
            x=board["EXAM"].astype(float),
            y=board["system"].astype(str),
            orientation="h",
            marker={"color": [_COLOURS[1] if g else _COLOURS[0] for g in gold]},
            error_x={"type": "data", "array": errors},
            customdata=[("gold articles" if g else "system") for g in gold],
            hovertemplate="%{y} (%{customdata}): EXAM %{x:.3f}<extra></extra>",
        )
    )
    fig.update_layout(
        title="EXAM by system (share of exam questions its articles answer; bars: 95% interval)",
        xaxis={"title": "EXAM (0 to 1)", "rangemode": "tozero"},
        yaxis={"title": "system", "autorange": "reversed"},
        height=max(240, 60 + 30 * len(board)),
        margin={"l": 10, "r": 10, "t": 50, "b": 10},
        showlegend=False,
    )
    return inert_figure(fig)


def bias_figure(sec: dict[str, Any]) -> go.Figure:
    """The biases of a Rater validation section (:func:`core.views.rater_report.tables.bias_rows`:
    the same rows as its table): per measure the auto-rater's share and the people's, dots with
    their 95% Wilson intervals; a share without data is left out."""
    fig = go.Figure()
    for i, (who, pick) in enumerate((("auto-rater", 1), ("people", 2))):
        names, shares, lows, highs, ns = [], [], [], [], []
        for row in bias_rows(sec):
            got = row[pick]
            share = _number((got or {}).get("share"))
            if got is None or share is None:
                continue
            names.append(row[0])
            shares.append(share)
            low, high = _number(got.get("low")), _number(got.get("high"))
            lows.append(0.0 if low is None else share - low)
            highs.append(0.0 if high is None else high - share)
            ns.append(got.get("n") or 0)
        fig.add_trace(
            go.Scatter(
                x=shares,
                y=names,
                mode="markers",
                name=who,
                marker={"size": 11, "color": _COLOURS[i], "symbol": ("circle", "diamond")[i]},
                error_x={"type": "data", "symmetric": False, "array": highs, "arrayminus": lows},
                customdata=ns,
                hovertemplate=f"{who}: %{{y}} %{{x:.0%}} (n = %{{customdata}})<extra></extra>",
            )
        )
    fig.update_layout(
        title="Biases: the auto-rater beside the people (dots; bars: 95% Wilson interval)",
        xaxis={"title": "share of the verdicts", "range": [0, 1.02], "tickformat": ".0%"},
        yaxis={"autorange": "reversed"},
        height=300,
        margin={"l": 10, "r": 10, "t": 50, "b": 10},
        legend={"orientation": "h", "y": -0.25},
    )
    return inert_figure(fig)
