"""AppTest of the Rater validation and Agreement pages on tasks imported on their own scales
(issue 32, item 3): a categorical and an ordinal task, each with its alt-test (the scale's
metric) and agreement by scale; yes/no verdicts are validated too."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from browser_support import unescaped
from cli_run import run_cli
from scaled_fixture import PEOPLE, build_scaled_db
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def scaled_db(tmp_path, monkeypatch) -> Path:
    path = tmp_path / "scaled.db"
    build_scaled_db(path, tmp_path)
    monkeypatch.setenv("WORKBENCH_DB", str(path))
    monkeypatch.delenv("WORKBENCH_ACCESS_CODE", raising=False)
    return path


def _open(page: str) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params["name"] = "alice"
    at.run()
    at.switch_page(page)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _texts(at: AppTest) -> list[str]:
    return [unescaped(x.value) for x in (*at.markdown, *at.caption, *at.success, *at.error)]


def test_rater_validation_page_on_a_categorical_and_an_ordinal_task(scaled_db):
    at = _open("pages/12_Rater_validation.py")
    (task,) = at.selectbox
    assert task.options == ["aspects", "stars"]
    texts = _texts(at)
    assert any("labels of task aspects (categorical)" in t for t in texts)
    assert any("Agreement on the categorical scale" in t for t in texts)
    assert any("alternative annotator test" in t for t in texts)
    task.set_value("stars").run()
    assert not at.exception, [e.value for e in at.exception]
    texts = _texts(at)
    assert any("labels of task stars (ordinal)" in t for t in texts)
    assert any("alignment neg_rmse" in t for t in texts)
    frames = [d.value for d in at.dataframe]
    assert any("weighted kappa (quadratic)" in f.columns for f in frames)
    assert any("Krippendorff's alpha among the people: nominal" in t for t in texts)


def test_agreement_page_on_a_categorical_and_an_ordinal_task(scaled_db):
    at = _open("pages/4_Agreement.py")
    (kind,) = at.radio
    assert list(kind.options)[-2:] == ["Task aspects", "Task stars"]
    kind.set_value("stars").run()
    assert not at.exception, [e.value for e in at.exception]
    texts = _texts(at)
    assert any("Task stars" in t and "ordinal" in t for t in texts)
    (frame,) = [d.value for d in at.dataframe]
    assert list(frame["compared with"][:2]) == [
        "rater vs leave-one-out gold",
        "people vs the same gold",
    ]
    assert "weighted kappa (quadratic)" in frame.columns
    kind.set_value("aspects").run()
    assert not at.exception
    (frame,) = [d.value for d in at.dataframe]
    assert "weighted kappa (quadratic)" not in frame.columns
    assert "Gwet's AC1" in frame.columns


def test_rater_validation_page_on_yes_no_verdicts(tmp_path, monkeypatch):
    rows = [
        {"question_id": f"q{q}", "system": "s1", "verdict": "yes" if (q + k) % 5 else "no",
         "rater": rater}
        for q in range(40)
        for k, rater in enumerate([*PEOPLE, "auto:judge"])
    ]  # fmt: skip
    path = tmp_path / "yn.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    db = tmp_path / "yn.db"
    assert run_cli(["--db", str(db), "init"])[0] == 0
    assert run_cli(["--db", str(db), "import-judgments", str(path)])[0] == 0
    monkeypatch.setenv("WORKBENCH_DB", str(db))
    monkeypatch.delenv("WORKBENCH_ACCESS_CODE", raising=False)
    at = _open("pages/12_Rater_validation.py")
    assert not any("nothing to validate" in unescaped(i.value) for i in at.info)
    assert any("labels of task absolute (yes/no)" in t for t in _texts(at))


@pytest.mark.parametrize(
    "page", sorted(p.name for p in (ROOT / "pages").glob("*.py")), ids=lambda p: p[:-3]
)
def test_every_page_renders_beside_labelled_tasks(scaled_db, page):
    """Judgments of kind ``label`` are read only where a page asks for them: no page breaks."""
    _open(f"pages/{page}")
