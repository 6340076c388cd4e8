"""Browse page: every pairwise verdict of one question as a grid (shown pair x rater -> winner)."""

from __future__ import annotations

import pandas as pd
import sqlite_utils

from core.store.schema import not_superseded

_EFFECTIVE = not_superseded("judgments")


def verdict_grid(db: sqlite_utils.Database, question_id: str) -> pd.DataFrame:
    """One row per pair in the order shown (``A vs B``), one column per rater; each cell names
    the winner (a system, ``tie`` or ``neither``) of the rater's effective verdict."""
    cur = db.execute(
        "select system_a, system_b, rater, verdict from judgments t where kind = 'pairwise' "
        f"and status = 'ok' and verdict is not null and question_id = ? and {_EFFECTIVE} "
        "order by id",
        [question_id],
    )
    df = pd.DataFrame(cur.fetchall(), columns=["system_a", "system_b", "rater", "verdict"])
    if df.empty:
        return pd.DataFrame(columns=["shown (A vs B)"])
    df["winner"] = [
        {"A": a, "B": b, "Equal": "tie", "None": "neither"}.get(v, v)
        for a, b, v in zip(df["system_a"], df["system_b"], df["verdict"])
    ]
    df["shown (A vs B)"] = df["system_a"] + " vs " + df["system_b"]
    grid = df.pivot_table(
        index="shown (A vs B)", columns="rater", values="winner", aggfunc="last"
    ).fillna("")
    grid.columns.name = None
    return grid.reset_index()
