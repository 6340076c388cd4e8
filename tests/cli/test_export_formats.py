"""``export TABLE -o FILE`` takes its format from the file's extension (``j.jsonl`` wrote CSV
before), refuses a ``--format`` the name contradicts, and JSON Lines keeps JSON columns as
objects and lists (they were JSON text inside a string)."""

from __future__ import annotations

import json

import pytest
from benchmark_db import build
from cli_run import run_cli

from core.store.database import open_db


@pytest.fixture
def filled(tmp_path):
    path = tmp_path / "t.db"
    db = open_db(path)
    build(db)
    db.close()
    return path


def test_the_extension_chooses_jsonl_and_json_columns_nest(filled, tmp_path):
    out = tmp_path / "j.jsonl"
    code, _, err = run_cli(["--db", str(filled), "export", "judgments", "-o", str(out)])
    assert code == 0, err
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 4 and rows[0]["evidence"] == [{"quote": "the Pequod", "verified": True}]
    out = tmp_path / "q.jsonl"
    assert run_cli(["--db", str(filled), "export", "questions", "-o", str(out)])[0] == 0
    by_id = {r["id"]: r for r in map(json.loads, out.read_text(encoding="utf-8").splitlines())}
    assert by_id["q1"]["answers"] == ["Orion", "It is called Orion."]
    assert by_id["g1"]["metadata"]["span_fraction"] == 0.5
    out = tmp_path / "q.CSV"
    assert run_cli(["--db", str(filled), "export", "questions", "-o", str(out)])[0] == 0
    assert out.read_text(encoding="utf-8").startswith("id,")
    for name, argv in (("q", []), ("q.2026-12-05", []), ("q.txt", ["--format", "csv"])):
        out = tmp_path / name  # no extension, a date, or a name with --format: as asked
        assert run_cli(["--db", str(filled), "export", "questions", "-o", str(out), *argv])[0] == 0
        assert out.read_text(encoding="utf-8").startswith("id,")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--format", "csv", "-o", "{tmp}/x.jsonl"], "error: --format csv does not match"),
        (["--format", "jsonl", "-o", "{tmp}/x.csv"], "error: --format jsonl does not match"),
        (["-o", "{tmp}/x.parquet"], "error: parquet is written by `export benchmark`"),
        # CSV under a name that promises JSON or a workbook was written without a word
        (["-o", "{tmp}/x.json"], "error: {tmp}/x.json: .json is not a table export format"),
        (["-o", "{tmp}/x.xlsx"], "error: {tmp}/x.xlsx: .xlsx is not a table export format"),
        (["--out", "{tmp}/d"], "error: --out: only for `export benchmark`"),
        (["--split-by", "random"], "error: --split-by: only for `export benchmark`"),
    ],
)
def test_a_mismatch_is_refused_in_one_line(filled, tmp_path, argv, message):
    sub = tmp_path / "sub"
    sub.mkdir()
    argv = [a.replace("{tmp}", str(sub)) for a in argv]
    message = message.replace("{tmp}", str(sub))
    code, out, err = run_cli(["--db", str(filled), "export", "questions", *argv])
    assert code == 2 and err.startswith(message) and err.count("\n") == 1, err
    assert out == "" and list(sub.iterdir()) == []
