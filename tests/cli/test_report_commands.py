"""``python -m core rater-report``: one HTML file, or one error line, exit 2 and nothing written."""

from __future__ import annotations

import json

import pytest
from rater_report_fixture import RATER, build_report_db

from core.__main__ import main


@pytest.fixture
def db_path(db_path):
    """tests/conftest.py's fresh database (SQLite or PostgreSQL) with the report's store."""
    build_report_db(db_path)
    return db_path


def _run(db_path, *args):
    return main(["--db", str(db_path), "rater-report", "--simulations", "20", *args])


def test_writes_one_self_contained_html_file(db_path, tmp_path, capsys):
    out = tmp_path / "report.html"
    assert _run(db_path, "--rater", RATER, "--out", str(out)) == 0
    printed = capsys.readouterr().out
    assert f"wrote {out}" in printed and "alternative annotator test" in printed
    page = out.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and "<script" not in page
    assert "http://" not in page.replace("src=http://evil.example", "")  # planted text only
    assert "src=http://evil.example" not in page.replace("&lt;img src=http://evil.example", "")
    assert [p.name for p in tmp_path.iterdir() if p.suffix == ".tmp"] == []


def test_all_and_json(db_path, tmp_path, capsys):
    out = tmp_path / "all.html"
    assert _run(db_path, "--all", "--out", str(out), "--json") == 0
    data = json.loads(capsys.readouterr().out)
    assert [r["rater"] for r in data["raters"]] == [RATER] and out.exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--rater", "auto:nobody"], "auto:nobody"),
        (["--rater", "human:alice"], "auto-rater"),
        ([], "--rater"),
        (["--rater", RATER, "--epsilon", "2"], "epsilon"),
        (["--rater", RATER, "--base-url", "javascript:alert(1)"], "--base-url"),
        (["--rater", RATER, "--base-url", "https://x.example/?a=<b>"], "--base-url"),
        # held-out spellings of a script or foreign address
        (["--rater", RATER, "--base-url", "JAVASCRIPT:alert(1)"], "--base-url"),
        (["--rater", RATER, "--base-url", " javascript:alert(1)"], "--base-url"),
        (["--rater", RATER, "--base-url", "data:text/html,x"], "--base-url"),
        (["--rater", RATER, "--base-url", "vbscript:x"], "--base-url"),
        (["--rater", RATER, "--base-url", "//evil.example"], "--base-url"),
        (["--rater", RATER, "--base-url", "http:/evil.example"], "--base-url"),
        (["--rater", RATER, "--base-url", "http://evil.example\\@qa.example"], "--base-url"),
        (["--rater", RATER, "--base-url", "http://qa.example\\evil"], "--base-url"),
    ],
)
def test_bad_input_is_one_error_line_and_writes_nothing(db_path, tmp_path, capsys, args, message):
    out = tmp_path / "x.html"
    assert _run(db_path, *args, "--out", str(out)) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error:") and message in err[0]
    assert not out.exists()


def test_out_must_be_html_in_an_existing_folder(db_path, tmp_path, capsys):
    assert _run(db_path, "--rater", RATER, "--out", str(tmp_path / "r.pdf")) == 2
    assert _run(db_path, "--rater", RATER, "--out", str(tmp_path / "no" / "r.html")) == 2
    assert not (tmp_path / "r.pdf").exists()


def test_links_start_at_the_base_url_setting(db_path, tmp_path, capsys):
    """Without --base-url the item links are absolute at the base_url setting (a file opened
    from disk has no app address to be relative to)."""
    assert (
        main(["--db", str(db_path), "settings", "set", "base_url", "https://qa.example.org"]) == 0
    )
    out = tmp_path / "report.html"
    assert _run(db_path, "--rater", RATER, "--out", str(out)) == 0
    page = out.read_text(encoding="utf-8")
    assert 'href="https://qa.example.org/Browse?q=' in page and 'href="Browse?q=' not in page
