"""The same verdict rows imported in two file orders give identical JSON from validate-rater,
validation-items and rater-report (issue 32: the items-needed sizes depended on row order)."""

from __future__ import annotations

import json
import random

from cli_run import run_cli
from rater_rows import pair_rows, write_csv


def _outputs(tmp_path, name: str, rows) -> dict[str, object]:
    db = str(tmp_path / f"{name}.db")
    assert run_cli(["--db", db, "init"])[0] == 0
    code, _, err = run_cli(
        ["--db", db, "import-judgments", write_csv(tmp_path / f"{name}.csv", rows)]
    )
    assert code == 0, err
    out = {}
    for command, extra in (
        ("validate-rater", []),
        ("validation-items", ["--sims", "30"]),
        ("rater-report", ["--simulations", "30", "--out", str(tmp_path / f"{name}.html")]),
    ):
        code, text, err = run_cli(["--db", db, command, "--rater", "auto:judge", "--json", *extra])
        assert code == 0, err
        out[command] = json.loads(text)
    return out


def test_two_row_orders_give_identical_json(tmp_path):
    rows = pair_rows(seed=3, n=80, rater_acc=0.8)
    shuffled = list(rows)
    random.Random(1).shuffle(shuffled)
    first, second = _outputs(tmp_path, "a", rows), _outputs(tmp_path, "b", shuffled)
    needed = first["validation-items"]
    assert needed["current"] >= 79 and max(int(n) for n in needed["decision"]) >= 316
    assert needed["status"] in ("holds", "label more", "cannot tell")
    for command in first:
        assert first[command] == second[command], command
