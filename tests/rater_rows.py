"""Pairwise verdicts of three people and an auto-rater, and a CSV writer: the rows several
rater-validation tests import (here, on ``sys.path`` through ``tests/conftest.py``, rather than
through a ``tests.`` package name that an installed library's own ``tests`` package can shadow:
ppi-python's wheel ships one)."""

from __future__ import annotations

import csv
import random

HUMANS = ("human:alice", "human:bob", "human:carol")


def pair_rows(seed: int = 0, n: int = 40, rater_acc: float = 0.9) -> list[dict[str, str]]:
    """Pairwise verdicts on ``n`` questions of systems x, y (shown in a random order): three people
    at 75 % and an auto-rater at ``rater_acc`` copy a hidden better system; the auto-rater judges
    every fourth question in both orders; alice judges q0 in both orders (that item splits)."""
    rng = random.Random(seed)
    rows = []

    def verdict(a: str, good: str, acc: float) -> str:
        pick = good if rng.random() < acc else ("y" if good == "x" else "x")
        return "A" if pick == a else "B"

    for i in range(n):
        good = rng.choice("xy")
        for rater in HUMANS:
            a, b = rng.choice([("x", "y"), ("y", "x")])
            rows.append(
                {
                    "question_id": f"q{i}",
                    "system_a": a,
                    "system_b": b,
                    "rater": rater,
                    "verdict": verdict(a, good, 0.75),
                }
            )
        orders = [("x", "y"), ("y", "x")] if i % 4 == 0 else [rng.choice([("x", "y"), ("y", "x")])]
        for a, b in orders:
            rows.append(
                {
                    "question_id": f"q{i}",
                    "system_a": a,
                    "system_b": b,
                    "rater": "auto:judge",
                    "verdict": verdict(a, good, rater_acc),
                }
            )
    alice = [r for r in rows if r["rater"] == "human:alice" and r["question_id"] == "q0"][0]
    a, b = alice["system_b"], alice["system_a"]
    rows.append(
        {
            "question_id": "q0",
            "system_a": a,
            "system_b": b,
            "rater": "human:alice",
            "verdict": "Equal",
        }
    )
    return rows


def write_csv(path, rows) -> str:
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    return str(path)
