"""The ``rank`` and ``agreement`` commands: JSON contract, tables, one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import cohen_kappa_score

from core.__main__ import main
from core.stats.leaderboard import leaderboard
from core.stats.ranking_settings import RankingSettings

RANK_ROWS = [
    ("q1", "x", "y", "A"),
    ("q1", "y", "z", "B is better"),
    ("q2", "x", "z", "Equal"),
    ("q2", "z", "y", "a"),
    ("q3", "y", "x", "A"),
    ("q3", "z", "x", "None"),
    ("q4", "z", "x", "A"),
    ("q4", "x", "y", "B"),
    ("q5", "y", "z", "A"),
]


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def rank_csv(tmp_path: Path, rows=RANK_ROWS, extra: str = "") -> str:
    body = "".join(",".join(r) + "\n" for r in rows)
    return write(tmp_path, "j.csv", "question_id,system_a,system_b,verdict" + extra + "\n" + body)


@pytest.mark.filterwarnings("ignore:.*not strongly connected")
def test_rank_json_contract(tmp_path: Path, capsys) -> None:
    path = rank_csv(tmp_path)
    assert main(["rank", path, "--bootstrap", "200", "--seed", "3", "--json"]) == 0
    whole = json.loads(capsys.readouterr().out)
    (out,) = whole["groups"]  # one connected group
    ref = leaderboard(RANK_ROWS, RankingSettings(n_boot=200, seed=3))
    ours = {s["name"]: s for s in out["systems"]}
    for k, name in enumerate(ref.systems):
        assert ours[name]["beta"] == pytest.approx(ref.beta[k], abs=1e-10)
        assert ours[name]["ci_low"] <= ours[name]["beta"] <= ours[name]["ci_high"]
        assert {"rank", "rank_ub", "strength", "wins"} <= set(ours[name])
    assert whole["n_excluded_none"] == 1 and out["level"] == 0.95


def test_rank_table_and_ties_drop(tmp_path: Path, capsys) -> None:
    path = rank_csv(tmp_path)
    assert main(["rank", path, "--bootstrap", "0", "--ties", "drop"]) == 0
    text = capsys.readouterr().out
    lines = text.splitlines()
    assert lines[0].startswith("1 group: every system is linked")
    assert lines[1] == "1 None (both wrong) verdicts excluded: they state no preference."
    assert lines[4].split()[:4] == ["rank", "rank_ub", "name", "beta"]
    assert "ties=drop" in text


def test_rank_length_control(tmp_path: Path, capsys) -> None:
    rng = np.random.default_rng(0)
    rows = [
        (q, a, b, v, str(rng.integers(10, 90)), str(rng.integers(10, 90)))
        for q, a, b, v in RANK_ROWS * 3
    ]
    path = rank_csv(tmp_path, rows, ",length_a,length_b")
    assert main(["rank", path, "--bootstrap", "50", "--length-control", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert "length_coefficient" in out and "beta_lc" in out["systems"][0]


@pytest.mark.parametrize(
    "text,message",
    [
        ("", "file is empty"),
        ("question_id,system_a\nq1,x\n", "column 'system_b': missing required column"),
        ("question_id,system_a,system_b,verdict\nq1,x,y,maybe\n", "line 2, column 'verdict'"),
        ("question_id,system_a,system_b,verdict\nq1,x,y,A\nq2,y,x,A\n", None),
        ("question_id,system_a,system_b,verdict\nq1,x,y,None\n", "no two systems are compared"),
        ("question_id,system_a,system_b,verdict\nq1,x,x,A\n", "compared with itself"),
        ("question_id,system_a,system_b,verdict\nq1,x,,A\n", "column 'system_b'"),
    ],
)
def test_rank_bad_input(tmp_path: Path, capsys, text: str, message: str | None) -> None:
    path = write(tmp_path, "bad.csv", text)
    code = main(["rank", path, "--bootstrap", "0"])
    err = capsys.readouterr().err
    if message is None:  # x and y each win once: fine
        assert code == 0
        return
    assert code == 2 and err.startswith("error: ") and message in err
    assert len(err.strip().splitlines()) == 1


def agreement_csv(tmp_path: Path) -> tuple[str, pd.DataFrame]:
    rng = np.random.default_rng(4)
    truth = rng.choice(["A", "B", "Equal"], 60)
    rows = []
    for rater, noise in (("h1", 0.2), ("h2", 0.3), ("h3", 0.5)):
        for i, t in enumerate(truth):
            if rater == "h3" and i % 7 == 0:
                continue  # missing labels
            v = t if rng.random() > noise else rng.choice(["A", "B", "Equal"])
            rows.append((f"i{i}", rater, v))
    df = pd.DataFrame(rows, columns=["item_id", "rater", "verdict"])
    path = tmp_path / "v.csv"
    df.to_csv(path, index=False)
    return str(path), df


def test_agreement_two_raters(tmp_path: Path, capsys) -> None:
    path, df = agreement_csv(tmp_path)
    assert main(["agreement", path, "--rater-a", "h1", "--rater-b", "h3", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    w = df.pivot(index="item_id", columns="rater", values="verdict").dropna()
    assert out["n"] == len(w)
    assert out["cohen_kappa"] == pytest.approx(cohen_kappa_score(w["h1"], w["h3"]), abs=1e-9)
    assert out["agreement"] == pytest.approx((w["h1"] == w["h3"]).mean())
    lo, hi = out["cohen_kappa_ci"]
    assert lo <= out["cohen_kappa"] <= hi


def test_agreement_too_few_items_for_an_interval(tmp_path: Path, capsys) -> None:
    """Six items: a kappa but no interval (null in valid JSON, never NaN)."""
    path = tmp_path / "six.csv"
    rows = [
        (f"i{i}", r, v)
        for i, (x, y) in enumerate(zip("AABBAB", "AABBAA"))
        for r, v in (("a", x), ("b", y))
    ]
    pd.DataFrame(rows, columns=["item_id", "rater", "verdict"]).to_csv(path, index=False)
    assert main(["agreement", str(path), "--rater-a", "a", "--rater-b", "b", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["n"] == 6 and out["cohen_kappa_ci"] == [None, None]
    assert "none under 20 items" in out["interval"]


def test_agreement_all_pairs(tmp_path: Path, capsys) -> None:
    path, _ = agreement_csv(tmp_path)
    assert main(["agreement", path, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert len(out["pairs"]) == 3 and {"fleiss_kappa", "krippendorff_alpha"} <= set(out)
    assert main(["agreement", path]) == 0
    assert "Krippendorff" in capsys.readouterr().out


@pytest.mark.parametrize(
    "text,args,message",
    [
        ("item_id,rater\n1,a\n", [], "column 'verdict': missing required column"),
        ("item_id,rater,verdict\n1,a,A\n2,a,perhaps\n", [], "line 3"),
        ("item_id,rater,verdict\n1,a,A\n", [], "at least two raters"),
        ("item_id,rater,verdict\n1,a,A\n1,b,B\n", ["--rater-a", "a", "--rater-b", "c"], "'c'"),
    ],
)
def test_agreement_bad_input(tmp_path: Path, capsys, text: str, args: list, message: str) -> None:
    path = write(tmp_path, "v.csv", text)
    assert main(["agreement", path, *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err


def test_rank_file_answers_as_the_database_does(tmp_path: Path, capsys) -> None:
    """A file of three tournaments that never met ranks each on its own (as ``--from-db`` and
    the Leaderboard page do), and a system that never loses gets the page's weak-prior fit and
    its note instead of an exit."""
    rows = [("q1", "a", "b", "A"), ("q2", "b", "a", "A"), ("q3", "c", "d", "A")]
    rows += [("q4", "d", "c", "A"), ("q5", "x", "y", "A"), ("q6", "y", "x", "B")]
    path = rank_csv(tmp_path, rows)
    assert main(["rank", path, "--bootstrap", "0", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [sorted(g["members"]) for g in out["groups"]] == [["a", "b"], ["c", "d"], ["x", "y"]]
    assert out["grouping"].startswith("3 groups of systems that were never compared")
    never = next(g for g in out["groups"] if "x" in g["members"])
    assert "'x' never loses" in never["note"] and never["systems"][0]["name"] == "x"
