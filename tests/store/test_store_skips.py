"""Skips and withdrawals in ``reviews`` and ``dispute_resolutions``: stored as rows, read by
their own readers only; every reader of labels leaves them (and what a withdrawal took back) out."""

from __future__ import annotations

from contract_registry import contract_case
from test_store_labels import _dispute, _resolution, _review

from core.store.resolutions import (
    SKIPPED,
    WITHDRAWN,
    effective_resolutions,
    last_resolution,
    own_resolution,
    resolution_marks,
    resolved_dispute_count,
    skipped_resolutions,
)
from core.store.reviews import SKIPPED as REVIEW_SKIPPED
from core.store.reviews import WITHDRAWN as REVIEW_WITHDRAWN
from core.store.reviews import (
    effective_reviews,
    ever_reviewed,
    last_review,
    own_review,
    question_reviews,
    review_count,
    review_marks,
    skipped_reviews,
)


@contract_case(
    effective_reviews,
    ever_reviewed,
    last_review,
    own_review,
    question_reviews,
    review_count,
    review_marks,
    skipped_reviews,
)
def test_review_skips_and_withdrawals_are_no_reviews(seeded):
    db = seeded
    a = _review(db, "q1", "alice")
    undo = _review(db, "q1", "alice", REVIEW_WITHDRAWN, supersedes=a)
    skip = _review(db, "q2", "alice", REVIEW_SKIPPED)
    b = _review(db, "q1", "bob", "reject")
    assert [r.id for r in effective_reviews(db)] == [b]
    assert effective_reviews(db, "q2") == []
    assert review_marks(db) == {"ok": {"q1": {"bob"}}, "skipped": {"q2": {"alice"}}}
    assert [r.id for r in question_reviews(db, "q1")] == [b]  # the withdrawn review too
    assert [r.id for r in skipped_reviews(db)] == [skip]
    assert own_review(db, "q1", "alice").id == undo  # what the next row supersedes
    assert own_review(db, "q2", "alice").id == skip
    assert last_review(db, "alice").id == skip  # an undo takes the skip back next
    assert last_review(db, "carol") is None
    assert ever_reviewed(db, "q1") and not ever_reviewed(db, "q2")
    assert review_count(db, "q1") == 3  # every row
    _review(db, "q2", "alice", REVIEW_WITHDRAWN, supersedes=skip)
    assert skipped_reviews(db) == [] and last_review(db, "alice") is None


@contract_case(
    effective_resolutions,
    last_resolution,
    own_resolution,
    resolution_marks,
    resolved_dispute_count,
    skipped_resolutions,
)
def test_resolution_skips_are_no_resolutions(seeded):
    db = seeded
    d1, d2 = _dispute(db, "s1", 1), _dispute(db, "s2", 2)
    skip = _resolution(db, d1, "alice", SKIPPED)
    b = _resolution(db, d2, "bob", "ambiguous")
    b_undo = _resolution(db, d2, "bob", WITHDRAWN, supersedes=b)
    c = _resolution(db, d1, "carol", "model_wrong")
    assert [r.id for r in effective_resolutions(db)] == [c]
    assert resolution_marks(db) == {"ok": {d1: {"carol"}}, "skipped": {d1: {"alice"}}}
    assert resolved_dispute_count(db, [d1, d2]) == 1
    found = skipped_resolutions(db)
    assert [(r.id, qid) for r, qid in found] == [(skip, "q1")]
    assert last_resolution(db, "alice").id == skip  # an undo takes a skip back
    assert last_resolution(db, "bob") is None
    assert own_resolution(db, d2, "bob").id == b_undo
