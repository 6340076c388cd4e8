"""End to end on real labels (issue 32): the alt-test authors' lgbteen (categories: Yes, No,
Partially, ...), 10k_prompts (1-5 ratings), cebab_aspects (Positive / Negative / unknown) and wax
(16 relation types) annotations, written as the plain CSV a team would
have (question_id, verdict, rater), imported with ``import-judgments --task NAME --scale ...``
and tested with ``validate-rater --task NAME --epsilon E --json`` for each LLM: the authors'
published winning rate and pass/fail (tests/stats/test_alt_test_real_data.py), and the same JSON
whichever order the file's rows come in."""

from __future__ import annotations

import csv
import json
import random

import pytest
from cli_run import run_cli
from test_alt_test_real_data import PUBLISHED, load

from core.store.database import open_db

#: set -> the import's scale options (the authors' labels as they are)
SCALES = {
    "lgbteen": [
        "--scale", "categorical", "--labels", "Yes,No,Partially,No response,Irrelevant,Ignore",
    ],
    "10k_prompts": ["--scale", "ordinal", "--labels", "1,2,3,4,5"],
    "cebab_aspects": ["--scale", "categorical", "--labels", "Positive,Negative,unknown"],
    "wax": ["--scale", "categorical"],  # its 16 relation labels: declared below, from the data
}  # fmt: skip


def _scale_options(name: str) -> list[str]:
    """The import's options; for wax the declared set is every label its people and LLMs used
    (16 relation types, e.g. 'Material-MadeOf', 'Members-of-the-same-Category')."""
    if "--labels" in SCALES[name]:
        return SCALES[name]
    humans, llms = load(name)
    labels = sorted(
        {str(v) for who in (humans, llms) for got in who.values() for v in got.values()}
    )
    return [*SCALES[name], "--labels", ",".join(labels)]


def _rows(name: str) -> list[tuple[str, str, str]]:
    """``(question_id, verdict, rater)`` of every label of the set: people as human:NAME, LLMs
    as auto:NAME (the authors' ``{annotator: {item: label}}`` files)."""
    humans, llms = load(name)
    rows = [(item, str(v), f"human:{h}") for h, got in humans.items() for item, v in got.items()]
    rows += [(item, str(v), f"auto:{m}") for m, got in llms.items() for item, v in got.items()]
    return rows


def _validate(tmp_path, name: str, rows: list[tuple[str, str, str]], tag: str) -> dict:
    """Import ``rows`` into a fresh database, then ``validate-rater`` for each LLM: LLM -> JSON."""
    db = tmp_path / f"{tag}.db"
    open_db(db).close()
    path = tmp_path / f"{tag}.csv"
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["question_id", "verdict", "rater"])
        writer.writerows(rows)
    code, _, err = run_cli(
        ["--db", str(db), "import-judgments", str(path), "--task", name, *_scale_options(name)]
        + ["--json"]
    )
    assert code == 0, err
    epsilon = PUBLISHED[name][1]
    got = {}
    for llm in PUBLISHED[name][2]:
        code, out, err = run_cli(
            [
                "--db", str(db), "validate-rater", "--task", name, "--rater", f"auto:{llm}",
                "--epsilon", str(epsilon), "--json",
            ]
        )  # fmt: skip
        assert code == 0, err
        got[llm] = json.loads(out)
    return got


#: (set, order) -> LLM -> validate-rater's JSON, computed once per module
_DECIDED: dict[tuple[str, str], dict] = {}


def _decided(tmp_path_factory, name: str, order: str) -> dict:
    if (name, order) not in _DECIDED:
        rows = _rows(name)
        if order == "shuffled":
            random.Random(32).shuffle(rows)
        folder = tmp_path_factory.mktemp(f"{name}-{order}")
        _DECIDED[name, order] = _validate(folder, name, rows, order)
    return _DECIDED[name, order]


@pytest.mark.parametrize("name", list(SCALES))
def test_imported_real_labels_give_the_authors_winning_rates_and_decisions(tmp_path_factory, name):
    got = _decided(tmp_path_factory, name, "given")
    published = PUBLISHED[name][2]
    assert {llm: round(out["winning_rate"], 2) for llm, out in got.items()} == {
        llm: rate for llm, (rate, _) in published.items()
    }
    assert {llm: out["passed"] for llm, out in got.items()} == {
        llm: rate >= 0.5 for llm, (rate, _) in published.items()
    }


@pytest.mark.parametrize("name", list(SCALES))
def test_imported_real_labels_decide_the_same_in_any_row_order(tmp_path_factory, name):
    assert _decided(tmp_path_factory, name, "shuffled") == _decided(tmp_path_factory, name, "given")
