"""``tasks define``, ``tasks add-items`` and ``tasks list`` (issue 32): a custom task defined
from the shell, labelled by people in the app (core write path), shows in ``validate-rater
--task NAME``; a bad definition is one ``error:`` line and stores nothing."""

from __future__ import annotations

import csv
import json
import random

from cli_run import run_cli

from core.annotation.custom_labels import label_item, undo_label
from core.annotation.identity import sign_in_open
from core.store.database import opened

LABELS = ("good", "bad", "unsure")


def _write(path, rows: list[dict[str, str]]) -> str:
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    return str(path)


def _define(tmp_path, db: str) -> None:
    guide = tmp_path / "guide.md"
    guide.write_text("Say whether the answer is good.", encoding="utf-8")
    code, out, err = run_cli(
        ["--db", db, "tasks", "define", "tone", "--scale", "categorical", "--labels",
         ",".join(LABELS), "--guideline", str(guide)]
    )  # fmt: skip
    assert (code, out, err) == (0, "task tone: categorical, labels good, bad, unsure\n", "")
    items = [
        {"item": f"i{n}", "text": f"Question {n}?", "answer": f"Answer {n}"} for n in range(32)
    ]
    code, out, err = run_cli(
        ["--db", db, "tasks", "add-items", "tone", _write(tmp_path / "i.csv", items)]
    )
    assert (code, out) == (0, "added 32 items to task tone\n"), err


def test_define_add_list_and_the_labels_reach_validate_rater(tmp_path):
    db = str(tmp_path / "w.db")
    assert run_cli(["--db", db, "init"])[0] == 0
    _define(tmp_path, db)
    code, out, _ = run_cli(["--db", db, "tasks", "list", "--json"])
    assert json.loads(out) == [
        {"task": "tone", "scale": "categorical", "labels": list(LABELS), "items": 32,
         "defined_by": "admin"}
    ]  # fmt: skip
    rng = random.Random(4)
    truth = {f"i{n}": rng.choice(LABELS) for n in range(32)}
    with opened(db) as store:
        for person in ("alice", "bob", "carol"):
            who = sign_in_open(store, person)
            for item, label in truth.items():
                label_item(store, who, "tone", item, label if rng.random() < 0.8 else "unsure")
        label_item(store, who, "tone", "i0", "bad")  # carol's second label of i0 supersedes
        undo_label(store, who, "tone")  # ... and is withdrawn: i0 has no label of carol's
    bot = [
        {"question_id": item, "verdict": label, "rater": "auto:bot"}
        for item, label in truth.items()
    ]
    code, _, err = run_cli(
        ["--db", db, "import-judgments", _write(tmp_path / "bot.csv", bot), "--task", "tone",
         "--scale", "categorical", "--labels", ",".join(LABELS)]
    )  # fmt: skip
    assert code == 0, err
    code, out, err = run_cli(
        ["--db", db, "validate-rater", "--rater", "auto:bot", "--task", "tone", "--json"]
    )
    assert code == 0, err
    result = json.loads(out)
    assert (result["task"], result["scale"], result["items"]) == ("tone", "categorical", 32)
    assert sorted(h["name"] for h in result["humans"]) == [
        "human:alice",
        "human:bob",
        "human:carol",
    ]
    carol = next(h for h in result["humans"] if h["name"] == "human:carol")
    assert carol["items"] == 31  # her withdrawn label of i0 is not counted


def test_a_bad_definition_is_one_error_line_and_stores_nothing(tmp_path):
    db = str(tmp_path / "w.db")
    assert run_cli(["--db", db, "init"])[0] == 0
    _define(tmp_path, db)
    for argv, message in (
        (["tasks", "define", "a b", "--scale", "ordinal", "--labels", "1,2"], "task name 'a b'"),
        (["tasks", "define", "t2", "--scale", "ordinal", "--labels", "1,1"], "repeats a label"),
        (["tasks", "define", "tone", "--scale", "categorical", "--labels", "x,y"], "exists with"),
        (["tasks", "add-items", "nope", str(tmp_path / "i.csv")], "no custom task 'nope'"),
    ):
        code, out, err = run_cli(["--db", db, *argv])
        assert code == 2 and out == "" and err.startswith("error: ") and message in err, err
        assert err.count("\n") == 1
    code, out, _ = run_cli(["--db", db, "tasks", "list"])
    assert out.splitlines()[1].split()[:4] == ["tone", "categorical", "good,bad,unsure", "32"]


def test_a_label_for_an_item_the_task_lacks_is_refused_and_writes_nothing(tmp_path):
    db = str(tmp_path / "w.db")
    assert run_cli(["--db", db, "init"])[0] == 0
    _define(tmp_path, db)
    rows = [
        {"question_id": "i0", "verdict": "good", "rater": "auto:bot"},
        {"question_id": "i00", "verdict": "good", "rater": "auto:bot"},  # a typo of i0
    ]
    path = _write(tmp_path / "bot.csv", rows)
    before = (tmp_path / "w.db").read_bytes()
    code, out, err = run_cli(["--db", db, "import-judgments", path, "--task", "tone"])
    assert (code, out) == (2, "")
    assert err == (
        f"error: {path}, line 3, column 'question_id': question 'i00' is not an item of task "
        "'tone' (add it with tasks add-items first, or fix the id); nothing imported\n"
    )
    assert (tmp_path / "w.db").read_bytes() == before
    # the items themselves import, and the same file again is unchanged
    path = _write(tmp_path / "ok.csv", rows[:1])
    for inserted in (1, 0):
        code, out, err = run_cli(["--db", db, "import-judgments", path, "--task", "tone", "--json"])
        assert code == 0, err
        assert json.loads(out)["judgments"]["inserted"] == inserted
