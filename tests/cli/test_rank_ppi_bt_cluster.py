"""``rank --method ppi``: the Bradley-Terry strengths block (``"bt"``) and ``--cluster question``
(intervals and rank-sets from a bootstrap over questions)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from cli_run import run_cli
from ppi_fixture import JUDGE, PEOPLE, STRENGTH, store_battles

from core.store.database import open_db


@pytest.fixture
def battles_db(db_path: Path) -> str:
    db = open_db(db_path)
    try:
        store_battles(db)
    finally:
        db.close()
    return str(db_path)


def ppi(path: str, *args: str) -> tuple[int, str, str]:
    return run_cli(
        ["--db", path, "rank", "--from-db", "--method", "ppi", "--people", PEOPLE]
        + ["--judge", JUDGE, *args]
    )


def test_json_has_bradley_terry_strengths(battles_db: str) -> None:
    code, out, err = ppi(battles_db, "--json")
    assert code == 0, err
    bt = json.loads(out)["bt"]
    assert 0 <= bt["lambda"] <= 1 and "centred" in bt["scale"]
    names = [s["name"] for s in bt["systems"]]
    assert names == ["sys/a", "sys/b", "sys/c", "sys/d"]
    strengths = np.array([s["strength"] for s in bt["systems"]])
    assert abs(strengths.sum()) < 1e-9
    truth = np.array([STRENGTH[n] for n in names]) - np.mean(list(STRENGTH.values()))
    for s, t in zip(bt["systems"], truth):
        lo, hi = s["interval"]
        assert lo <= s["strength"] <= hi and lo - 0.2 <= t <= hi + 0.2

    def total(kind: str) -> float:  # the total variance lambda is tuned to lower
        return sum(
            np.diff((s if kind == "combined" else s[kind])["interval"])[0] ** 2
            for s in bt["systems"]
        )

    assert total("combined") <= total("people")
    # the judge gives every battle of its favourite to it: no finite strength of its own
    assert all(s["judge"] is None for s in bt["systems"]) and "judge alone" in bt["judge_why"]
    # a tie is half a win for the strengths under either tie rule
    code, out, _ = ppi(battles_db, "--json", "--ties", "half")
    assert json.loads(out)["bt"] == bt
    code, out, _ = ppi(battles_db)
    assert code == 0 and "strength (combined)" in out and "no strengths from the judge" in out


def test_cluster_question_bootstraps_the_intervals(battles_db: str) -> None:
    _, out, _ = ppi(battles_db, "--json")
    plain = json.loads(out)
    assert plain["cluster"] is None and "independent" in plain["interval"]
    code, out, err = ppi(battles_db, "--json", "--cluster", "question", "--bootstrap", "300")
    assert code == 0, err
    boot = json.loads(out)
    assert boot["cluster"] == "question" and boot["n_boot"] == 300
    assert boot["n_questions"] == 60 and "bootstrap over 60 questions" in boot["interval"]
    assert boot["lambda"] == plain["lambda"]
    for a, b in zip(plain["systems"], boot["systems"]):
        assert a["name"] == b["name"] and a["estimate"] == b["estimate"]
        for kind in ("people", "judge"):
            assert a[kind]["estimate"] == b[kind]["estimate"]
    assert [s["interval"] for s in plain["systems"]] != [s["interval"] for s in boot["systems"]]
    again = ppi(battles_db, "--json", "--cluster", "question", "--bootstrap", "300")[1]
    assert json.loads(again) == boot  # seeded (--seed 0)
    other = json.loads(ppi(battles_db, "--json", "--cluster", "question", "--seed", "5")[1])
    assert other["systems"][0]["interval"] != boot["systems"][0]["interval"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--cluster", "question", "--bootstrap", "1"], "at least 2 replicates"),
        (["--cluster", "answer"], "invalid choice"),
    ],
)
def test_bad_cluster_input_is_one_line_exit_2(battles_db: str, args: list[str], message: str):
    code, out, err = ppi(battles_db, *args)
    assert code == 2 and not out and message in err and "Traceback" not in err


def test_cluster_goes_with_method_ppi(battles_db: str) -> None:
    code, _, err = run_cli(["--db", battles_db, "rank", "--from-db", "--cluster", "question"])
    assert code == 2 and "--cluster go with --method ppi" in err
