"""The Leaderboard page and ``rank --from-db`` rank the same stored verdicts with the same
:class:`RankingSettings` value, so they show the same numbers."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from core.__main__ import main
from core.store.connection import utcnow
from core.store.engine import Database
from core.views.leaderboard import PAGE_RANKING, LiveLeaderboard


def store_verdicts(db: Database) -> None:
    """40 questions, four systems, every pair judged by two raters (one connected group)."""
    now = utcnow()
    rng = np.random.default_rng(5)
    strength = {"s0": 1.0, "s1": 0.4, "s2": 0.0, "s3": -0.8}
    names = sorted(strength)
    rows = []
    for k in range(40):
        q = f"q{k}"
        db.table("questions").insert(
            {"id": q, "question": "?", "origin": "imported", "created_at": now, "updated_at": now}
        )
        for i, a in enumerate(names):
            for b in names[i + 1 :]:
                for rater in ("human:ann", "auto:j"):
                    p = 1 / (1 + np.exp(strength[b] - strength[a]))
                    u = rng.random()
                    verdict = "Equal" if u < 0.1 else ("A" if u < 0.1 + 0.9 * p else "B")
                    rows.append(
                        {
                            "kind": "pairwise",
                            "question_id": q,
                            "rater": rater,
                            "rater_kind": rater.split(":")[0],
                            "system_a": a,
                            "system_b": b,
                            "verdict": verdict,
                            "status": "ok",
                            "created_at": now,
                        }
                    )
    db.table("judgments").insert_all(rows)


def rank_from_db(capsys: pytest.CaptureFixture[str], path: str, *args: str) -> dict[str, Any]:
    capsys.readouterr()
    assert main(["--db", path, "rank", "--from-db", "--json", *args]) == 0
    out: dict[str, Any] = json.loads(capsys.readouterr().out)
    (group,) = out["groups"]  # one connected group here: ranked as the page ranks it
    return dict(group)


@pytest.mark.parametrize(("n_boot", "seed"), [(PAGE_RANKING.n_boot, PAGE_RANKING.seed), (50, 3)])
def test_page_and_rank_from_db_agree(
    db: Database,
    db_path: Path,
    capsys: pytest.CaptureFixture[str],
    n_boot: int,
    seed: int,
) -> None:
    store_verdicts(db)
    # what pages/5_Leaderboard.py computes for its widgets (verdicts "Both", all raters)
    settings = replace(PAGE_RANKING, n_boot=n_boot, seed=seed)
    shown = LiveLeaderboard("both").view(db, settings)
    assert shown.leaderboard is not None and len(shown.groups) == 1
    page = {r["name"]: r for r in shown.leaderboard.to_dict()["systems"]}
    cli = rank_from_db(capsys, str(db_path), "--bootstrap", str(n_boot), "--seed", str(seed))
    assert [r["name"] for r in cli["systems"]] == list(page)
    for row in cli["systems"]:
        for key in ("beta", "ci_low", "ci_high", "rank", "rank_ub", "wins", "ties"):
            assert row[key] == pytest.approx(page[row["name"]][key], abs=1e-9), key
    assert cli["n_judgments"] == 40 * 6 * 2


def test_one_rater_on_the_page_equals_rank_from_db_with_that_rater(
    db: Database, db_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store_verdicts(db)
    settings = replace(PAGE_RANKING, n_boot=30, seed=1)
    shown = LiveLeaderboard("human", "human:ann").view(db, settings).leaderboard
    cli = rank_from_db(
        capsys, str(db_path), "--rater", "human:ann", "--bootstrap", "30", "--seed", "1"
    )
    page = {r["name"]: r for r in shown.to_dict()["systems"]}
    assert cli["n_judgments"] == 40 * 6
    for row in cli["systems"]:
        assert row["beta"] == pytest.approx(page[row["name"]]["beta"], abs=1e-9)
        assert row["ci_low"] == pytest.approx(page[row["name"]]["ci_low"], abs=1e-9)
