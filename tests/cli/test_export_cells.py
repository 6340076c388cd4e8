"""``export``: a CSV cell a spreadsheet would run as a formula is written as text (CSV injection,
OWASP: a leading ``'``); JSON Lines keeps every value as it is."""

from __future__ import annotations

import csv
import json

from cli_run import run_cli

from core.cli.spreadsheet import spreadsheet_cell

TITLES = ['=HYPERLINK("http://evil.example")', "+1+2", "-2+3", "@SUM(A1)", "\tx", "\rx"]


def test_a_cell_that_starts_like_a_formula_gets_a_quote():
    assert [spreadsheet_cell(t) for t in TITLES] == ["'" + t for t in TITLES]
    assert spreadsheet_cell("plain = fine") == "plain = fine"
    assert spreadsheet_cell(-2) == -2 and spreadsheet_cell(None) is None  # numbers stay numbers
    assert spreadsheet_cell("") == ""


def test_export_csv_quotes_formula_cells_and_jsonl_keeps_them(db_path, tmp_path):
    assert run_cli(["--db", str(db_path), "init"])[0] == 0
    for n, title in enumerate(TITLES):
        book = tmp_path / f"book{n}.txt"
        book.write_text(f"Once upon a time {n}.\n\nThe end.", encoding="utf-8")
        code, _, err = run_cli(["--db", str(db_path), "import-book", str(book), f"--title={title}"])
        assert code == 0, err
    out = tmp_path / "documents.csv"
    assert run_cli(["--db", str(db_path), "export", "documents", "-o", str(out)])[0] == 0
    with out.open(newline="", encoding="utf-8") as f:
        titles = sorted(r["title"] for r in csv.DictReader(f))
    assert titles == sorted("'" + t for t in TITLES)
    lines = tmp_path / "documents.jsonl"
    code, _, _ = run_cli(
        ["--db", str(db_path), "export", "documents", "--format", "jsonl", "-o", str(lines)]
    )
    assert code == 0
    rows = [json.loads(line) for line in lines.read_text(encoding="utf-8").splitlines()]
    assert sorted(r["title"] for r in rows) == sorted(TITLES)
