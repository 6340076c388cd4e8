"""Plots beside the tables of the EXAM and Cross lingual pages (issue 34: where people would
rather look than read). Each is built from the table the page already shows, so the two never
disagree, and goes through :func:`core.views.text.inert_figure`.

- :func:`xrag_accuracy_figure`: accuracy by language x setting (every question type together),
  a heatmap whose cells give the accuracy and the number of answers, the Wilson interval on hover.
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

from core.views.rater_report.records import RaterSection
from core.views.rater_report.tables import bias_rows
from core.views.text import inert_figure

#: The controlled analysis's settings (``controlled:<q>-<s>-<d>``): its own table, not the plot.
CONTROLLED = "controlled:"
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
    """Accuracy by language (rows) x setting (columns), a heatmap from
    :func:`core.views.xrag.accuracy_table`'s rows over every question type (``qtype`` ``all``)
    and the main settings (the controlled analysis's ``controlled:...`` ones have their own
    table, unless there are no others); with several models a row is ``model · language``. Each cell shows the accuracy and its
    number of answers; the hover adds the table's interval."""
    rows = acc[acc["qtype"] == "all"] if "qtype" in acc else acc
    main = ~rows["setting"].astype(str).str.startswith(CONTROLLED)
    rows = rows[main] if main.any() else rows
    several = rows["model"].nunique() > 1
    rows = rows.assign(
        row=[
            f"{m} · {lang}" if several else str(lang)
            for m, lang in zip(rows["model"], rows["language"])
        ]
    )
    ys = list(dict.fromkeys(rows["row"]))
    xs = sorted(dict.fromkeys(rows["setting"].astype(str)))
    cell = {(r["row"], str(r["setting"])): r for _, r in rows.iterrows()}
    z: list[list[float | None]] = []
    counts: list[list[str]] = []  # per cell: answers with a verdict ("n=12")
    data: list[list[str]] = []  # per cell: the hover's sentence
    for y in ys:
        z.append([])
        counts.append([])
        data.append([])
        for x in xs:
            r = cell.get((y, x))
            value = None if r is None else _number(r["accuracy"])
            z[-1].append(value)
            counts[-1].append("" if r is None or value is None else f"n={int(r['n'])}")
            data[-1].append(
                "no answer with a verdict"
                if r is None or value is None
                else f"{value:.1%} ({int(r['n_correct'])} of {int(r['n'])} answers with a "
                f"verdict), interval {_number(r['ci_low']) or 0:.1%} to "
                f"{_number(r['ci_high']) or 0:.1%}"
            )
    level = f"{float(rows['level'].iloc[0]):.0%} " if "level" in rows and len(rows) else ""
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x=xs,
            y=ys,
            text=counts,
            customdata=data,
            texttemplate="%{z:.0%}<br>%{text}",
            hovertemplate="%{y}, %{x}: %{customdata}<extra></extra>",
            zmin=0,
            zmax=1,
            colorscale="Blues",
            colorbar={"title": {"text": "accuracy"}, "tickformat": ".0%"},
        )
    )
    fig.update_layout(
        title=f"Accuracy by answer language and setting (cells: accuracy and answers; hover: "
        f"{level}Wilson interval)",
        xaxis={"title": "setting", "type": "category", "tickangle": -30},
        yaxis={"title": "answer language", "type": "category", "autorange": "reversed"},
        height=max(260, 140 + 40 * len(ys)),
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


def bias_figure(sec: RaterSection) -> go.Figure:
    """The biases of a Rater validation section (:func:`core.views.rater_report.tables.bias_rows`:
    the same rows as its table): per measure the auto-rater's share and the people's, dots with
    their 95% Wilson intervals; a share without data is left out."""
    fig = go.Figure()
    for i, (who, pick) in enumerate((("auto-rater", 1), ("people", 2))):
        names, shares, lows, highs, ns = [], [], [], [], []
        for measure, rater, people in bias_rows(sec):
            got = rater if pick == 1 else people
            share = _number(got["share"]) if got else None
            if got is None or share is None:
                continue
            names.append(measure)
            shares.append(share)
            low, high = _number(got["low"]), _number(got["high"])
            lows.append(0.0 if low is None else share - low)
            highs.append(0.0 if high is None else high - share)
            ns.append(got["n"] or 0)
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
