"""People's yes/no verdicts imported without the auto-rater's criterion share no item with it (an
absolute item is question, answer and criterion): the test's "not enough data" says so and what
to import, instead of "No human labelled these items" (core.views.criterion_hint)."""

from __future__ import annotations

import csv
import json
import random
from pathlib import Path

from cli_run import run_cli

from core.views.criterion_hint import criterion_hint

PEOPLE = ("human:ann", "human:ben", "human:cat")


def _is_person(rater: str, kind: str) -> bool:
    return kind == "human"


def test_the_hint_names_the_people_their_criterion_and_the_raters() -> None:
    rows = [
        ("auto:bot", "auto", "q1", "s1", "supported", "yes"),
        ("auto:bot", "auto", "q2", "s1", "supported", "no"),
        ("human:ann", "human", "q1", "s1", "", "yes"),
        ("human:ben", "human", "q2", "s1", "correct", "no"),
        ("human:cat", "human", "q9", "s1", "", "no"),  # not one of the rater's answers
    ]
    assert criterion_hint(rows, "auto:bot", _is_person) == (
        "No human labelled these items under the rater's criterion ('supported'), but "
        "human:ann with no criterion; human:ben under criterion 'correct' labelled 2 of its "
        "answers: a yes/no item is a question, an answer and a criterion, so import their "
        "verdicts with a criterion column saying 'supported'."
    )
    same = [*rows[:2], ("human:ann", "human", "q1", "s1", "supported", "yes")]
    assert criterion_hint(same, "auto:bot", _is_person) == ""


def _write(path: Path, with_criterion: bool) -> str:
    rng = random.Random(3)
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["question_id", "system", "verdict", "rater", "criterion"])
        for n in range(36):
            truth = rng.choice(["yes", "no"])
            w.writerow([f"q{n}", "s1", truth, "auto:bot", "supported"])
            for person in PEOPLE:
                label = truth if rng.random() < 0.85 else {"yes": "no", "no": "yes"}[truth]
                w.writerow([f"q{n}", "s1", label, person, "supported" if with_criterion else ""])
    return str(path)


def test_validate_rater_says_which_criterion_to_import(tmp_path: Path) -> None:
    db = str(tmp_path / "w.db")
    assert run_cli(["--db", db, "init"])[0] == 0
    assert run_cli(["--db", db, "import-judgments", _write(tmp_path / "a.csv", False)])[0] == 0
    args = ["--db", db, "validate-rater", "--rater", "auto:bot", "--task", "absolute"]
    code, out, err = run_cli(args)
    assert code == 2 and err.count("\n") == 1
    assert "No human labelled these items." not in err
    assert (
        "No human labelled these items under the rater's criterion ('supported'), but "
        "human:ann, human:ben, human:cat with no criterion labelled 36 of its answers" in err
    )
    # imported as the sentence says, the same people are the annotators
    fixed = tmp_path / "b.csv"
    assert run_cli(["--db", db, "import-judgments", _write(fixed, True)])[0] == 0
    code, out, err = run_cli([*args, "--json"])
    assert code == 0, err
    result = json.loads(out)
    assert sorted(h["name"] for h in result["humans"]) == list(PEOPLE)
    assert result["annotators_text"] == "The annotators are 3 named people."
