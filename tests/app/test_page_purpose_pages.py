"""The researcher's pages read plainly (issue 34): each says in one line, at the top, what it is
for and what to do next (Leaderboard, Browse, EXAM, Cross lingual, Team, Entities), and shows no
jargon or stray markup (Cross lingual's interval level, Leaderboard's rank column)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from browser_support import build_fixture_db
from streamlit.testing.v1 import AppTest

from core.store.database import open_db

ROOT = Path(__file__).resolve().parents[2]

#: page -> words its first line says (what it is for).
PURPOSE = {
    "pages/5_Leaderboard.py": "Which system answers best",
    "pages/6_Browse.py": "Find any question",
    "pages/8_EXAM.py": "How many exam questions",
    "pages/9_Cross_lingual.py": "two articles in different languages",
    "pages/11_Team.py": "Who labels what",
    "pages/13_Entities.py": "The people and places found in each document",
}


@pytest.mark.parametrize("page", list(PURPOSE))
def test_each_page_says_what_it_is_for_first(page, tmp_path, monkeypatch):
    path = tmp_path / "fixture.db"
    build_fixture_db(path)
    monkeypatch.setenv("WORKBENCH_DB", str(path))
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.query_params["name"] = "alice"  # open mode: the name signs in
    at.run()
    at.switch_page(page)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    first = at.main.caption[0].value
    assert PURPOSE[page] in first and ":" in first  # what it is for: what to do next
    assert "\n" not in first.strip()


def test_cross_lingual_names_its_interval_once_and_writes_no_literal_markup(tmp_path, monkeypatch):
    """The level sits in the interval columns' names (no ``level`` column repeated per row), and
    the empty review-label state reads as words, not ``**Review questions**``."""
    path = tmp_path / "fixture.db"
    build_fixture_db(path)
    db = open_db(path)
    try:
        db["xrag_results"].insert(
            {
                "question_id": "gen-0",
                "item_id": "gen-0",
                "language": "de",
                "setting": "monolingual",
                "model": "offline:extractive",
                "panel_status": "ok",
                "verdict": "yes",
                "content_verdict": "yes",
                "language_ok": 1,
                "response_language": "de",
                "created_at": "2026-01-01T00:00:00Z",
            }
        )
    finally:
        db.close()
    monkeypatch.setenv("WORKBENCH_DB", str(path))
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.run()
    at.switch_page("pages/9_Cross_lingual.py")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    columns = json.loads(at.dataframe[0].proto.columns)
    assert columns["level"]["hidden"] is True
    assert columns["ci_low"]["label"] == "95% CI low"
    assert not [c.value for c in at.caption if "\\*\\*" in c.value]
    assert any("Review questions page" in c.value.replace("\\", "") for c in at.caption)


def test_leaderboard_says_best_possible_rank_not_rank_ub(tmp_path, monkeypatch):
    path = tmp_path / "fixture.db"
    build_fixture_db(path)
    monkeypatch.setenv("WORKBENCH_DB", str(path))
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.run()
    at.switch_page("pages/5_Leaderboard.py")
    at.run()
    [s for s in at.selectbox if s.label == "Verdicts"][0].set_value("auto").run()
    assert not at.exception, [e.value for e in at.exception]
    columns = json.loads(at.dataframe[0].proto.columns)
    assert columns["rank_ub"]["label"] == "Best possible rank"
    assert "Rank (UB)" not in at.dataframe[0].proto.columns


def test_the_overview_s_where_to_start_names_every_page(tmp_path, monkeypatch):
    """Each of the 14 other pages is named in the Overview's "Where to start", with what it is
    for (it named 3 of 14)."""
    path = tmp_path / "fixture.db"
    build_fixture_db(path)
    monkeypatch.setenv("WORKBENCH_DB", str(path))
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    assert not at.exception, [e.value for e in at.exception]
    [start] = [m.value for m in at.markdown if m.value.startswith("**Where to start**")]
    pages = sorted((ROOT / "pages").glob("[0-9]*.py"))
    names = [p.stem.split("_", 1)[1].replace("_", " ") for p in pages if p.stem != "0_Overview"]
    assert len(names) == 14
    missing = [n for n in names if f"**{n}**" not in start]
    assert not missing, missing
