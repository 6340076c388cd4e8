"""The per-row work of importing an arena file (issue 39: 26,919 battles within 3x of a bare
``executemany``): each distinct name is checked once however often it repeats (a bad one still
refused at its first line), the provenance text is the same JSON as ``json.dumps`` gives, and a
line that cannot break the JSON bounds skips their token scan (which still refuses the rest)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.corpus import evaluation_names, json_input
from core.corpus.evaluation_layouts import read_arena
from core.corpus.evaluation_names import normalise_names
from core.corpus.evaluation_ratings import _raw
from core.errors import InputError


def arena_file(tmp_path: Path, rows: list[dict[str, object]]) -> Path:
    path = tmp_path / "battles.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def battles(n: int) -> list[dict[str, object]]:
    return [
        {"question_id": f"q{i}", "model_a": "alpha", "model_b": "beta", "winner": "model_a"}
        for i in range(n)
    ]


def test_each_distinct_name_is_checked_once(tmp_path: Path, monkeypatch) -> None:
    ev = read_arena(arena_file(tmp_path, battles(50)), "human:crowd")
    checked: list[object] = []
    real = evaluation_names.check_name

    def counting(value: object, what: str, **where: object) -> str:
        checked.append(value)
        return real(value, what, **where)  # type: ignore[arg-type]

    monkeypatch.setattr(evaluation_names, "check_name", counting)
    normalise_names(ev)
    # 50 question ids, two systems, one rater: not 50 x 4 + 50
    assert sorted(map(str, checked)) == sorted(
        [f"q{i}" for i in range(50)] + ["alpha", "beta", "human:crowd"]
    )


def test_a_bad_name_is_still_refused_at_its_line(tmp_path: Path) -> None:
    rows = battles(5)
    rows[3]["model_b"] = "be\u200bta"  # an invisible character
    ev = read_arena(arena_file(tmp_path, rows), "human:crowd")
    with pytest.raises(InputError, match="line 4") as err:
        normalise_names(ev)
    assert "invisible" in str(err.value)


@pytest.mark.parametrize(
    ("line", "label"),
    [(3, "tie (bothbad)"), (7, 'é "quoted" \\ \n'), (None, "x"), (2, None), (True, "x"), (4, 5)],
)
def test_provenance_text_equals_json_dumps(line: object, label: object) -> None:
    source = 'arena "crowd" é.jsonl'
    part = '{"file": ' + json.dumps(source) + ', "line": '
    assert _raw(part, line, label) == json.dumps({"file": source, "line": line, "label": label})


def test_plain_lines_skip_the_token_scan_and_long_numbers_are_still_refused(monkeypatch) -> None:
    scanned: list[str] = []
    tokens = json_input._TOKENS

    class Spy:
        def finditer(self, text: str):  # type: ignore[no-untyped-def]
            scanned.append(text)
            return tokens.finditer(text)

    monkeypatch.setattr(json_input, "_TOKENS", Spy())
    json_input.check_bounds('{"question_id": "q1", "winner": "model_a", "n": 12}', "f.jsonl", 1)
    assert scanned == []
    with pytest.raises(InputError, match="JSON number of 101 characters"):
        json_input.check_bounds('{"n": ' + "9" * 101 + "}", "f.jsonl", 2)
    with pytest.raises(InputError, match="nested deeper"):
        json_input.check_bounds("[" * 65 + "]" * 65, "f.jsonl", 3)
    json_input.check_bounds('{"s": "' + "1" * 150 + '"}', "f.jsonl", 4)  # a long string: fine
    assert len(scanned) == 3
