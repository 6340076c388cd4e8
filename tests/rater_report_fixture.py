"""A small store for the rater-validation report's tests: 40 side-by-side items, three people
who each label every item (timestamps 30 s apart, one 20-minute break), an auto-rater of the
``gpt4`` family judging every item in both orders, and planted markup in questions, answers,
a system name and the rater's rationale (to prove the report keeps it inert)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

from core.store.answers import Answer, insert_answers
from core.store.database import open_db
from core.store.judgments import JudgmentKind, NewJudgment, RaterKind, insert_judgments
from core.store.questions import Question, QuestionOrigin, insert_questions
from core.store.setups import StoredSystem, insert_system

PLANT = "<script>alert(1)</script><img src=http://evil.example/x.png>"
RATER = "auto:gpt-4 (test)"
PEOPLE = ("alice", "bob", "carol")
#: Anonymous slots of an imported crowd (not people), as the demo's PRD crowd.
CROWD = ("prd-crowd#1", "prd-crowd#2", "prd-crowd#3")
SYSTEMS = ("alpha", "beta<b>")  # alpha is the rater's own family (model openai:gpt-4)
N_ITEMS = 40


def _stamp(t: datetime) -> str:
    return t.isoformat(timespec="milliseconds")


def build_report_db(
    path: str | Path,
    *,
    n_items: int = N_ITEMS,
    extra_items: int = 0,
    seed: int = 0,
    people: tuple[str, ...] = PEOPLE,
    majority: bool = False,
) -> dict[str, Any]:
    """Build the store at ``path``; return the truth, the people's and the rater's labels
    (canonical scale: ``first`` = the alphabetically first system ``alpha`` wins).
    ``extra_items``: more items only the rater judged (candidates for the validation queue).
    ``people``: the human raters' names (``CROWD``: anonymous slots of an imported crowd, as in
    the demo's PRD data); ``majority``: also their majority as ``human:crowd-majority`` (a
    derived label, never an annotator)."""
    rng = np.random.default_rng(seed)
    db = open_db(path)
    start = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
    try:
        insert_system(
            db,
            StoredSystem(
                name="alpha", model="openai:gpt-4", context="none", created_at=_stamp(start)
            ),
        )
        insert_system(
            db,
            StoredSystem(
                name=SYSTEMS[1], model="local:llama-3", context="none", created_at=_stamp(start)
            ),
        )
        qids = [f"q{i:02d}" for i in range(n_items)]
        extra = [f"x{i:03d}" for i in range(extra_items)]
        insert_questions(
            db,
            [
                Question(
                    id=q,
                    question=f"Question {q}? {PLANT}",
                    origin=QuestionOrigin.IMPORTED,
                    qtype="who" if i % 2 else "why",
                    created_at=_stamp(start),
                    updated_at=_stamp(start),
                )
                for i, q in enumerate(qids + extra)
            ],
        )
        insert_answers(
            db,
            [
                Answer(
                    question_id=q,
                    system=s,
                    created_at=_stamp(start),
                    text=("a long answer " * (3 if s == "alpha" else 1)) + PLANT,
                )
                for q in qids + extra
                for s in SYSTEMS
            ],
        )
        truth = rng.choice(["first", "second"], size=n_items, p=[0.6, 0.4])
        flip = {"first": "second", "second": "first"}
        rows, labels = [], {p: {} for p in people}
        for k, person in enumerate(people):
            t = start + timedelta(hours=k)
            for i, q in enumerate(qids):
                label = truth[i] if rng.random() < 0.8 else flip[truth[i]]
                labels[person][q] = label
                t += timedelta(seconds=30 if i != 20 else 1200)
                rows.append(_pair_row(q, f"human:{person}", "human", label, t, i % 2 == 0))
        mine = {}
        for i, q in enumerate(qids):
            label = truth[i] if rng.random() < 0.85 else flip[truth[i]]
            if i < 4:
                label = "Equal"
            mine[q] = label
            t = start + timedelta(hours=5, seconds=i)
            for ab in (True, False):  # both orders, the same verdict (no position bias)
                rows.append(_pair_row(q, RATER, "auto", label, t, ab, f"because {PLANT}"))
        if majority:
            t = start + timedelta(hours=4)
            for q in qids:
                votes = [labels[p][q] for p in people]
                top = max(set(votes), key=votes.count)
                rows.append(_pair_row(q, "human:crowd-majority", "human", top, t, True))
        t = start + timedelta(hours=6)
        rows += [_pair_row(q, RATER, "auto", "first", t, True) for q in extra]
        insert_judgments(db, rows)
    finally:
        db.conn.close()
    return {"qids": qids, "truth": list(truth), "people": labels, "rater": mine}


def _pair_row(
    q: str, rater: str, kind: str, label: str, t: datetime, ab: bool, rationale: str = ""
) -> NewJudgment:
    """A pairwise judgment of the canonical ``label`` shown in order ``ab`` (alpha first)."""
    a, b = SYSTEMS if ab else SYSTEMS[::-1]
    if label in ("Equal", "None"):
        verdict = label
    else:
        winner = "alpha" if label == "first" else SYSTEMS[1]
        verdict = "A" if winner == a else "B"
    return NewJudgment(
        kind=JudgmentKind.PAIRWISE,
        question_id=q,
        rater=rater,
        rater_kind=RaterKind(kind),
        criterion="better",
        system_a=a,
        system_b=b,
        order_shown="ab" if ab else "ba",
        verdict=verdict,
        rationale=rationale,
        created_at=_stamp(t),
    )
