"""Each researcher's page says in one line, at the top, what it is for and what to do next
(issue 34): Leaderboard, Browse, EXAM, Cross lingual, Team, Entities."""

from __future__ import annotations

from pathlib import Path

import pytest
from browser_support import build_fixture_db
from streamlit.testing.v1 import AppTest

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
