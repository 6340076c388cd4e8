"""``import-judgments FILE --task NAME --scale ...`` (issue 32, item 3): categories, ordered
ratings and label sets stored per task with its scale; a label outside a declared set is one
``error:`` line and nothing is written."""

from __future__ import annotations

import json

import pytest
from cli_run import run_cli
from db_content import database_digest

from core.store.database import open_db
from core.store.judgments import effective_judgments
from core.store.label_scales import label_scale


def _write(path, lines):
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _labels(db_path, task):
    db = open_db(db_path)
    try:
        found = effective_judgments(db, kind="label", criterion=task)
        return sorted((j.question_id, j.system or "", j.rater, j.verdict) for j in found)
    finally:
        db.close()


def test_categorical_stored_with_its_scale(db_path, tmp_path):
    f = _write(
        tmp_path / "c.csv",
        [
            "question_id,verdict,rater",
            "q1,Location,human:ann",
            "q1,Food,human:ben",
            "q2,Location,auto:judge",
        ],
    )
    code, out, err = run_cli(
        [
            "--db", str(db_path), "import-judgments", str(f), "--task", "aspects",
            "--scale", "categorical", "--labels", "Food,Location,Service", "--json",
        ]
    )  # fmt: skip
    assert code == 0, err
    assert json.loads(out)["judgments"]["inserted"] == 3
    assert _labels(db_path, "aspects") == [
        ("q1", "", "human:ann", "Location"),
        ("q1", "", "human:ben", "Food"),
        ("q2", "", "auto:judge", "Location"),
    ]
    db = open_db(db_path)
    scale = label_scale(db, "aspects")
    db.close()
    assert scale is not None and scale.scale == "categorical" and scale.declared
    assert scale.labels == ("Food", "Location", "Service")
    # the same file again changes nothing; without --scale the stored scale is used
    code, out, _ = run_cli(
        ["--db", str(db_path), "import-judgments", str(f), "--task", "aspects", "--json"]
    )
    assert code == 0 and json.loads(out)["judgments"]["unchanged"] == 3


def test_label_outside_declared_set_refused_nothing_written(db_path, tmp_path):
    f = _write(
        tmp_path / "c.csv",
        ["question_id,verdict,rater", "q1,Food,human:ann", "q2,Partially,human:ann"],
    )
    before = database_digest(db_path)
    code, out, err = run_cli(
        [
            "--db", str(db_path), "import-judgments", str(f), "--task", "aspects",
            "--scale", "categorical", "--labels", "Food,Location",
        ]
    )  # fmt: skip
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:")
    assert "'Partially'" in lines[0] and "line 3" in lines[0]
    assert database_digest(db_path) == before


def test_ordinal_numbers_and_named_order(db_path, tmp_path):
    f = _write(
        tmp_path / "o.csv",
        [
            "question_id,system,verdict,rater",
            "q1,s1,3,human:ann",
            "q1,s1,4.0,human:ben",
            "q1,s2,1,auto:judge",
        ],
    )
    base = ["--db", str(db_path), "import-judgments"]
    assert run_cli([*base, str(f), "--task", "stars", "--scale", "ordinal"])[0] == 0
    db = open_db(db_path)
    assert label_scale(db, "stars").labels == ("1", "3", "4")
    db.close()
    assert ("q1", "s1", "human:ben", "4") in _labels(db_path, "stars")
    g = _write(tmp_path / "n.csv", ["question_id,verdict,rater", "q1,high,human:ann"])
    code, _, err = run_cli([*base, str(g), "--task", "level", "--scale", "ordinal"])
    assert code == 2 and "--labels" in err
    code, _, err = run_cli(
        [*base, str(g), "--task", "level", "--scale", "ordinal", "--labels", "low,mid,high"]
    )
    assert code == 0, err
    db = open_db(db_path)
    assert label_scale(db, "level").labels == ("low", "mid", "high")
    db.close()


def test_multilabel_json_and_bar(db_path, tmp_path):
    f = tmp_path / "m.jsonl"
    f.write_text(
        "\n".join(
            json.dumps(r)
            for r in [
                {"question_id": "q1", "verdict": '["b", "a"]', "rater": "human:ann"},
                {"question_id": "q1", "verdict": "a|b", "rater": "human:ben"},
                {"question_id": "q1", "verdict": ["c"], "rater": "auto:judge"},
            ]
        )
        + "\n",
        encoding="utf-8",
    )
    code, _, err = run_cli(
        [
            "--db", str(db_path), "import-judgments", str(f), "--task", "topics",
            "--scale", "multilabel", "--labels", "a,b,c",
        ]
    )  # fmt: skip
    assert code == 0, err
    assert [v for *_, v in _labels(db_path, "topics")] == ['["c"]', '["a", "b"]', '["a", "b"]']


@pytest.mark.parametrize(
    "extra, words",
    [
        (["--scale", "ordinal"], "has scale categorical"),
        (["--scale", "interval"], "--scale must be one of"),
        (["--labels", "Food"], "declares the labels"),
    ],
)
def test_scale_mismatch_is_one_line(db_path, tmp_path, extra, words):
    f = _write(tmp_path / "c.csv", ["question_id,verdict,rater", "q1,Food,human:ann"])
    base = ["--db", str(db_path), "import-judgments", str(f), "--task", "aspects"]
    assert run_cli([*base, "--scale", "categorical", "--labels", "Food,Location"])[0] == 0
    code, _, err = run_cli([*base, *extra])
    assert code == 2 and words in err and len(err.strip().splitlines()) == 1
