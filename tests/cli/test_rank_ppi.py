"""``rank --from-db --people human:... --judge auto:X --method ppi``: the JSON contract, the judge's
bias made visible, and one-line errors for bad input."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from cli_run import run_cli
from ppi_fixture import FAVOURED, JUDGE, PEOPLE, store_battles

from core.stats.ppi_mean import Battles, ppi_win_rates
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
        ["--db", path, "rank", "--from-db", "--method", "ppi", "--people", PEOPLE, *args]
    )


def test_json_has_three_estimates_and_flags_the_flattered_system(battles_db: str) -> None:
    code, out, err = ppi(battles_db, "--judge", JUDGE, "--json")
    assert code == 0, err
    result = json.loads(out)
    assert result["method"] == "ppi" and result["alpha"] == pytest.approx(0.05)
    assert 0 <= result["lambda"] <= 1 and result["ties"] == "none"
    assert result["n_both"] + result["n_judge_only"] == 60 * 6
    systems = {s["name"]: s for s in result["systems"]}
    assert set(systems) == {"sys/a", "sys/b", "sys/c", "sys/d"}
    for s in systems.values():
        lo, hi = s["interval"]
        assert lo <= s["estimate"] <= hi
        assert 1 <= s["rank_set"][0] <= s["rank_set"][1] <= 4
        for kind in ("people", "judge"):
            assert set(s[kind]) >= {"estimate", "interval", "rank_set", "rank"}
        width = hi - lo
        assert width <= s["people"]["interval"][1] - s["people"]["interval"][0] + 1e-12
    # the judge crowns its favourite; people (and the combination) put it last
    assert systems[FAVOURED]["judge"]["rank"] == 1
    assert systems[FAVOURED]["rank_set"][0] > 1
    assert result["judge_outside"] == [FAVOURED]
    assert [s["name"] for s in result["systems"]][0] == "sys/a"


def test_estimates_are_the_stats_functions_on_the_stored_battles(battles_db: str) -> None:
    # Re-read the battles straight from the fixture's rows and recompute.
    db = open_db(battles_db)
    try:
        rows = db.execute(
            "select question_id, rater, system_a, system_b, verdict from judgments"
        ).fetchall()
    finally:
        db.close()
    names = sorted({r[2] for r in rows} | {r[3] for r in rows})
    by: dict[str, dict[tuple[str, str, str], tuple[float, float]]] = {PEOPLE: {}, JUDGE: {}}
    for q, rater, a, b, v in rows:
        if rater not in by:
            continue
        sa, sb = {"A": (1.0, 0.0), "B": (0.0, 1.0)}.get(v, (0.0, 0.0))
        by[rater][(q, *sorted((a, b)))] = (sa, sb) if a < b else (sb, sa)
    paired = sorted(set(by[PEOPLE]) & set(by[JUDGE]))
    alone = sorted(set(by[JUDGE]) - set(by[PEOPLE]))

    def battles(keys: list, side: str) -> Battles:
        s = np.array([by[side][k] for k in keys])
        idx = [[names.index(k[1]), names.index(k[2])] for k in keys]
        ab = np.array(idx)
        return Battles(ab[:, 0], ab[:, 1], s[:, 0], s[:, 1])

    fit = ppi_win_rates(battles(paired, PEOPLE), battles(paired, JUDGE), battles(alone, JUDGE), 4)
    code, out, _ = ppi(battles_db, "--judge", JUDGE, "--json", "--alpha", "0.1")
    result = json.loads(out)
    assert code == 0 and result["lambda"] == pytest.approx(fit.lam, abs=1e-12)
    for s in result["systems"]:
        m = names.index(s["name"])
        assert s["estimate"] == pytest.approx(fit.estimate[m], abs=1e-12)
        assert s["interval"] == pytest.approx(list(fit.intervals(0.1)[m]), abs=1e-12)


def test_table_and_ties_half(battles_db: str) -> None:
    code, out, _ = ppi(battles_db, "--judge", JUDGE, "--ties", "half")
    assert code == 0
    assert "judge rank outside rank-set" in out and "a tie counting half" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--judge", "auto:nobody"], "rater 'auto:nobody' has no pairwise verdict"),
        (["--judge", PEOPLE], "is a human rater"),
        (["--judge", "auto:other"], "share no battle"),
        (["--judge", JUDGE, "--ties", "drop"], "breaks the guarantee"),
        (["--judge", JUDGE, "--alpha", "2"], "error level in (0, 1)"),
        (["--judge", JUDGE, "--alpha", "0.1", "--level", "0.9"], "not both"),
        (["--judge", JUDGE, "--rater", PEOPLE], "not --rater"),
    ],
)
def test_bad_input_is_one_line_exit_2(battles_db: str, args: list[str], message: str) -> None:
    code, out, err = ppi(battles_db, *args)
    assert code == 2 and not out
    assert err.startswith("error: ") and message in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_unknown_people_and_missing_options(battles_db: str) -> None:
    code, _, err = run_cli(
        ["--db", battles_db, "rank", "--from-db", "--method", "ppi", "--people", "human:x"]
        + ["--judge", JUDGE]
    )
    assert code == 2 and "rater 'human:x' has no pairwise verdict (human raters: human:ann)" in err
    code, _, err = run_cli(["--db", battles_db, "rank", "--from-db", "--judge", JUDGE])
    assert code == 2 and "go with --method ppi" in err
    code, _, err = run_cli(["--db", battles_db, "rank", "--from-db", "--method", "ppi"])
    assert code == 2 and "needs --people" in err


def test_rank_set_size_says_how_many_more_people_verdicts(battles_db: str) -> None:
    code, out, err = ppi(battles_db, "--judge", JUDGE, "--json", "--rank-set-size", "1")
    assert code == 0, err
    result = json.loads(out)
    needed = result["people_needed"]
    assert needed["target"] == 1 and needed["share"] == 0.8
    assert result["widest_rank_set"] >= 1 and "curve" in needed and needed["sentence"]
    code, out, _ = ppi(battles_db, "--judge", JUDGE, "--rank-set-size", "4")
    assert code == 0 and "widest rank-set:" in out and "at most 4 rank(s)" in out
    code, _, err = ppi(battles_db, "--judge", JUDGE, "--rank-set-size", "9")
    assert code == 2 and "target must be a number of ranks from 1 to 4" in err
    code, _, err = run_cli(["--db", battles_db, "rank", "--from-db", "--rank-set-size", "2"])
    assert code == 2 and "go with --method ppi" in err


def test_too_few_labelled_battles_are_said_with_the_figures(db_path: Path) -> None:
    # 6 questions, about 60% of their battles judged by people: about 11 labelled battles per
    # system, too few for the normal intervals; the figures come with one warning line
    db = open_db(db_path)
    try:
        store_battles(db, n_questions=6)
    finally:
        db.close()
    code, out, err = ppi(str(db_path), "--judge", JUDGE, "--json")
    assert code == 0, err
    result = json.loads(out)
    (warning,) = result["warnings"]
    counts = {s["name"]: s["n_both"] for s in result["systems"]}
    assert all(n < 30 for n in counts.values())
    assert ", ".join(f"{name} {counts[name]}" for name in sorted(counts)) in warning
    assert "not reliable" in warning and "validation-queue --random" in warning
    code, out, err = ppi(str(db_path), "--judge", JUDGE)
    assert code == 0, err
    assert [line for line in out.splitlines() if line.startswith("warning:")] == [
        f"warning: {warning}"
    ]


def test_enough_labelled_battles_give_no_warning(battles_db: str) -> None:
    code, out, err = ppi(battles_db, "--judge", JUDGE, "--json")
    assert code == 0, err
    assert json.loads(out)["warnings"] == []
    code, out, err = ppi(battles_db, "--judge", JUDGE)
    assert "warning:" not in out
