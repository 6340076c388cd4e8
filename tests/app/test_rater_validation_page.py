"""AppTest of the Rater validation page: one section per auto-rater, the download, planted markup
kept as text, the admin's queue button; an empty database says what is missing."""

from __future__ import annotations

from pathlib import Path

import pytest
from browser_support import unescaped
from rater_report_fixture import RATER, build_report_db
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[2]
PAGE = "pages/12_Rater_validation.py"


@pytest.fixture
def report_db(tmp_path, monkeypatch) -> Path:
    path = tmp_path / "r.db"
    build_report_db(path)
    monkeypatch.setenv("WORKBENCH_DB", str(path))
    monkeypatch.delenv("WORKBENCH_ACCESS_CODE", raising=False)
    return path


def _open(annotator: str | None = "alice") -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    if annotator:  # open mode (no accounts): the name signs in, with every role
        at.query_params["name"] = annotator
    at.run()
    at.switch_page(PAGE)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_page_shows_each_rater_with_its_verdict_and_keeps_markup_inert(report_db):
    at = _open()
    assert [unescaped(h.value) for h in at.header] == [RATER]
    verdicts = [unescaped(m.value) for m in (*at.success, *at.error, *at.warning)]
    assert any("alternative annotator test" in v for v in verdicts)
    texts = [m.value for m in (*at.markdown, *at.caption)]
    assert not any("<script>" in t for t in texts)  # planted markup only ever escaped
    assert any("\\<script\\>" in t for t in texts)
    assert len(at.dataframe) >= 4


def test_empty_database_says_there_is_nothing_to_validate(tmp_path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_DB", str(tmp_path / "empty.db"))
    at = _open()
    assert any("no auto-rater" in i.value for i in at.info)
