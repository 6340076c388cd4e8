"""A database of people's and a biased judge's side-by-side verdicts, for the people + judge
ranking (``rank --method ppi``, the Leaderboard page's "People + judge" tab)."""

from __future__ import annotations

import numpy as np

from core.store.connection import utcnow
from core.store.engine import Database

#: People's Bradley-Terry strengths; the judge calls every battle of "sys/d" for it.
STRENGTH = {"sys/a": 1.2, "sys/b": 0.4, "sys/c": -0.3, "sys/d": -1.3}
FAVOURED = "sys/d"
PEOPLE = "human:ann"
JUDGE = "auto:flatterer"


def store_battles(db: Database, n_questions: int = 60, people_share: float = 0.6) -> None:
    """Every pair of systems on every question judged by ``JUDGE`` (shown in a random order);
    about ``people_share`` of those battles also judged by ``PEOPLE``; a verdict of ``auto:other``
    on a question nobody else saw (another judge, for the unknown-overlap check)."""
    now = utcnow()
    rng = np.random.default_rng(11)
    systems = sorted(STRENGTH)
    rows = []

    def row(q: str, rater: str, kind: str, a: str, b: str, verdict: str) -> dict[str, str]:
        return {
            "kind": "pairwise",
            "question_id": q,
            "rater": rater,
            "rater_kind": kind,
            "system_a": a,
            "system_b": b,
            "verdict": verdict,
            "status": "ok",
            "created_at": now,
        }

    for k in range(n_questions + 1):
        q = f"q{k}"
        db.table("questions").insert(
            {"id": q, "question": "?", "origin": "imported", "created_at": now, "updated_at": now}
        )
        if k == n_questions:
            rows.append(row(q, "auto:other", "auto", "sys/a", "sys/b", "A"))
            continue
        for i, x in enumerate(systems):
            for y in systems[i + 1 :]:
                a, b = (x, y) if rng.random() < 0.5 else (y, x)
                p = 1 / (1 + np.exp(STRENGTH[b] - STRENGTH[a]))
                u = rng.random()
                human = "Equal" if u < 0.1 else ("A" if rng.random() < p else "B")
                judge = human if rng.random() < 0.85 else str(rng.choice(["A", "B", "Equal"]))
                if FAVOURED in (a, b):
                    judge = "A" if a == FAVOURED else "B"
                rows.append(row(q, JUDGE, "auto", a, b, judge))
                if rng.random() < people_share:
                    rows.append(row(q, PEOPLE, "human", a, b, human))
    db.table("judgments").insert_all(rows)
