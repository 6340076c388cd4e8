"""AppTest of the pages with an imported evaluation (the PRD Vicuna80 demo folder)."""

from __future__ import annotations

from pathlib import Path

from browser_support import build_fixture_db, unescaped
from streamlit.testing.v1 import AppTest

from core.annotation.pairwise import split_pair_key
from core.corpus.evaluations import store_evaluation
from core.store.database import open_db
from core.views.agreement_pairs import UNIT_RULE

ROOT = Path(__file__).resolve().parents[2]


def page(path: str) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=90).run()
    at.session_state["annotator"] = "alice"
    if path != "app.py":
        at.switch_page(path)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def metrics(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def test_overview_says_where_the_prd_data_come_from(prd_db):
    at = page("app.py")
    assert any("PRD Vicuna80" in i.value and "bcdnlp/PRD" in i.value for i in at.info)
    assert any("400 answers" in c.value for c in at.caption)


def test_agreement_shows_gpt4_vs_crowd_and_slot_fleiss(prd_db):
    at = page("pages/4_Agreement.py")
    table = at.dataframe[0].value  # the every-pair table: no slot-vs-slot Cohen's kappa
    assert not any("#" in a and "#" in b for a, b in zip(table["rater_a"], table["rater_b"]))
    assert any(UNIT_RULE in c.value for c in at.caption)  # the item rule, stated on the page
    assert "With ties: items" not in metrics(at)  # only the open tab runs
    at.session_state["section"] = "Imported crowd"
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    m = metrics(at)
    assert m["With ties: items"] == "424" and m["Without ties: items"]
    assert float(m["Cohen's kappa"]) > 0.2  # the value alone (a metric cuts long text)
    assert any(c.value.startswith("95\\% interval \\[") for c in at.caption)  # escaped by md()
    assert float(m["Fleiss' kappa (slots)"]) > 0
    assert m["Items with 2+ ratings"] == "480"
    assert not [d for d in at.dataframe if "rater_a" in d.value.columns]


def test_leaderboard_compares_human_and_auto_rankings(prd_db):
    at = page("pages/5_Leaderboard.py")
    assert "Systems in both" not in metrics(at)  # only the open tab (the live board) runs
    assert any("comparisons over" in m.value for m in at.markdown)
    at.session_state["section"] = "Human vs auto-rater"
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    m = metrics(at)
    assert m["Systems in both"] == "5"
    assert -1 <= float(m["Spearman's rho"]) <= 1 and -1 <= float(m["Kendall's tau"]) <= 1
    assert at.selectbox(key="cmp_human").value == "human:prd-crowd#*"
    at.selectbox(key="cmp_human").set_value("human:crowd-majority").run()
    assert not at.exception
    assert metrics(at)["Systems in both"] == "4"  # no majority on Claude's single ratings


def test_browse_shows_every_answer_and_verdict_of_a_prd_question(prd_db):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=90).run()
    at.session_state["annotator"] = "alice"
    at.switch_page("pages/6_Browse.py")
    at.query_params["q"] = "vicuna80-5"  # Browse's deep link
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("Answers (5)" in s.value for s in at.subheader)
    grid = at.dataframe[-1].value
    assert "auto:gpt-4 (PRD)" in grid.columns and len(grid) == 20


def test_imported_raters_show_whatever_their_names(db_path, tmp_path, monkeypatch):
    """An imported expert panel named without "majority" and no anonymous slots: the Imported
    crowd tab compares the auto-rater with it and lists it; Team lists it too."""
    path = db_path
    build_fixture_db(path)
    db = open_db(path)
    try:
        from core.annotation.label_tasks.side_by_side import (
            auto_pair_labels,
        )  # the fixture's auto-rater's items

        csv = tmp_path / "panel.csv"
        lines = ["question_id,system_a,system_b,verdict,rater"]
        for item, label in sorted(auto_pair_labels(db)["auto:fixture-sxs"].items()):
            qid, s1, s2 = split_pair_key(item)
            verdict = {"first": "A", "second": "B"}.get(label, label)
            lines.append(f"{qid},{s1},{s2},{verdict},human:expert-panel")
        csv.write_text("\n".join(lines) + "\n")
        from core.corpus.evaluation_layouts import read_judgments

        store_evaluation(db, read_judgments(csv))
    finally:
        db.conn.close()
    monkeypatch.setenv("WORKBENCH_DB", str(path))
    monkeypatch.delenv("WORKBENCH_ACCESS_CODE", raising=False)
    at = page("pages/4_Agreement.py")
    at.session_state["section"] = "Imported crowd"
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert not any("No imported crowd evaluations" in i.value for i in at.info), (
        [i.value for i in at.info],
        [m.value for m in at.markdown],
    )
    shown = [unescaped(m.value) for m in at.markdown]
    assert any("Imported human raters" in m and "human:expert-panel" in m for m in shown), shown
    assert metrics(at)["Percent agreement"] == "100.0%"
    team = page("pages/11_Team.py")
    assert "Imported raters" in {s.value for s in team.subheader}
    assert any("expert-panel" in set(d.value["rater"]) for d in team.dataframe)
