"""The same verdicts imported in two file orders give identical figures, view by view.

Named raters, anonymous slots (whose numbers follow file order: a slot is not a person, so the
views pool or relabel-invariantly summarise them), an auto-rater that judged both orders of a
pair, and an imported majority rater.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from pg_server import module_backend  # noqa: F401  (fixture: one backend per module)

from core.corpus.evaluation_layouts import read_judgments
from core.corpus.evaluations import store_evaluation
from core.store.database import open_db
from core.views.agreement_view import auto_vs_crowd, crowd_overview, slot_agreement
from core.views.figures import agreement_overview, consistency_view, rater_pair_view
from core.views.gold import gold_agreement, gold_size, people_agreement
from core.views.rater_report.assemble import report_data
from core.views.rater_validation import validate_rater
from core.views.report_html import report_html
from core.views.team import imported_raters, team_table

VERDICTS = ("A", "B", "Equal")


def _rows() -> list[dict[str, str]]:
    rng = np.random.default_rng(4)
    out = []
    for q in range(30):
        truth = VERDICTS[rng.integers(3)]
        a, b = ("s1", "s2") if q % 2 else ("s2", "s1")
        raters = {
            "human:ann": truth if rng.random() < 0.8 else VERDICTS[rng.integers(3)],
            "human:ben": truth if rng.random() < 0.8 else VERDICTS[rng.integers(3)],
            "human:crowd-majority": truth,
            "auto:judge": truth if rng.random() < 0.7 else VERDICTS[rng.integers(3)],
        }
        for rater, verdict in raters.items():
            out.append(
                dict(question_id=f"q{q}", system_a=a, system_b=b, verdict=verdict, rater=rater)
            )
        for _ in range(3):
            out.append(
                dict(
                    question_id=f"q{q}",
                    system_a=a,
                    system_b=b,
                    rater="human:crowd#",
                    verdict=truth if rng.random() < 0.6 else VERDICTS[rng.integers(3)],
                )
            )
        if q % 3 == 0:  # the auto-rater also judged the other order
            out.append(
                dict(
                    question_id=f"q{q}",
                    system_a=b,
                    system_b=a,
                    rater="auto:judge",
                    verdict={"A": "B", "B": "A", "Equal": "Equal"}[truth],
                )
            )
    return out


@pytest.fixture(scope="module")
def two_orders(tmp_path_factory, module_db_location):
    rows = _rows()
    shuffled = [rows[i] for i in np.random.default_rng(1).permutation(len(rows))]
    dbs = []
    for name, found in (("one", rows), ("two", shuffled)):
        d = tmp_path_factory.mktemp(name)
        pd.DataFrame(found).to_csv(d / "v.csv", index=False)
        db = open_db(module_db_location(name))
        store_evaluation(db, read_judgments(d / "v.csv"))
        dbs.append(db)
    yield dbs
    for db in dbs:
        db.close()


VIEWS = {
    "gold_agreement": lambda db: gold_agreement(db),
    "people_agreement": lambda db: people_agreement(db),
    "gold_size": lambda db: gold_size(db),
    "team_table": lambda db: team_table(db).drop(columns=["median_s"]),
    "imported_raters": imported_raters,
    "auto_vs_crowd": lambda db: auto_vs_crowd(db, "auto:judge", "human:crowd-majority"),
    "slot_agreement": lambda db: slot_agreement(db, "human:crowd#"),
    "crowd_overview": lambda db: crowd_overview(db),
    "agreement_overview": lambda db: agreement_overview(db, "pairwise"),
    "consistency_view": lambda db: consistency_view(db, "pairwise"),
    "rater_pair_view": lambda db: rater_pair_view(db, "pairwise", "human:ann", "auto:judge"),
    "validate_rater (slots)": lambda db: validate_rater(db, "auto:judge", include_slots=True),
    "report_data": lambda db: _report(db),
    "report_html": lambda db: report_html(_report(db)),
}


def _report(db) -> dict:
    """The rater report's data without the time it was made."""
    data = report_data(db, n_sim=20, n_boot=100)
    data["generated_at"] = "(time left out)"
    return data


def _same(x, y) -> None:
    if isinstance(x, pd.DataFrame):
        pd.testing.assert_frame_equal(
            x.reset_index(drop=True), y.reset_index(drop=True), check_dtype=False
        )
    elif isinstance(x, dict):
        assert set(x) == set(y)
        for k in x:
            _same(x[k], y[k])
    elif isinstance(x, (list, tuple)):
        assert len(x) == len(y)
        for a, b in zip(x, y):
            _same(a, b)
    elif isinstance(x, float) and np.isnan(x):
        assert isinstance(y, float) and np.isnan(y)
    elif hasattr(x, "to_plotly_json"):
        assert x.to_plotly_json() == y.to_plotly_json()
    else:
        assert x == y


@pytest.mark.parametrize("view", sorted(VIEWS))
def test_two_file_orders_give_identical_figures(two_orders, view):
    one, two = two_orders
    _same(VIEWS[view](one), VIEWS[view](two))
