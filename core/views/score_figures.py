"""Plots beside the tables of the EXAM and Cross lingual pages (issue 34: where people would
rather look than read). Each is built from the table the page already shows, so the two never
disagree, and goes through :func:`core.views.text.inert_figure`.

- :func:`xrag_accuracy_figure`: accuracy by language x setting (every question type together),
  a dot per model, language and setting with its Wilson interval.
- :func:`exam_scores_figure`: the EXAM score of each system of a run, with mean +- 1.96 SE over
  queries (or, for a single query, +- 1.96 x the per-question binomial SE), the gold articles
  marked.
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd
import plotly.graph_objects as go

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
