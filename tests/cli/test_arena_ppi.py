"""The authors' Chatbot Arena files import with one command each (the arena layout) and rank with
``rank --method ppi`` as their PPI estimate: one line is one vote even when a named rater meets
the same question and pair again (it was refused as "a second verdict on the same item")."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest
from cli_run import run_cli

from core.stats.ppi_mean import Battles, ppi_win_rates
from core.store.database import open_db

DATA = Path(__file__).resolve().parent.parent / "data" / "ppr" / "battles.csv"
N_PEOPLE = 59  # people judged the first 59 battles; the judge all 118


def write_jsonl(path: Path, rows: list[dict[str, str]], winner: str) -> str:
    lines = [
        json.dumps(
            {
                "question_id": f"arena-q{r['num']}",
                "model_a": r["model_a"],
                "model_b": r["model_b"],
                "winner": r[winner],
            }
        )
        for r in rows
    ]
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def test_their_files_import_and_rank_as_their_ppi_estimate(db_path: Path, tmp_path: Path) -> None:
    with DATA.open(newline="") as f:
        rows = list(csv.DictReader(f))
    human = write_jsonl(tmp_path / "human.jsonl", rows[:N_PEOPLE], "winner_human")
    judge = write_jsonl(tmp_path / "gpt-4.jsonl", rows, "winner_gpt4")
    db = ["--db", str(db_path)]
    for path, rater in ((human, "human:arena-crowd"), (judge, "auto:gpt-4-0125-preview")):
        code, _, err = run_cli(
            [*db, "import-judgments", path, "--layout", "arena", "--rater", rater]
        )
        assert code == 0, err
    code, out, err = run_cli(
        [*db, "rank", "--from-db", "--method", "ppi", "--people", "human:arena-crowd"]
        + ["--judge", "auto:gpt-4-0125-preview", "--alpha", "0.1", "--json"]
    )
    assert code == 0, err
    result = json.loads(out)
    assert result["n_both"] == N_PEOPLE and result["n_judge_only"] == len(rows) - N_PEOPLE
    models = sorted({r["model_a"] for r in rows} | {r["model_b"] for r in rows})
    a = np.array([models.index(r["model_a"]) for r in rows])
    b = np.array([models.index(r["model_b"]) for r in rows])

    def scored(col: str, sl: slice) -> Battles:
        w = np.array([r[col] for r in rows])[sl]
        return Battles(a[sl], b[sl], (w == "model_a") * 1.0, (w == "model_b") * 1.0)

    people, rest = slice(0, N_PEOPLE), slice(N_PEOPLE, None)
    fit = ppi_win_rates(
        scored("winner_human", people),
        scored("winner_gpt4", people),
        scored("winner_gpt4", rest),
        8,
    )
    assert result["lambda"] == pytest.approx(fit.lam, abs=1e-12)
    for s in result["systems"]:
        assert s["estimate"] == pytest.approx(fit.estimate[models.index(s["name"])], abs=1e-12)


def test_a_named_raters_repeated_battle_is_a_second_vote(db_path: Path, tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    battle = {"question_id": "q1", "model_a": "m1", "model_b": "m2"}
    path.write_text(
        "\n".join(
            json.dumps(battle | extra)
            for extra in (
                {"winner": "model_a"},
                {"winner": "model_b"},
                {"model_a": "m2", "model_b": "m1", "winner": "tie"},  # the same pair, swapped
                {"question_id": "q2", "winner": "tie (bothbad)"},
            )
        )
        + "\n"
    )
    db = ["--db", str(db_path)]
    code, out, err = run_cli(
        [*db, "import-judgments", str(path), "--layout", "arena", "--rater", "auto:j", "--json"]
    )
    assert code == 0, err
    assert json.loads(out)["judgments"]["inserted"] == 4
    store = open_db(db_path)
    try:
        found = store.execute(
            "select question_id, system_a, system_b, verdict from judgments order by id"
        ).fetchall()
    finally:
        store.close()
    assert [tuple(r) for r in found] == [
        ("q1", "m1", "m2", "A"),
        ("q1~2", "m1", "m2", "B"),
        ("q1~3", "m2", "m1", "Equal"),
        ("q2", "m1", "m2", "None"),
    ]
