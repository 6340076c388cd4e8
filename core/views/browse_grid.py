"""Browse page: every pairwise verdict of one question as a grid (shown pair x rater -> winner)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd

from core.annotation.pairwise import pair_key
from core.store.judgments import JudgmentKind, JudgmentStatus, effective_values

if TYPE_CHECKING:
    from core.store.engine import Database

_COLUMNS = ["system_a", "system_b", "rater", "verdict"]


def verdict_grid(db: Database, question_id: str, hidden: tuple[str, ...] = ()) -> pd.DataFrame:
    """One row per pair in the order shown (``A vs B``), one column per rater; each cell names
    the winner (a system, ``tie`` or ``neither``) of the rater's effective verdict. ``hidden``:
    side-by-side item keys left out (still in the viewer's queue: :mod:`core.views.blind`)."""
    found = effective_values(
        db,
        _COLUMNS,
        kind=JudgmentKind.PAIRWISE,
        status=JudgmentStatus.OK,
        with_verdict=True,
        question_id=question_id,
    )
    if hidden:
        held = set(hidden)
        found = [j for j in found if pair_key(question_id, j[0], j[1]) not in held]
    df = pd.DataFrame(found, columns=_COLUMNS)
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
