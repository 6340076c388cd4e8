"""AppTest of the Rater validation and Agreement pages on tasks imported on their own scales
(issue 32, item 3): a categorical and an ordinal task, each with its alt-test (the scale's
metric) and agreement by scale; yes/no verdicts are validated too."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from browser_support import unescaped
from cli_run import run_cli
from scaled_fixture import CATEGORIES, PEOPLE, build_scaled_db, import_rows, label_rows
from streamlit.testing.v1 import AppTest

from core.stats.alt_test_power import items_needed
from core.store.database import open_db
from core.views.numbers import num
from core.views.rater_report import needed as needed_module
from core.views.rater_report import scaled as scaled_module
from core.views.scale_agreement import scale_agreement, scale_rows
from core.views.text import md

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


SECOND = "auto:second"


def _with_second_rater(rows: list[dict[str, str]]) -> list[dict[str, str]]:
    """The rows plus a second auto-rater: the first one's labels, another on every third item."""
    extra = []
    for row in rows:
        if row["rater"] == "auto:judge":
            if row["verdict"].isdigit():
                other = "3" if row["verdict"] != "3" else "4"
            else:
                other = "Service" if row["verdict"] == "Food" else "Food"
            changed = int(row["question_id"][1:]) % 3 == 0
            extra.append({**row, "rater": SECOND, "verdict": other if changed else row["verdict"]})
    return rows + extra


def _two_rater_db(folder: Path, seed: int | None) -> Path:
    """Tasks aspects (categorical) and stars (ordinal), two auto-raters, the rows imported in
    file order or shuffled with ``seed``."""
    folder.mkdir()
    path = folder / "two.db"
    db = open_db(path)
    try:
        for task, scale, labels in (
            ("aspects", "categorical", CATEGORIES),
            ("stars", "ordinal", ()),
        ):
            rows = _with_second_rater(label_rows(scale))
            if seed is not None:
                rows = [rows[i] for i in np.random.default_rng(seed).permutation(len(rows))]
            import_rows(db, folder, rows, task, scale, labels)
    finally:
        db.close()
    return path


def _counting_simulations(monkeypatch) -> list[int]:
    """Count the items-needed simulations run (by the page's report or its open tab)."""
    calls: list[int] = []

    def counting(*args, **kwargs):
        calls.append(1)
        return items_needed(*args, **kwargs)

    for module in (needed_module, scaled_module):  # the report's section computed it before
        monkeypatch.setattr(module, "items_needed", counting, raising=False)
    return calls


def test_first_load_simulates_only_the_open_tabs_rater(tmp_path, monkeypatch):
    """The simulation (seconds per rater on a thousand items) runs for the tab shown; another
    rater's when its tab is opened; the download's whole report reuses them."""
    path = _two_rater_db(tmp_path / "one", None)
    monkeypatch.setenv("WORKBENCH_DB", str(path))
    monkeypatch.delenv("WORKBENCH_ACCESS_CODE", raising=False)
    calls = _counting_simulations(monkeypatch)
    at = _open("pages/12_Rater_validation.py")
    assert len(calls) == 1
    (shown,) = [unescaped(h.value) for h in at.header]
    other = next(r for r in ("auto:judge", SECOND) if r != shown)
    assert any("How many more doubly-labelled items" in t for t in _texts(at))
    at.query_params["rater"] = md(other)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert [unescaped(h.value) for h in at.header] == [other]
    assert len(calls) == 2


def _page_figures(task: str) -> dict[str, dict]:
    """Every rater's figures on the page for ``task``: the compare row, the alt-test's people,
    the agreement rows, the simulation's table and its advice (a fresh page: the first tab
    open, then the other's by its link)."""
    at = _open("pages/12_Rater_validation.py")
    (select,) = at.selectbox
    select.set_value(task).run()
    assert not at.exception, [e.value for e in at.exception]
    compare = at.dataframe[0].value
    out = {}
    for i, rater in enumerate(compare["auto-rater"]):
        if i:
            at.query_params["rater"] = md(rater)
            at.run()
            assert not at.exception, [e.value for e in at.exception]
        assert [unescaped(h.value) for h in at.header] == [rater]
        frames = [d.value for d in at.dataframe]
        by_first = {f.columns[0]: f for f in frames[1:]}
        out[rater] = {
            "compare": compare[compare["auto-rater"] == rater].iloc[0].to_dict(),
            "humans": by_first["human"].to_dict("records"),
            "agreement": by_first["compared with"].to_dict("records"),
            "needed": by_first["items"].to_dict("records"),
            "texts": sorted(_texts(at)),
        }
    return out


def _core_figures(path: Path, rater: str, task: str) -> dict:
    """The same figures from ``validate-rater`` / ``validation-items`` (the page's settings:
    experts' epsilon 0.2, 200 populations, seed 0) and the agreement view."""
    base = ["--db", str(path)]
    common = ["--rater", rater, "--task", task, "--annotators", "experts", "--json"]
    code, out, err = run_cli([*base, "validate-rater", *common])
    assert code == 0, err
    alt = json.loads(out)
    code, out, err = run_cli([*base, "validation-items", *common, "--sims", "200"])
    assert code == 0, err
    needed = json.loads(out)
    db = open_db(path)
    try:
        agreement = scale_rows(scale_agreement(db, rater, task))
    finally:
        db.close()
    return {"alt": alt, "needed": needed, "agreement": agreement}


def test_page_figures_equal_the_cli_in_two_row_orders(tmp_path, monkeypatch):
    """Categorical and ordinal tasks, two auto-raters, the same rows in two orders: every figure
    of the page equals validate-rater's, validation-items' and the agreement view's, and the page
    is the same in both orders."""
    monkeypatch.delenv("WORKBENCH_ACCESS_CODE", raising=False)
    pages = []
    for name, seed in (("one", None), ("two", 7)):
        path = _two_rater_db(tmp_path / name, seed)
        monkeypatch.setenv("WORKBENCH_DB", str(path))
        got = {task: _page_figures(task) for task in ("aspects", "stars")}
        for task, raters in got.items():
            assert sorted(raters) == ["auto:judge", SECOND]
            for rater, page in raters.items():
                core = _core_figures(path, rater, task)
                alt = core["alt"]
                row = page["compare"]
                assert row["verdict"] == ("passes" if alt["passed"] else "fails")
                assert row["advantage probability"] == num(alt["advantage_prob"], ".3f")
                assert row["winning rate"] == num(alt["winning_rate"], ".0%")
                assert row["items"] == num(alt["items"], "d")
                assert page["humans"] == [
                    {
                        "human": h["name"],
                        "items": h["items"],
                        "rater's advantage": h["advantage"],
                        "person's own advantage": h["human_advantage"],
                        "p-value": f"{h['p_value']:.3g}",
                        "beaten": h["rejected"],
                    }
                    for h in alt["humans"]
                ]
                needed = core["needed"]
                assert page["needed"] == [
                    {
                        "items": int(n),
                        "decision": needed["decision"][n],
                        "holds in": needed["stability"][n],
                        "share passing": needed["pass_probability"][n],
                    }
                    for n in sorted(needed["stability"], key=int)
                ]
                advice = needed["advice"][:1].upper() + needed["advice"][1:] + "."
                assert advice in page["texts"]
                assert page["agreement"] == pd.DataFrame(core["agreement"]).to_dict("records")
        pages.append(got)
    assert pages[0] == pages[1]
