"""``rank --from-db`` ranks each connected group of systems on its own, with the Leaderboard page's
code: three tournaments that never met are three lists (never one), and a group whose
maximum-likelihood fit does not exist (a system that never loses) gets the page's weak-prior fit
and its note instead of an exit."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from core.__main__ import main
from core.store.connection import utcnow
from core.store.engine import Database
from core.views.leaderboard import PAGE_RANKING, LiveLeaderboard

#: Three tournaments over disjoint systems; "t2/gpt4" never meets the others' systems.
TOURNAMENTS = {
    "t1": {"t1/a": 1.5, "t1/b": 0.5, "t1/c": -0.5, "t1/d": -1.5},
    "t2": {"t2/gpt4": 0.3, "t2/llama": -0.3},
    "t3": {"t3/x": 2.0, "t3/y": 1.0, "t3/z": 0.0},
}


def store_tournaments(db: Database, never_loses: str | None = None) -> None:
    """30 questions per tournament, every pair of its systems judged once per question;
    ``never_loses``: that system wins every comparison it is in (no finite MLE)."""
    now = utcnow()
    rng = np.random.default_rng(3)
    rows = []
    for name, strength in TOURNAMENTS.items():
        systems = sorted(strength)
        for k in range(30):
            q = f"{name}-q{k}"
            db.table("questions").insert(
                {
                    "id": q,
                    "question": "?",
                    "origin": "imported",
                    "created_at": now,
                    "updated_at": now,
                }
            )
            for i, a in enumerate(systems):
                for b in systems[i + 1 :]:
                    p = 1 / (1 + np.exp(strength[b] - strength[a]))
                    verdict = "A" if rng.random() < p else "B"
                    if never_loses in (a, b):
                        verdict = "A" if a == never_loses else "B"
                    rows.append(
                        {
                            "kind": "pairwise",
                            "question_id": q,
                            "rater": "auto:j",
                            "rater_kind": "auto",
                            "system_a": a,
                            "system_b": b,
                            "verdict": verdict,
                            "status": "ok",
                            "created_at": now,
                        }
                    )
    db.table("judgments").insert_all(rows)


def rank_json(capsys: pytest.CaptureFixture[str], path: Path, *args: str) -> dict[str, Any]:
    capsys.readouterr()
    code = main(["--db", str(path), "rank", "--from-db", "--json", "--bootstrap", "20", *args])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    out: dict[str, Any] = json.loads(captured.out)
    return out


def test_three_tournaments_are_three_rankings(
    db: Database, db_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store_tournaments(db)
    out = rank_json(capsys, db_path)
    groups = out["groups"]
    # largest group first, each with its own systems only
    assert [g["members"] for g in groups] == [sorted(TOURNAMENTS[t]) for t in ("t1", "t3", "t2")]
    for g in groups:  # every group ranks only its own systems, from 1
        names = [r["name"] for r in g["systems"]]
        assert sorted(names) == sorted(g["members"])
        assert sorted(r["rank"] for r in g["systems"]) == list(range(1, len(names) + 1))
    (t2,) = [g for g in groups if "t2/gpt4" in g["members"]]
    assert t2["systems"][0]["rank"] in (1, 2) and len(t2["systems"]) == 2
    assert "never compared with each other" in out["grouping"]
    assert not any("strongly connected" in w for w in out["warnings"])
    # the same groups and figures as the Leaderboard page shows, group by group
    settings = PAGE_RANKING.__class__(n_boot=20)
    live = LiveLeaderboard("both")
    for g in groups:
        shown = live.view(db, settings, group=g["members"][0])
        assert shown.group is not None and list(shown.group.systems) == g["members"]
        assert shown.leaderboard is not None
        page = {r["name"]: r for r in shown.leaderboard.to_dict()["systems"]}
        for row in g["systems"]:
            assert row["beta"] == pytest.approx(page[row["name"]]["beta"], abs=1e-9)
    capsys.readouterr()
    assert main(["--db", str(db_path), "rank", "--from-db", "--bootstrap", "20"]) == 0
    text = capsys.readouterr().out
    assert "3 groups of systems that were never compared" in text
    assert "group 1 of 3" in text and "group 3 of 3" in text


def test_a_group_without_a_maximum_likelihood_fit_is_ranked_with_the_pages_note(
    db: Database, db_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store_tournaments(db, never_loses="t3/z")
    out = rank_json(capsys, db_path)
    (t3,) = [g for g in out["groups"] if "t3/z" in g["members"]]
    assert t3["systems"][0]["name"] == "t3/z"
    assert "maximum-likelihood fit does not exist" in t3["note"]
    others = [g for g in out["groups"] if g is not t3]
    assert all(not g["note"] and g["systems"] for g in others)
