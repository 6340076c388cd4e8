"""The disputes table layer: idempotent insert, decoded records."""

from __future__ import annotations

from dataclasses import replace

import pytest
from contract_registry import contract_case

from core.errors import StoreError
from core.store.disputes import (
    NewDispute,
    add_dispute,
    dispute_records,
    get_dispute,
    question_disputes,
)
from core.store.judgments import JudgmentKind, NewJudgment, RaterKind


def _judgment(db, rater, verdict, evidence):
    """An absolute judgment whose ``evidence`` is stored as the given text (even broken JSON)."""
    new = NewJudgment(
        kind=JudgmentKind.ABSOLUTE,
        question_id="q1",
        rater=rater,
        rater_kind=RaterKind.AUTO,
        system="s1",
        answer_id=1,
        verdict=verdict,
        context_kind="story",
    )
    return int(db["judgments"].insert({**new.row(), "evidence": evidence}).last_pk)


@contract_case(add_dispute, dispute_records, get_dispute, question_disputes)
def test_disputes_are_added_once_and_come_back_decoded(seeded):
    db = seeded
    g = _judgment(db, "auto:gt", "no", '[{"quote": "ref", "verified": true}]')
    c = _judgment(db, "auto:ctx", "yes", "[]")
    row = NewDispute(
        question_id="q1",
        answer_id=1,
        system="s1",
        gt_judgment_id=g,
        ctx_judgment_id=c,
        gt_verdict="no",
        ctx_verdict="yes",
    )
    assert add_dispute(db, row) is True
    assert add_dispute(db, row) is False  # same two judgments: not added again
    [rec] = dispute_records(db)
    assert rec.references == ["ref"] and rec.answer == "answer s1"
    assert rec.gt_evidence == [{"quote": "ref", "verified": True}] and rec.ctx_evidence == []
    assert (rec.gt_rater, rec.ctx_rater, rec.ctx_context) == (
        "auto:gt",
        "auto:ctx",
        "story",
    )
    assert get_dispute(db, rec.id).gt_judgment_id == g
    assert get_dispute(db, 99) is None
    assert [d.id for d in question_disputes(db, "q1")] == [rec.id]
    bad = _judgment(db, "auto:bad", "yes", "[oops")
    add_dispute(db, replace(row, ctx_judgment_id=bad))
    with pytest.raises(StoreError, match="column 'ctx_evidence'"):
        dispute_records(db)
