"""``export``: a CSV cell a spreadsheet would run as a formula is written as text (CSV injection,
OWASP: a leading ``'``); JSON Lines keeps every value as it is."""

from __future__ import annotations

import csv
import json

from cli_run import run_cli

from core.corpus.spreadsheet import spreadsheet_cell

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


def _formula_frame():
    import pandas as pd

    return pd.DataFrame(
        {
            "result_id": [1, 2],
            "question": TITLES[:2],
            "answer": [TITLES[2], "fine"],
            "reference": [TITLES[3], TITLES[4]],
            "verdict": ["", ""],
        }
    )


def test_xrag_verify_export_quotes_formula_cells(db_path, tmp_path, monkeypatch):
    """The file is opened in a spreadsheet to fill in verdicts; verify-import reads back only
    result_id, verdict and annotator, so quoting the text cells keeps the round trip."""
    from core.views import xrag

    monkeypatch.setattr(xrag, "answers_to_verify", lambda *a, **k: _formula_frame())
    assert run_cli(["--db", str(db_path), "init"])[0] == 0
    out = tmp_path / "verify.csv"
    code, _, err = run_cli(["--db", str(db_path), "xrag", "verify-export", str(out)])
    assert code == 0, err
    with out.open(newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert [r["question"] for r in rows] == ["'" + t for t in TITLES[:2]]
    assert [r["answer"] for r in rows] == ["'" + TITLES[2], "fine"]
    assert [r["result_id"] for r in rows] == ["1", "2"]


def test_a_page_csv_download_quotes_formula_cells():
    from core.views.overview import export_bytes

    frame = _formula_frame()
    rows = list(csv.DictReader(export_bytes(frame, "csv").decode("utf-8").splitlines()))
    assert [r["question"] for r in rows] == ["'" + t for t in TITLES[:2]]
    lines = export_bytes(frame, "jsonl").decode("utf-8").splitlines()
    assert json.loads(lines[0])["question"] == TITLES[0]  # JSON Lines unchanged


def test_an_exported_csv_reads_back_as_it_was(db_path, tmp_path):
    """export -> rank / import: the project's CSV reader takes the writer's quote off again, so
    `rank` on an export names the system '-x', as `rank --from-db` does."""
    rows = "question_id,system_a,system_b,verdict,rater\n" + "".join(
        f"q{i},-x,=y,{v},human:carol\n" for i, v in enumerate("AAB")
    )
    (tmp_path / "j.csv").write_text(rows, encoding="utf-8")
    assert run_cli(["--db", str(db_path), "import-judgments", str(tmp_path / "j.csv")])[0] == 0
    out = tmp_path / "export.csv"
    assert run_cli(["--db", str(db_path), "export", "judgments", "-o", str(out)])[0] == 0
    assert "'-x" in out.read_text(encoding="utf-8")
    code, text, err = run_cli(["rank", str(out), "--json"])
    assert code == 0, err
    assert sorted(s["name"] for s in json.loads(text)["groups"][0]["systems"]) == ["-x", "=y"]
    code, text, err = run_cli(["--db", str(db_path), "import-judgments", str(out), "--json"])
    assert code == 0, err
    assert json.loads(text)["judgments"]["inserted"] == 0  # the same verdicts, not new systems
