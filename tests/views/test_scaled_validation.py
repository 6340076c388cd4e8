"""validate-rater, validation-items, rater-report and agreement on every scale (issue 32, item
3): categorical, ordinal and multilabel tasks imported with ``--task``, and yes/no verdicts. Every
figure is the same for the same rows imported in two orders."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from cli_run import run_cli
from scaled_fixture import CATEGORIES, PEOPLE, import_rows, label_rows

from core.corpus.evaluation_layouts import read_judgments
from core.corpus.evaluations import store_evaluation
from core.errors import InputError
from core.store.database import open_db
from core.views.rater_report.assemble import report_data
from core.views.rater_validation import validate_rater, validation_items_needed
from core.views.report_html import report_html
from core.views.scale_agreement import scale_agreement, task_agreement


@pytest.fixture
def scaled_db(tmp_path):
    db = open_db(tmp_path / "s.db")
    import_rows(db, tmp_path, label_rows("categorical"), "aspects", "categorical", CATEGORIES)
    import_rows(db, tmp_path, label_rows("ordinal"), "stars", "ordinal")
    yield db
    db.close()


def test_validate_rater_on_categorical_and_ordinal(scaled_db):
    cat = validate_rater(scaled_db, "auto:judge", "aspects", 0.2)
    assert (cat["scale"], cat["metric"], cat["items"]) == ("categorical", "accuracy", 45)
    assert len(cat["humans"]) == 4
    stars = validate_rater(scaled_db, "auto:judge", "stars", 0.2)
    assert (stars["scale"], stars["metric"]) == ("ordinal", "neg_rmse")
    exact = validate_rater(scaled_db, "auto:judge", "stars", 0.2, metric="accuracy")
    assert exact["metric"] == "accuracy"
    assert [h["advantage"] for h in exact["humans"]] != [h["advantage"] for h in stars["humans"]]
    with pytest.raises(InputError, match="neg_rmse needs ordered labels"):
        validate_rater(scaled_db, "auto:judge", "aspects", 0.2, metric="neg_rmse")
    with pytest.raises(InputError, match="neg_rmse needs ordered labels"):
        report_data(scaled_db, task="aspects", metric="neg_rmse")
    with pytest.raises(InputError, match="no task 'nope'; tasks: side-by-side, absolute"):
        validate_rater(scaled_db, "auto:judge", "nope", 0.2)


def test_validate_rater_hints_the_task_it_has(scaled_db):
    with pytest.raises(InputError, match="it has verdicts in task aspects, stars: pass --task"):
        validate_rater(scaled_db, "auto:judge", "side-by-side", 0.2)


def test_items_needed_and_report_on_a_scale(scaled_db):
    out = validation_items_needed(scaled_db, "auto:judge", "stars", n_sim=5)
    assert out["metric"] == "neg_rmse" and out["current"] == 45
    data = report_data(scaled_db, task="stars", n_sim=5)
    (sec,) = data["raters"]
    assert sec["alt"]["metric"] == "neg_rmse" and sec["scale_agreement"]["scale"] == "ordinal"
    html = report_html(data)
    assert "weighted kappa (quadratic)" in html and "Krippendorff" in html
    assert "Task stars (ordinal labels)" in html


def test_scale_agreement_figures(scaled_db):
    sa = scale_agreement(scaled_db, "auto:judge", "stars")
    assert set(sa["among_people"]["alpha"]) == {"nominal", "ordinal", "interval"}
    assert sa["gold"]["rater"]["n"] == sa["gold"]["people"]["n"] == sa["gold"]["pairs"] > 0
    assert sa["gold"]["rater"]["weighted_kappa"] is not None
    cat = scale_agreement(scaled_db, "auto:judge", "aspects")
    assert set(cat["among_people"]["alpha"]) == {"nominal"}
    assert cat["people"][0]["weighted_kappa"] is None


def test_yes_no_report_and_hint(tmp_path):
    rows = yes_no_rows()
    path = tmp_path / "yn.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    db_path = tmp_path / "yn.db"
    assert run_cli(["--db", str(db_path), "init"])[0] == 0
    assert run_cli(["--db", str(db_path), "import-judgments", str(path)])[0] == 0
    code, _, err = run_cli(["--db", str(db_path), "validate-rater", "--rater", "auto:judge"])
    assert code == 2 and "pass --task absolute" in err
    code, out, err = run_cli(
        ["--db", str(db_path), "validate-rater", "--rater", "auto:judge", "--task", "absolute",
         "--json"]
    )  # fmt: skip
    assert code == 0, err
    assert json.loads(out)["scale"] == "yes/no"
    report = tmp_path / "r.html"
    code, out, err = run_cli(
        ["--db", str(db_path), "rater-report", "--all", "--out", str(report), "--simulations", "5"]
    )
    assert code == 0, err
    assert "Task absolute (yes/no labels)" in report.read_text(encoding="utf-8")


def yes_no_rows(n: int = 40) -> list[dict[str, str]]:
    """Yes/no verdicts of the people and the auto-rater on one system's answers."""
    rng = np.random.default_rng(5)
    rows = []
    for q in range(n):
        truth = rng.random() < 0.6
        for rater in [*PEOPLE, "auto:judge"]:
            said = truth if rng.random() < 0.85 else not truth
            rows.append(
                {
                    "question_id": f"q{q}",
                    "system": "s1",
                    "verdict": "yes" if said else "no",
                    "rater": rater,
                }
            )
    return rows


def _without_time(data):
    return {k: v for k, v in data.items() if k != "generated_at"}


def test_every_figure_identical_in_two_orders(tmp_path, new_db_location):
    outputs = []
    for name, seed in (("one", None), ("two", 7)):
        folder = tmp_path / name
        folder.mkdir()
        db = open_db(new_db_location(name))
        for task, scale, labels in (
            ("aspects", "categorical", CATEGORIES),
            ("stars", "ordinal", ()),
        ):
            rows = label_rows(scale)
            if seed is not None:
                rows = [rows[i] for i in np.random.default_rng(seed).permutation(len(rows))]
            import_rows(db, folder, rows, task, scale, labels)
        yes_no = yes_no_rows()
        if seed is not None:
            yes_no = [yes_no[i] for i in np.random.default_rng(seed).permutation(len(yes_no))]
        pd.DataFrame(yes_no).to_csv(folder / "yn.csv", index=False)
        store_evaluation(db, read_judgments(folder / "yn.csv"))
        got = {}
        for task in ("aspects", "stars", "absolute"):
            got[task] = (
                validate_rater(db, "auto:judge", task, 0.15),
                validation_items_needed(db, "auto:judge", task, n_sim=10),
                _without_time(report_data(db, task=task, n_sim=10)),
                scale_agreement(db, "auto:judge", task),
                task_agreement(db, task),  # the Agreement page's view
            )
        outputs.append(json.dumps(got, sort_keys=True, default=str))
        db.close()
    assert outputs[0] == outputs[1]


def test_multilabel_task_uses_jaccard(tmp_path):
    rng = np.random.default_rng(11)
    topics = ["a", "b", "c"]
    rows = []
    for q in range(40):
        truth = {t for t in topics if rng.random() < 0.5}
        for rater in [*PEOPLE, "auto:judge"]:
            given = truth ^ ({topics[int(rng.integers(3))]} if rng.random() < 0.3 else set())
            rows.append({"question_id": f"q{q}", "verdict": "|".join(sorted(given)) or "[]",
                         "rater": rater})  # fmt: skip
    db = open_db(tmp_path / "m.db")
    try:
        import_rows(db, tmp_path, rows, "topics", "multilabel", topics)
        out = validate_rater(db, "auto:judge", "topics", 0.2)
        assert (out["scale"], out["metric"], out["items"]) == ("multilabel", "jaccard", 40)
        sa = scale_agreement(db, "auto:judge", "topics")
        assert sa["gold"]["rater"]["n"] > 0 and '["a", "b"]' in sa["labels"]
        assert "Agreement on the multilabel scale" in report_html(
            report_data(db, task="topics", n_sim=5)
        )
    finally:
        db.close()
