"""The Rater validation page's plots: the sensitivity plot (the alt-test's winning rate and
advantage probability over epsilon 0 to 0.3 with the chosen epsilon marked; the HTML report draws
the same as inline SVG, :func:`core.views.report_svg.line_chart`) and the items-needed plot (the
share of plausible populations in which the majority decision holds, per number of items, against
the simulation's target; the report's bar chart, :func:`core.views.report_sections.needed_html`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

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


def needed_figure(rater: str, needed: Mapping[str, Any], target: float = 0.9) -> go.Figure:
    """One bar per simulated number of doubly-labelled items ``n``: the share of plausible
    populations in which the majority decision at ``n`` holds (``needed["stability"][n]``, from
    :func:`core.stats.alt_test_power.items_needed`), the hover adding that decision and the
    share of samples passing; ``target`` (the simulation's default, 0.9) dashed."""
    sizes = sorted(needed["stability"], key=int)
    fig = go.Figure(
        go.Bar(
            x=[f"{int(n):,} items" for n in sizes],
            y=[float(needed["stability"][n]) for n in sizes],
            customdata=[
                [str(needed["decision"][n]), float(needed["pass_probability"][n])] for n in sizes
            ],
            hovertemplate="%{x}: the decision (%{customdata[0]}) holds in %{y:.0%} of"
            " populations<br>samples passing %{customdata[1]:.0%}<extra></extra>",
            marker={"color": "#4c78a8"},
        )
    )
    fig.add_hline(
        y=target, line={"color": "#c0392b", "dash": "dash"}, annotation_text=f"target {target:.0%}"
    )
    fig.update_layout(
        title=f"{rater}: how often the majority decision holds, by number of items",
        xaxis_title="doubly-labelled items",
        yaxis_title="share of populations",
        yaxis_range=[0, 1.05],
        yaxis_tickformat=".0%",
        height=300,
        margin={"l": 10, "r": 10, "t": 60, "b": 40},
    )
    return inert_figure(fig)
