"""Import files refused with one ``error:`` line, nothing written: a column the importer does not
know (a misspelt optional column, ``raters`` or ``modle``, used to be dropped without a word, so a
person's verdicts in a ``raters`` column were stored as ``--rater``'s, an auto-rater's), and a
value longer than one field may hold (30 MB in one answer used to be stored as it came)
(docs/input-formats.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_run import run_cli

from core.store.database import opened

JUDGMENTS = "question_id,system_a,system_b,verdict,rater\nq1,s1,s2,A,human:ann\n"
CASES = [
    (
        ["import-judgments", "--rater", "auto:bot"],
        "v.csv",
        "question_id,system_a,system_b,verdict,raters\nq1,s1,s2,A,human:zed\n",
        "line 1: unknown column 'raters'",
    ),
    (
        ["import-answers"],
        "a.csv",
        "question_id,system,answer,modle\nq1,s3,Brand,gpt-4\n",
        "line 1: unknown column 'modle'",
    ),
    (
        ["import-judgments"],
        "v.jsonl",
        '{"question_id": "q1", "system": "s1", "verdict": "yes", "rater": "auto:bot"}\n'
        '{"question_id": "q2", "system": "s1", "verdict": "no", "rater": "auto:bot", '
        '"critrion": "supported"}\n',
        "line 2: unknown column 'critrion'",
    ),
    (
        ["import-judgments", "--task", "tone", "--scale", "categorical"],
        "l.csv",
        "question_id,verdict,rater,sytem\nq1,good,auto:bot,s1\n",
        "line 1: unknown column 'sytem'",
    ),
]


@pytest.mark.parametrize(("command", "name", "text", "message"), CASES)
def test_an_unknown_column_is_one_error_line_and_writes_nothing(
    tmp_path: Path, command: list[str], name: str, text: str, message: str
) -> None:
    db = tmp_path / "w.db"
    base = tmp_path / "base.csv"
    base.write_text(JUDGMENTS, encoding="utf-8")
    assert run_cli(["--db", str(db), "init"])[0] == 0
    assert run_cli(["--db", str(db), "import-judgments", str(base)])[0] == 0
    before = db.read_bytes()
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    code, out, err = run_cli(["--db", str(db), command[0], str(path), *command[1:]])
    assert (code, out) == (2, "")
    assert err.startswith(f"error: {path}, {message} (the columns this file may have: ")
    assert err.endswith("; nothing imported\n") and err.count("\n") == 1
    assert db.read_bytes() == before


def test_the_export_of_judgments_reimports_with_its_extra_columns(tmp_path: Path) -> None:
    db = tmp_path / "w.db"
    base = tmp_path / "base.csv"
    base.write_text(JUDGMENTS, encoding="utf-8")
    assert run_cli(["--db", str(db), "init"])[0] == 0
    assert run_cli(["--db", str(db), "import-judgments", str(base)])[0] == 0
    for name in ("j.csv", "j.jsonl"):
        out = tmp_path / name
        assert run_cli(["--db", str(db), "export", "judgments", "-o", str(out)])[0] == 0
        code, text, err = run_cli(["--db", str(db), "import-judgments", str(out), "--json"])
        assert code == 0, err
        assert json.loads(text)["judgments"] == {"inserted": 0, "unchanged": 1, "updated": 0}
    with opened(db) as store:
        raters = store.execute("select rater from judgments").fetchall()
    assert [r[0] for r in raters] == ["human:ann"]


@pytest.mark.parametrize("suffix", [".csv", ".jsonl"])
def test_a_huge_value_is_one_error_line_and_writes_nothing(tmp_path: Path, suffix: str) -> None:
    db = tmp_path / "w.db"
    assert run_cli(["--db", str(db), "init"])[0] == 0
    before = db.read_bytes()
    path = tmp_path / f"a{suffix}"
    huge = "x" * 30_000_000
    if suffix == ".csv":
        path.write_text(f"question_id,system,answer\nq1,s1,ok\nq2,s1,{huge}\n", encoding="utf-8")
    else:
        rows = [{"question_id": "q1", "system": "s1", "answer": a} for a in ("ok", huge)]
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    code, out, err = run_cli(["--db", str(db), "import-answers", str(path)])
    assert (code, out) == (2, "")
    line = 3 if suffix == ".csv" else 2  # a CSV file's header is line 1
    assert err == (
        f"error: {path}, line {line}, column 'answer': a value of 30,000,000 characters, more "
        "than the 1,000,000 one field may hold (a stray quote, or a whole text pasted into one "
        "cell?); nothing imported\n"
    )
    assert db.read_bytes() == before


def test_the_benchmark_export_verdicts_reimport(tmp_path: Path) -> None:
    db, fresh = tmp_path / "w.db", tmp_path / "fresh.db"
    answers = tmp_path / "a.csv"
    answers.write_text("question_id,system,answer\nq1,s1,Brand\nq1,s2,Orion\n", encoding="utf-8")
    base = tmp_path / "base.csv"
    base.write_text(JUDGMENTS, encoding="utf-8")
    for args in (
        ["init"],
        ["import-answers", str(answers)],
        ["import-judgments", str(base)],
        ["export", "benchmark", "--out", str(tmp_path / "bench")],
    ):
        code, _, err = run_cli(["--db", str(db), *args])
        assert code == 0, err
    verdicts = tmp_path / "bench" / "verdicts" / "verdicts.jsonl"
    assert "split" in json.loads(verdicts.read_text(encoding="utf-8").splitlines()[0])
    assert run_cli(["--db", str(fresh), "init"])[0] == 0
    code, text, err = run_cli(["--db", str(fresh), "import-judgments", str(verdicts), "--json"])
    assert code == 0, err
    assert json.loads(text)["judgments"]["inserted"] == 1
