"""The Rater validation page's sensitivity plot: the alt-test's winning rate and advantage
probability over epsilon 0 to 0.3 with the chosen epsilon marked (the HTML report draws the same
as inline SVG, :func:`core.views.report_svg.line_chart`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import plotly.graph_objects as go

from core.views.text import inert_figure

if TYPE_CHECKING:
    from core.views.rater_epsilon import SensitivityPoint


def sensitivity_figure(rater: str, curve: Sequence[SensitivityPoint], chosen: float) -> go.Figure:
    """Winning rate (steps) and advantage probability (flat: it does not depend on epsilon) of
    ``rater`` over ``curve``'s epsilons; the pass line at 0.5 dashed, ``chosen`` a dotted line."""
    eps = [p["epsilon"] for p in curve]
    fig = go.Figure()
    fig.add_trace(
        go.Scatter(
            x=eps,
            y=[p["winning_rate"] for p in curve],
            mode="lines+markers",
            line={"shape": "hv"},
            name="winning rate",
            hovertemplate="epsilon %{x:.2f}<br>winning rate %{y:.0%}<extra></extra>",
        )
    )
    fig.add_trace(
        go.Scatter(
            x=eps,
            y=[p["advantage_prob"] for p in curve],
            mode="lines",
            line={"dash": "dash"},
            name="advantage probability",
            hovertemplate="epsilon %{x:.2f}<br>advantage probability %{y:.3f}<extra></extra>",
        )
    )
    fig.add_hline(y=0.5, line={"color": "#999", "dash": "dot"}, annotation_text="passes at 50%")
    fig.add_vline(
        x=chosen,
        line={"color": "#c0392b"},
        annotation_text=f"chosen epsilon {chosen:g}",
        annotation_position="top left",
    )
    fig.update_layout(
        title=f"{rater}: the decision over epsilon",
        xaxis_title="epsilon",
        yaxis_title="share",
        yaxis_range=[-0.02, 1.05],
        xaxis_range=[-0.005, max(0.3, chosen) + 0.005],
        height=320,
        margin={"l": 10, "r": 10, "t": 60, "b": 40},
        legend={"orientation": "h", "y": -0.25},
    )
    return inert_figure(fig)
