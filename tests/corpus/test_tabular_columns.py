"""The columnar reading equals the row reader's (core/corpus/tabular.py): same values, same errors."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import core.corpus.tabular_columns as tc
from core.corpus.record_checks import MAX_FIELD_CHARS
from core.corpus.tabular import read_records
from core.corpus.tabular_columns import coded, read_coded_columns
from core.errors import InputError

COLUMNS = ["question_id", "system_a", "verdict"]

GOOD: dict[str, str | bytes] = {
    "plain.csv": "question_id,system_a,verdict,extra\nq1,x,A,1\nq2,y,B,2\nq1,y,A,3\n",
    "crlf.csv": "question_id,system_a,verdict\r\nq1,x,A\r\nq2,x,B\r\n",
    "quoted.csv": 'question_id,system_a,verdict\nq1,"x, the first","A"\n"q\n2",x,B\n',
    "blank_lines.csv": "question_id,system_a,verdict\n\nq1,x,A\n\nq2,y,B\n\n",
    "tabs.tsv": "question_id\tsystem_a\tverdict\nq1\tx, y\tA\nq2\tz\tB\n",
    "quoted_header.csv": '"question_id","system_a","verdict"\nq1,x,A\n',
    "spaced_header.csv": "question_id , system_a,verdict\nq1,x,A\n",
    "blank_value.csv": "question_id,system_a,verdict\nq1,,A\nq2,x,B\n",
    "blank_row.csv": "question_id,system_a,verdict\nq1,x,A\n , ,\n",
    "utf16.csv": "question_id,system_a,verdict\nq1,Zoë,A\n".encode("utf-16"),
    # the longest value a field may hold, in a column not read (the fast path leaves it to rows)
    "long_value.csv": f"question_id,system_a,verdict,note\nq1,x,A,{'n' * MAX_FIELD_CHARS}\n",
}
BAD: dict[str, str | bytes] = {
    "ragged.csv": "question_id,system_a,verdict\nq1,x,A\nq2,x\n",
    "control.csv": "question_id,system_a,verdict\nq1,x\x01y,A\n",
    "missing.csv": "question_id,system_a\nq1,x\n",
    "header_only.csv": "question_id,system_a,verdict\n",
    "dupe.csv": "question_id,system_a,verdict,verdict\nq1,x,A,B\n",
    "latin1.csv": "question_id,system_a,verdict\nq1,Zo\xeb,A\n".encode("latin-1"),
    # one character more than a field may hold: refused by both, read column or not
    "too_long_read.csv": f"question_id,system_a,verdict\nq1,{'x' * (MAX_FIELD_CHARS + 1)},A\n",
    "too_long_unread.csv": (
        f"question_id,system_a,verdict,note\nq1,x,A,ok\nq2,y,B,{'n' * (MAX_FIELD_CHARS + 1)}\n"
    ),
}


def _write(tmp_path: Path, name: str, content: str | bytes) -> Path:
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8", newline="")
    return path


def _plain(columns: list[tc.CodedColumn]) -> list[list[str]]:
    return [[col.labels[int(k)] for k in col.codes] for col in columns]


@pytest.mark.parametrize("name", sorted(GOOD))
def test_same_values_as_the_row_reader(tmp_path: Path, name: str) -> None:
    path = _write(tmp_path, name, GOOD[name])
    rows = coded(read_records(path, COLUMNS, suffixes=(".csv", ".tsv")), COLUMNS)
    got = read_coded_columns(path, COLUMNS)
    assert _plain(got) == _plain(rows)
    assert [c.labels for c in got] == [c.labels for c in rows]  # order of first appearance


@pytest.mark.parametrize("name", sorted(BAD))
def test_same_error_as_the_row_reader(tmp_path: Path, name: str) -> None:
    path = _write(tmp_path, name, BAD[name])
    with pytest.raises(InputError) as expected:
        read_records(path, COLUMNS, suffixes=(".csv", ".tsv"))
    with pytest.raises(InputError) as got:
        read_coded_columns(path, COLUMNS)
    assert str(got.value) == str(expected.value)


def test_a_well_formed_file_is_read_by_pyarrow(tmp_path: Path, monkeypatch: Any) -> None:
    """The fast path is taken (the row reader is not called) on a plain file."""
    path = _write(tmp_path, "plain.csv", GOOD["plain.csv"])
    monkeypatch.setattr(tc, "read_records", lambda *a, **k: pytest.fail("row reader used"))
    assert _plain(read_coded_columns(path, COLUMNS))[1] == ["x", "y", "y"]


def test_all_names_agrees_with_name_problem_one_by_one():
    """The batch check of many names (the rank CSV's question ids) takes its ASCII fast path
    only when it gives name_problem's answer for every value."""
    from core.corpus.names import all_names, name_problem

    cases = [
        ["q1", "q2", "sys 0"],
        ["q1", ""],
        ["q1", " q2"],
        ["q1", "q2 "],
        ["q1", "x" * 129],
        ["q1", "x" * 128],
        ["q1", "a\x7fb"],
        ["q1", "a\tb"],
        ["José", "q2"],
        ["Jose\u0301", "q2"],
        ["q1", "a\u200bb"],
        ["q1", "a\u00a0b"],
        ["日本語", "q|1:(x)#/"],
    ]
    for values in cases:
        assert all_names(values) == all(name_problem(v) is None for v in values), values


def test_a_value_too_long_is_named_with_its_line_and_column(tmp_path: Path) -> None:
    path = _write(tmp_path, "too_long_unread.csv", BAD["too_long_unread.csv"])
    with pytest.raises(InputError) as got:
        read_coded_columns(path, COLUMNS)
    assert str(got.value) == (
        f"{path}, line 3, column 'note': a value of 1,000,001 characters, more than the "
        "1,000,000 one field may hold (a stray quote, or a whole text pasted into one cell?); "
        "nothing imported"
    )
