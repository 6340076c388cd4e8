"""Every plotly figure a page shows keeps markup from data inert (one path: ``inert_figure``).

Markup is planted in system names, rater names, verdict labels and titles from data; every figure
function of ``core.views`` is built from it and no string of the figure may hold a planted tag.
A figure function added to ``core.views`` without an entry here fails the enumeration test.
"""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest

from core.stats.ranking_settings import RankingSettings
from core.views.epsilon_figure import needed_figure, sensitivity_figure
from core.views.figures import confusion_figure
from core.views.leaderboard import compute_leaderboard
from core.views.leaderboard_figures import (
    accuracy_figure,
    forest_figure,
    matrix_figure,
    slope_figure,
)
from core.views.ppi_ranking import ppi_figure
from core.views.score_figures import bias_figure, exam_scores_figure, xrag_accuracy_figure
from core.views.text import chart_template_text, chart_text, inert_figure

VIEWS = Path(__file__).resolve().parents[2] / "core" / "views"
SPAN = '<span style="font-size:40px;color:red">X</span>'
LINK = '<a href="http://e.com">l</a>'
TAGS = ("<span", "<a ", "</a>", "</span>")


def planted(i: int) -> str:
    return f"sys{i} {SPAN} {LINK} %{{x}} & co"


SYSTEMS = [planted(i) for i in range(3)]
RATER_A = "human:" + SPAN
RATER_B = "auto:" + LINK


def _records() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    rows = []
    for q in range(24):
        for i, a in enumerate(SYSTEMS):
            for b in SYSTEMS[i + 1 :]:
                rows.append(
                    {
                        "question_id": f"q{q}",
                        "system_a": a,
                        "system_b": b,
                        "verdict": str(rng.choice(["A", "B", "Equal"])),
                    }
                )
    return pd.DataFrame(rows)


def _board():
    lb, why = compute_leaderboard(_records(), RankingSettings(n_boot=20, seed=0))
    assert lb is not None, why
    return lb


def _slope():
    lb = _board()
    t = lb.table
    return {
        "human": RATER_A,
        "auto": RATER_B,
        "spearman": 0.5,
        "kendall": 0.3,
        "table": pd.DataFrame(
            {"system": t["name"], "beta human": t["beta"], "beta auto": t["beta"][::-1].values}
        ),
    }


def _accuracy() -> pd.DataFrame:
    return pd.DataFrame(
        [
            {"rater": r, "system": s, "n": 10, "supported": 5, "accuracy": 0.5}
            | {"ci_low": 0.2, "ci_high": 0.8}
            for r in (RATER_A, RATER_B)
            for s in SYSTEMS
        ]
    )


def _confusion():
    both = pd.DataFrame({"a": ["A", SPAN, "B", LINK], "b": [SPAN, "A", LINK, "B"]})
    return confusion_figure(both, RATER_A, RATER_B)


def _ppi() -> dict:
    """A people + judge result (:func:`core.views.ppi_ranking.ppi_ranking`'s shape) naming the
    planted systems."""

    def est(x: float) -> dict:
        return {"estimate": x, "interval": [x - 0.1, x + 0.1]}

    return {
        "level": 0.95,
        "systems": [
            {"name": s, **est(0.5), "people": est(0.4 + i / 10), "judge": est(0.6)}
            for i, s in enumerate(SYSTEMS)
        ],
    }


def _bias() -> go.Figure:
    """A section's biases with a planted family name in its self-preference measure."""
    s = {"share": 0.5, "low": 0.4, "high": 0.6, "n": 10}
    biases = {
        "position": {"both_orders": s, "first_shown": s, "people_first_shown": s},
        "length": {"rater": s, "people": s},
        "ties": {"rater": {"Equal": s, "None": s}, "people": {"Equal": s, "None": s}},
        "self_preference": {"applies": True, "family": SPAN + LINK, "rater": s, "people": s},
    }
    return bias_figure({"biases": biases})


#: Every figure function of core.views -> the figures it builds from planted data.
BUILDERS = {
    "forest_figure": lambda: [forest_figure(_board()), forest_figure(_board(), "strength")],
    "matrix_figure": lambda: [
        matrix_figure(_board().win_rate, SPAN, LINK),
        matrix_figure(_board().counts, "counts", LINK, fmt=".0f", zmin=0, zmax=None),
    ],
    "accuracy_figure": lambda: [accuracy_figure(_accuracy())],
    "slope_figure": lambda: [slope_figure(_slope())],
    "confusion_figure": lambda: [_confusion()],
    "ppi_figure": lambda: [ppi_figure(_ppi())],
    "xrag_accuracy_figure": lambda: [
        xrag_accuracy_figure(
            pd.DataFrame(
                [
                    {"model": m, "language": SPAN, "setting": LINK, "qtype": "all", "n": 4}
                    | {"n_correct": 2, "accuracy": 0.5, "ci_low": 0.2, "ci_high": 0.8}
                    | {"level": 0.95}
                    for m in SYSTEMS
                ]
            )
        )
    ],
    "bias_figure": lambda: [_bias()],
    "exam_scores_figure": lambda: [
        exam_scores_figure(
            pd.DataFrame(
                [
                    {"system": s, "gold": i == 0, "EXAM": 0.5, "EXAM SE": 0.1}
                    for i, s in enumerate(SYSTEMS)
                ]
            )
        )
    ],
    "needed_figure": lambda: [
        needed_figure(
            RATER_B,
            {
                "stability": {"30": 0.5, "120": 0.95},
                "decision": {"30": "none", "120": "pass"},
                "pass_probability": {"30": 0.4, "120": 0.9},
            },
        )
    ],
    "sensitivity_figure": lambda: [
        sensitivity_figure(
            RATER_B,
            [
                {"epsilon": e / 100, "winning_rate": e / 30, "advantage_prob": 0.6}
                for e in range(31)
            ],
            0.1,
        )
    ],
}


def _strings(value, path=""):
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _strings(v, f"{path}.{k}")
    elif isinstance(value, list | tuple):
        for i, v in enumerate(value):
            yield from _strings(v, f"{path}[{i}]")
    elif isinstance(value, np.ndarray):
        yield from _strings(value.tolist(), path)


def test_every_figure_function_is_covered():
    """Each ``def ...(...) -> go.Figure`` in core/views has a builder above."""
    found = set()
    for path in VIEWS.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef) and node.returns is not None:
                if ast.unparse(node.returns).endswith("Figure"):
                    found.add(node.name)
    assert found == set(BUILDERS)


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_no_planted_tag_reaches_a_figure(name):
    figures = BUILDERS[name]()
    for fig in figures:
        assert isinstance(fig, go.Figure)
        spec = fig.to_plotly_json()
        strings = list(_strings(spec))
        leaks = [(p, s) for p, s in strings if any(t in s for t in TAGS)]
        assert leaks == []
        # the planted text is still there, escaped (shown literally)
        assert any("&lt;span style" in s or "&lt;a href" in s for _, s in strings)
        # no template of a figure fills in a placeholder planted in a name
        for p, s in strings:
            if p.endswith("template") and "sys" in s:
                assert "%{x} &amp;" not in s


def test_chart_text_escapes_tags_entities_and_placeholders():
    assert chart_text('<a href="x">l</a> & b') == '&lt;a href="x"&gt;l&lt;/a&gt; &amp; b'
    assert chart_text(None) == ""
    assert chart_template_text("50% %{x}") == "50&#37; &#37;{x}"


def test_inert_figure_keeps_templates_and_numbers():
    fig = go.Figure(
        go.Bar(
            x=["<b>a</b>", "c"],
            y=[1.5, 2.0],
            name=LINK,
            hovertemplate="%{x}<br>n = %{y}<extra></extra>",
        )
    )
    fig.update_layout(title=SPAN, xaxis_title=LINK, annotations=[{"text": SPAN}])
    out = inert_figure(fig).to_plotly_json()
    trace, layout = out["data"][0], out["layout"]
    assert list(trace["x"]) == ["&lt;b&gt;a&lt;/b&gt;", "c"]
    assert list(trace["y"]) == [1.5, 2.0]
    assert trace["hovertemplate"] == "%{x}<br>n = %{y}<extra></extra>"
    assert trace["name"] == chart_text(LINK)
    assert layout["title"]["text"] == chart_text(SPAN)
    assert layout["xaxis"]["title"]["text"] == chart_text(LINK)
    assert layout["annotations"][0]["text"] == chart_text(SPAN)
