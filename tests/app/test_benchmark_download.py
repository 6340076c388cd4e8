"""AppTest of the Overview page's benchmark download: an admin (open mode: everyone signed in
by name) sees how many questions it holds and the button; the zip is built only when clicked
(its files: tests/cli/test_export_benchmark.py)."""

from __future__ import annotations

from pathlib import Path

from benchmark_db import build
from browser_support import unescaped
from streamlit.testing.v1 import AppTest

from core.store.database import open_db

ROOT = Path(__file__).resolve().parents[2]


def _overview(path, monkeypatch, name: str) -> AppTest:
    monkeypatch.setenv("WORKBENCH_DB", str(path))
    monkeypatch.delenv("WORKBENCH_ACCESS_CODE", raising=False)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params["name"] = name  # open mode: the name signs in, with every role
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_an_admin_gets_the_benchmark_download(tmp_path, monkeypatch):
    path = tmp_path / "b.db"
    db = open_db(path)
    build(db)
    db.close()
    at = _overview(path, monkeypatch, "alice")
    assert "Export the benchmark" in [unescaped(s.value) for s in at.subheader]
    captions = [unescaped(c.value) for c in at.caption]
    assert any(c.startswith("The 6 accepted and edited questions") for c in captions), captions
    buttons = at.get("download_button")
    assert len(buttons) == 1 and "benchmark" in str(buttons[0].proto.label)


def test_without_accepted_questions_it_says_so(tmp_path, monkeypatch):
    path = tmp_path / "e.db"
    db = open_db(path)
    build(db)
    db.execute("update questions set status = 'pending'")
    db.close()
    at = _overview(path, monkeypatch, "alice")
    assert any("No accepted or edited question" in unescaped(c.value) for c in at.caption)
    assert not at.get("download_button")
