"""A pairwise verdict on the store tests' seeded rows: question ``q1``, systems ``s1``/``s2`` and
their answers (ids 1 and 2), as tests/store/conftest.py's ``seeded`` and test_postgres's ``seed``
make them."""

from __future__ import annotations

from core.store.judgments import JudgmentKind, NewJudgment, RaterKind


def judgment(rater: str, verdict: str, supersedes: int | None = None) -> NewJudgment:
    """``rater``'s ``verdict`` on ``s1`` against ``s2`` for ``q1``, shown in that order."""
    return NewJudgment(
        kind=JudgmentKind.PAIRWISE,
        question_id="q1",
        rater=rater,
        rater_kind=RaterKind.HUMAN,
        criterion="better",
        system_a="s1",
        system_b="s2",
        answer_a_id=1,
        answer_b_id=2,
        order_shown="ab",
        verdict=verdict,
        supersedes=supersedes,
    )
