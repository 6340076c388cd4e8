"""validate-rater on a store built in the test (import-judgments): items and labels as the store
gives them, the JSON contract, file-row-order independence, slots, refusals."""

from __future__ import annotations

import json
import random

import pytest
from rater_rows import HUMANS, pair_rows, write_csv  # noqa: F401 - imported by siblings

from core.__main__ import main
from core.stats.alt_test import alt_test
from core.views.rater_validation import auto_raters, validate_rater, validation_labels


def imported(tmp_path, init_location, name: str, rows) -> str:
    """A new database (SQLite file or PostgreSQL URL) with ``rows`` imported by the CLI."""
    dbfile = str(init_location(name))
    assert main(["--db", dbfile, "init"]) == 0
    assert (
        main(["--db", dbfile, "import-judgments", write_csv(tmp_path / f"{name}.csv", rows)]) == 0
    )
    return dbfile


def run_json(capsys, dbfile: str, *extra: str) -> tuple[int, dict | None, str]:
    capsys.readouterr()
    code = main(["--db", dbfile, "validate-rater", "--rater", "auto:judge", "--json", *extra])
    out = capsys.readouterr()
    return code, (json.loads(out.out) if code == 0 else None), out.err


def test_items_labels_and_split(tmp_path, init_location):
    from core.store.database import open_db

    db = open_db(imported(tmp_path, init_location, "a", pair_rows()))
    humans, mine = validation_labels(db, "auto:judge")
    assert sorted(humans) == list(HUMANS)
    # q0 is split by order shown (alice saw both); every other item is order-free
    assert {k for k in mine if k[0] == "q0"} == {("q0", "x", "y", "ab"), ("q0", "x", "y", "ba")}
    assert all(k[3] == "any" for k in mine if k[0] != "q0")
    assert len(mine[("q4", "x", "y", "any")]) == 2  # the rater's both orders
    assert all(
        len(v) == (2 if int(k[0][1:]) % 4 == 0 else 1) for k, v in mine.items() if k[0] != "q0"
    )
    assert {lab for h in humans.values() for v in h.values() for lab in v} <= {
        "first",
        "second",
        "Equal",
        "None",
    }
    assert auto_raters(db, "side-by-side") == ["auto:judge"]
    out = validate_rater(db, "auto:judge")
    direct = alt_test(humans, mine)
    assert out["winning_rate"] == direct.winning_rate
    assert out["advantage_prob"] == direct.advantage_prob
    assert (out["scale"], out["metric"]) == ("pairwise", "accuracy")
    assert set(out) == {
        "rater",
        "task",
        "scale",
        "metric",
        "epsilon",
        "q",
        "items",
        "humans",
        "winning_rate",
        "advantage_prob",
        "passed",
        "skipped",
        "annotators",
        "annotators_text",
    }
    assert out["annotators_text"] == "The annotators are 3 named people."
    assert set(out["humans"][0]) == {
        "name",
        "items",
        "advantage",
        "human_advantage",
        "p_value",
        "rejected",
    }
    # each person's own advantage (rho^h_j), as the alt-test computed it
    by_name = {h.name: h for h in direct.humans}
    assert all(h["human_advantage"] == by_name[h["name"]].human_advantage for h in out["humans"])
    # the 39 order-free items and one or both orders of q0 (those with two people)
    two = [k for k in mine if sum(k in h for h in humans.values()) >= 2]
    assert out["annotators"] == "people" and out["items"] == len(two) and len(two) in (40, 41)


def test_json_independent_of_file_row_order(tmp_path, init_location, capsys):
    rows = pair_rows(seed=3)
    shuffled = list(rows)
    random.Random(9).shuffle(shuffled)
    first = run_json(capsys, imported(tmp_path, init_location, "one", rows))
    second = run_json(capsys, imported(tmp_path, init_location, "two", shuffled))
    assert first[0] == 0 and first == second


def test_passes_and_fails_on_the_store(tmp_path, init_location, capsys):
    good_db = imported(tmp_path, init_location, "g", pair_rows(seed=1, n=60, rater_acc=1.0))
    code, good, _ = run_json(capsys, good_db)
    assert code == 0 and good["passed"]
    code, bad, _ = run_json(
        capsys, imported(tmp_path, init_location, "b", pair_rows(seed=1, n=60, rater_acc=0.2))
    )
    assert code == 0 and not bad["passed"]
    assert main(["--db", good_db, "validate-rater", "--rater", "auto:judge"]) == 0
    assert "PASSES" in capsys.readouterr().out


def test_absolute_yes_no(tmp_path, init_location, capsys):
    rng = random.Random(5)
    rows = []
    for i in range(35):
        truth = rng.choice(["yes", "no"])
        for rater, acc in (*((h, 0.8) for h in HUMANS), ("auto:judge", 0.95)):
            v = truth if rng.random() < acc else ("no" if truth == "yes" else "yes")
            rows.append(
                {
                    "question_id": f"q{i}",
                    "system": "s1",
                    "criterion": "supported",
                    "rater": rater,
                    "verdict": v,
                }
            )
    code, out, _ = run_json(
        capsys, imported(tmp_path, init_location, "abs", rows), "--task", "absolute"
    )
    assert code == 0 and out["task"] == "absolute" and out["items"] == 35
    assert len(out["humans"]) == 3


def test_refusals_are_one_error_line(tmp_path, init_location, capsys):
    rows = [r for r in pair_rows() if r["rater"] != "human:carol"]
    two = imported(tmp_path, init_location, "two", rows)
    code, _, err = run_json(capsys, two)
    assert code == 2 and err.startswith("error:") and len(err.strip().splitlines()) == 1
    assert "1 more" in err
    code, _, err = run_json(capsys, two, "--rater", "auto:nobody")
    assert code == 2 and "no effective pairwise verdicts" in err and "auto:judge" in err


def test_slots_stand_in_when_no_person_labelled_and_it_is_said(tmp_path, init_location, capsys):
    rows = pair_rows(seed=4)
    for r in rows:
        if r["rater"].startswith("human:"):
            r["rater"] = "human:crowd#"
            if r["system_a"] == "y":  # one order shown per item, as in a crowd file
                r["system_a"], r["system_b"] = "x", "y"
                r["verdict"] = {"A": "B", "B": "A"}.get(r["verdict"], r["verdict"])
    dbfile = imported(tmp_path, init_location, "slots", rows)
    code, _, err = run_json(capsys, dbfile, "--people-only")
    assert code == 2 and "0 have that" in err and "anonymous crowd slots that did are left" in err
    code, out, _ = run_json(capsys, dbfile)  # no named person: the slots, said so
    assert code == 0 and out["annotators"] == "anonymous slots"
    assert out["annotators_text"].startswith("No named person labelled these items")
    assert all(h["name"].startswith("human:crowd#") for h in out["humans"])
    assert run_json(capsys, dbfile, "--include-slots")[1] == out
    assert main(["--db", dbfile, "validate-rater", "--rater", "auto:judge"]) == 0
    assert out["annotators_text"] in capsys.readouterr().out


@pytest.mark.parametrize("bad", [["--q", "0"]])
def test_bad_arguments(tmp_path, bad):
    with pytest.raises(SystemExit) as caught:
        main(["--db", str(tmp_path / "x.db"), "validate-rater", "--rater", "auto:j", *bad])
    assert caught.value.code == 2


def test_unknown_task_is_one_line_naming_the_tasks(tmp_path, capsys):
    db = str(tmp_path / "x.db")
    assert main(["--db", db, "init"]) == 0
    capsys.readouterr()
    assert main(["--db", db, "validate-rater", "--rater", "auto:j", "--task", "review"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["error: no task 'review'; tasks: side-by-side, absolute"]


@pytest.mark.parametrize("command", ["validate-rater", "validation-items"])
@pytest.mark.parametrize(
    ("bad", "message"),
    [
        (["--epsilon", "1.5"], "a number in [0, 1)"),
        (["--epsilon", "crowd"], "use --annotators"),
        (["--annotators", "students"], "experts, skilled, crowd"),
        (["--annotators", "crowd", "--epsilon", "0.1"], "not both"),
    ],
)
def test_bad_epsilon_is_one_error_line_before_the_database_opens(
    tmp_path, capsys, command, bad, message
):
    """The database does not exist: the epsilon is refused first, in one line."""
    assert main(["--db", str(tmp_path / "x.db"), command, "--rater", "auto:j", *bad]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error:") and message in err[0], err


def test_derived_majority_is_not_an_annotator(tmp_path, init_location, capsys):
    rows = pair_rows(seed=6)
    rows += [dict(r, rater="human:crowd-majority") for r in rows if r["rater"] == "human:bob"]
    code, out, _ = run_json(capsys, imported(tmp_path, init_location, "maj", rows))
    assert code == 0 and [h["name"] for h in out["humans"]] == list(HUMANS)
    assert out["skipped"] == [
        {
            "name": "human:crowd-majority",
            "reason": "derived from the crowd's labels (their majority), not an annotator",
        }
    ]
    code, _, err = run_json(
        capsys,
        imported(
            tmp_path,
            init_location,
            "slots",
            [dict(r, rater="human:crowd#") if r["rater"] == "human:carol" else r for r in rows],
        ),
    )
    assert code == 2 and "1 anonymous crowd slot sharing these items is left out" in err


def test_validation_items_cli(tmp_path, init_location, capsys):
    dbfile = imported(tmp_path, init_location, "n", pair_rows(seed=7, n=60, rater_acc=1.0))
    capsys.readouterr()
    args = ["--db", dbfile, "validation-items", "--rater", "auto:judge", "--sims", "50"]
    assert main([*args, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["rater"] == "auto:judge" and out["current"] == 60
    assert list(out["pass_probability"]) == ["30", "45", "60", "68", "101", "152", "228", "300"]
    assert out["needed"] is not None and "bootstrap" in out["method"]
    assert out["status"] in ("holds", "label more") and out["recommended"] == "pass"
    assert main(args) == 0
    assert out["advice"] in capsys.readouterr().out
