"""The EXAM, Cross lingual and Rater validation plots (issue 34) show what their tables say: one
dot per language and setting with the table's interval, one bar per system with its 95%
interval, one bar per simulated number of items with the share its decision holds in."""

from __future__ import annotations

import pandas as pd
import pytest

from core.views.epsilon_figure import needed_figure
from core.views.exam_book import UNDEFINED
from core.views.score_figures import bias_figure, exam_scores_figure, xrag_accuracy_figure


def _accuracy(models=("m1",)) -> pd.DataFrame:
    rows = []
    for m in models:
        for lang in ("en", "de"):
            for setting in ("monolingual", "cross-lingual"):
                for qtype in ("all", "single"):
                    rows.append(
                        {"model": m, "language": lang, "setting": setting, "qtype": qtype}
                        | {"n": 10, "n_correct": 6, "accuracy": 0.6, "ci_low": 0.3}
                        | {"ci_high": 0.8, "level": 0.95}
                    )
    return pd.DataFrame(rows)


def test_xrag_accuracy_figure_is_language_by_setting_with_counts_and_intervals():
    acc = _accuracy()
    acc.loc[(acc["language"] == "de") & (acc["setting"] == "monolingual"), "accuracy"] = 0.25
    (cells,) = xrag_accuracy_figure(acc).data
    assert list(cells.y) == ["en", "de"] and list(cells.x) == ["cross-lingual", "monolingual"]
    assert [list(r) for r in cells.z] == [[0.6, 0.6], [0.6, 0.25]]  # question type "all" only
    assert cells.texttemplate == "%{z:.0%}<br>%{text}" and cells.text[1][1] == "n=10"
    says = cells.customdata[1][1]
    assert "25.0% (6 of 10 answers" in says and "30.0% to 80.0%" in says
    controlled = _accuracy().assign(setting="controlled:de-de-en")
    (cells,) = xrag_accuracy_figure(pd.concat([acc, controlled])).data
    assert list(cells.x) == ["cross-lingual", "monolingual"]  # its own table, not the plot
    two = xrag_accuracy_figure(_accuracy(("m1", "m2")))
    assert list(two.data[0].y) == ["m1 · en", "m1 · de", "m2 · en", "m2 · de"]


def _board(queries: int) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {"rank": 1, "system": "gold", "gold": True, "EXAM": 0.9, "EXAM SE": 0.05},
            {"rank": 2, "system": "sys", "gold": False, "EXAM": 0.5, "EXAM SE": 0.1},
        ]
    ).assign(queries=queries, **{"EXAM SE (per question, binomial)": [0.02, 0.04]})


def test_exam_scores_figure_has_a_bar_per_system_with_its_interval():
    (bar,) = exam_scores_figure(_board(4)).data
    assert list(bar.y) == ["gold", "sys"] and list(bar.x) == [0.9, 0.5]
    assert list(bar.error_x.array) == pytest.approx([0.098, 0.196])
    assert bar.marker.color[0] != bar.marker.color[1]  # the gold articles stand out
    one = _board(1).assign(**{"EXAM SE": UNDEFINED})  # a book: SE over queries undefined
    (bar,) = exam_scores_figure(one).data
    assert list(bar.error_x.array) == pytest.approx([1.96 * 0.02, 1.96 * 0.04])


def share(x: float | None, n: int = 20) -> dict:
    if x is None:
        return {"share": None, "low": None, "high": None, "n": 0}
    return {"share": x, "low": x - 0.1, "high": x + 0.2, "n": n}


def biases(family: str = "gpt") -> dict:
    """A Rater validation section's ``biases`` (core/views/rater_report/biases.py's shape)."""
    return {
        "biases": {
            "position": {
                "both_orders": share(0.2),
                "first_shown": share(0.6),
                "people_first_shown": share(0.5),
            },
            "length": {"rater": share(0.7), "people": share(None)},
            "ties": {
                "rater": {"Equal": share(0.1), "None": share(0.05)},
                "people": {"Equal": share(0.3), "None": share(0.1)},
            },
            "self_preference": {"applies": False, "family": family},
        }
    }


def test_bias_figure_shows_the_rater_beside_the_people_with_intervals():
    rater, people = bias_figure(biases()).data
    assert rater.name == "auto-rater" and people.name == "people"
    assert list(rater.y) == [
        "position: both orders disagree",
        "position: first-shown wins",
        "length: longer wins",
        "ties: Equal",
        "ties: None",
    ]
    assert list(rater.x) == [0.2, 0.6, 0.7, 0.1, 0.05]
    assert list(rater.error_x.arrayminus) == pytest.approx([0.1] * 5)
    assert list(rater.error_x.array) == pytest.approx([0.2] * 5)
    # no people's share for "both orders" (a rater-only measure) or without data (length)
    assert list(people.y) == ["position: first-shown wins", "ties: Equal", "ties: None"]


def test_needed_figure_is_one_bar_per_size_in_number_order_with_the_table_s_shares():
    """Sizes as stored (string keys) come out in number order, not text order ("120" < "30"),
    each bar the share its decision holds in, the hover its decision and share passing."""
    needed = {
        "stability": {"30": 0.4, "120": 0.95, "60": 0.7},
        "decision": {"30": "none", "120": "pass", "60": "pass"},
        "pass_probability": {"30": 0.35, "120": 0.91, "60": 0.6},
    }
    fig = needed_figure("auto:judge", needed)
    (bars,) = fig.data
    assert list(bars.x) == ["30 items", "60 items", "120 items"]
    assert list(bars.y) == [0.4, 0.7, 0.95]
    assert [list(c) for c in bars.customdata] == [["none", 0.35], ["pass", 0.6], ["pass", 0.91]]
    assert [s.y0 for s in fig.layout.shapes] == [0.9]  # the simulation's target
