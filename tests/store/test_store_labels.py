"""The label tables' layer (reviews, dispute resolutions, adjudications) and the label queries
on judgments, answers, disputes and questions: effective rows, decoding, append-only."""

from __future__ import annotations

from dataclasses import asdict

import pytest
from bound_sql import run_sql
from contract_registry import contract_case

from core.errors import StoreError
from core.store.adjudications import (
    NewAdjudication,
    effective_adjudications,
    insert_adjudication,
    own_adjudication,
)
from core.store.answers import answer_pairs, get_answer, question_answer_count, question_answers
from core.store.connection import utcnow
from core.store.disputes import (
    NewDispute,
    add_dispute,
    all_dispute_ids,
    dispute_question_ids,
    get_dispute,
    question_dispute_answers,
)
from core.store.judgments import (
    JudgmentKind,
    JudgmentStatus,
    NewJudgment,
    RaterKind,
    human_raters,
    insert_judgment,
    last_pairwise_label,
    own_pairwise_label,
    pairwise_rater_kinds,
    question_judgment_count,
)
from core.store.questions import (
    Question,
    QuestionOrigin,
    QuestionStatus,
    all_question_ids,
    child_questions,
    get_question,
    insert_question,
    question_texts,
    root_questions,
    update_question,
)
from core.store.resolutions import (
    WITHDRAWN,
    DisputeResolution,
    NewResolution,
    effective_resolutions,
    insert_resolution,
    last_resolution,
    own_resolution,
    question_resolution_count,
    resolution_marks,
)
from core.store.reviews import (
    NewReview,
    ReviewDecision,
    effective_reviews,
    insert_review,
    question_reviews,
    review_count,
    review_marks,
)


def _review(db, question_id, annotator, decision="accept", supersedes=None, checklist=None):
    new = NewReview(
        question_id=question_id,
        annotator=annotator,
        decision=ReviewDecision(decision),
        checklist=checklist if isinstance(checklist, dict) else {},
        supersedes=supersedes,
    )
    if isinstance(checklist, str):  # stored text as it is (e.g. broken JSON)
        row = {**asdict(new), "decision": decision, "checklist": checklist}
        return int(db["reviews"].insert(row).last_pk)
    return insert_review(db, new)


def _dispute(db, system="s1", answer_id=1):
    """A dispute on ``system``'s answer to q1 (two fresh absolute judgments); returns its id."""
    ids = [
        insert_judgment(
            db,
            NewJudgment(
                kind=JudgmentKind.ABSOLUTE,
                question_id="q1",
                rater=rater,
                rater_kind=RaterKind.AUTO,
                system=system,
                answer_id=answer_id,
                verdict=verdict,
            ),
        )
        for rater, verdict in (("auto:gt", "no"), ("auto:ctx", "yes"))
    ]
    add_dispute(
        db,
        NewDispute(
            question_id="q1",
            answer_id=answer_id,
            system=system,
            gt_judgment_id=ids[0],
            ctx_judgment_id=ids[1],
            gt_verdict="no",
            ctx_verdict="yes",
        ),
    )
    return all_dispute_ids(db)[-1]


def _resolution(db, dispute_id, annotator, resolution="model_wrong", supersedes=None, fix=None):
    return insert_resolution(
        db,
        NewResolution(
            dispute_id=dispute_id,
            annotator=annotator,
            resolution=DisputeResolution(resolution),
            corrected_answer=fix,
            supersedes=supersedes,
        ),
    )


def _pair(db, rater, a="s1", b="s2", status="ok", verdict="A", supersedes=None, question="q1"):
    return insert_judgment(
        db,
        NewJudgment(
            kind=JudgmentKind.PAIRWISE,
            question_id=question,
            rater=rater,
            rater_kind=RaterKind.HUMAN if rater.startswith("human:") else RaterKind.AUTO,
            criterion="better",
            system_a=a,
            system_b=b,
            verdict=verdict if status == "ok" else None,
            status=JudgmentStatus(status),
            supersedes=supersedes,
            context_kind="human",  # given in the app, as a page stores it (undo takes only those)
        ),
    )


@contract_case(effective_reviews, insert_review, question_reviews, review_count, review_marks)
def test_reviews_effective_decoded_and_append_only(seeded, refused):
    db = seeded
    first = _review(db, "q1", "alice", checklist={"answerable": True})
    second = _review(db, "q1", "alice", "reject", supersedes=first)
    bob = _review(db, "q1", "bob", checklist='{"answerable": false, "notes": "x"}')
    other = _review(db, "q2", "carol")
    assert [r.id for r in effective_reviews(db, "q1")] == [second, bob]
    assert [r.id for r in effective_reviews(db)] == [second, bob, other]
    assert [r.id for r in effective_reviews(db, origin="generated")] == [second, bob]
    assert [r.id for r in effective_reviews(db, origin="imported")] == [other]
    assert effective_reviews(db, "q2", origin="generated") == []
    assert effective_reviews(db, "q1")[1].checklist == {"answerable": False, "notes": "x"}
    history = question_reviews(db, "q1")
    assert [r.id for r in history] == [first, second, bob]
    assert history[0].checklist == {"answerable": True}
    assert review_marks(db)["ok"] == {"q1": {"alice", "bob"}, "q2": {"carol"}}
    assert (review_count(db, "q1"), review_count(db, "q2"), review_count(db, "q9")) == (3, 1, 0)
    with pytest.raises(refused, match="append-only"):
        run_sql(db, "update reviews set decision = 'edit' where id = :id", id=first)
    with pytest.raises(refused, match="append-only"):
        run_sql(db, "delete from reviews where id = :id", id=first)
    _review(db, "q2", "dave", checklist="{broken")
    with pytest.raises(StoreError, match="column 'checklist'"):
        effective_reviews(db, "q2")


@contract_case(
    add_dispute,
    all_dispute_ids,
    effective_resolutions,
    insert_judgment,
    insert_resolution,
    last_resolution,
    own_resolution,
    question_resolution_count,
    resolution_marks,
)
def test_resolutions_effective_withdrawn_left_out_and_append_only(seeded, refused):
    db = seeded
    d1, d2 = _dispute(db, "s1", 1), _dispute(db, "s2", 2)
    a1 = _resolution(db, d1, "alice")
    a2 = _resolution(db, d1, "alice", "reference_wrong", supersedes=a1, fix="better ref")
    b1 = _resolution(db, d2, "bob", "ambiguous")
    undo = _resolution(db, d2, "bob", WITHDRAWN, supersedes=b1)
    c1 = _resolution(db, d2, "carol", "both_acceptable")
    assert own_resolution(db, d1, "alice").id == a2
    assert own_resolution(db, d2, "bob").id == undo  # a withdrawal is what the next supersedes
    assert own_resolution(db, d1, "bob") is None
    assert last_resolution(db, "alice").id == a2
    assert last_resolution(db, "bob") is None  # withdrawn: nothing left to undo
    assert resolution_marks(db)["ok"] == {d1: {"alice"}, d2: {"carol"}}
    found = effective_resolutions(db)
    assert [r.id for r in found] == [a2, c1]
    assert found[0].corrected_answer == "better ref"
    assert (found[0].question_id, found[0].system, found[0].question) == (
        "q1",
        "s1",
        "question q1?",
    )
    assert found[0].answers == ["ref"]  # the references come back decoded
    assert found[1].system == "s2"
    assert [r.id for r in effective_resolutions(db, dispute_id=d2)] == [c1]
    assert [r.id for r in effective_resolutions(db, question_id="q1")] == [a2, c1]
    assert effective_resolutions(db, question_id="q2") == []
    assert question_resolution_count(db, "q1") == 5  # every row, superseded and undo too
    assert question_resolution_count(db, "q2") == 0
    with pytest.raises(refused, match="append-only"):
        run_sql(db, "update dispute_resolutions set resolution = 'ambiguous' where id = :id", id=a1)


@contract_case(effective_adjudications, insert_adjudication, own_adjudication)
def test_adjudications_effective_and_own(seeded, refused):
    db = seeded

    def settle(item, label, who, supersedes=None, task="review"):
        return insert_adjudication(
            db,
            NewAdjudication(
                task=task,
                item_key=item,
                label=label,
                adjudicator=who,
                supersedes=supersedes,
            ),
        )

    first = settle("q1", "accept", "ann")
    second = settle("q1", "reject", "ann", supersedes=first)
    other = settle("q2", "edit", "ben")
    pair = settle("q1|s1|s2", "first", "ann", task="side-by-side")
    assert [r.id for r in effective_adjudications(db, "review")] == [second, other]
    assert [r.id for r in effective_adjudications(db, "side-by-side")] == [pair]
    assert effective_adjudications(db, "disputes") == []
    assert own_adjudication(db, "review", "q1", "ann").label == "reject"
    assert own_adjudication(db, "review", "q1", "ben") is None
    assert own_adjudication(db, "side-by-side", "q1", "ann") is None
    with pytest.raises(refused, match="append-only"):
        run_sql(db, "delete from adjudications where id = :id", id=first)


@contract_case(
    human_raters,
    insert_judgment,
    last_pairwise_label,
    own_pairwise_label,
    pairwise_rater_kinds,
    question_judgment_count,
)
def test_pairwise_labels_of_a_person(seeded):
    db = seeded
    first = _pair(db, "human:alice", "s1", "s2", verdict="A")
    again = _pair(db, "human:alice", "s2", "s1", verdict="B", supersedes=first)  # other order
    skip = _pair(db, "human:alice", "s1", "s2", status="skipped", question="q2")
    _pair(db, "human:bob", "s1", "s2", status="skipped")
    _pair(db, "auto:x", "s1", "s2", verdict="Equal")
    assert own_pairwise_label(db, "human:alice", "q1", "s1", "s2").id == again
    assert own_pairwise_label(db, "human:alice", "q1", "s2", "s1").id == again
    assert own_pairwise_label(db, "human:carol", "q1", "s1", "s2") is None
    assert last_pairwise_label(db, "human:alice").id == skip
    withdrawn = _pair(db, "human:alice", status="withdrawn", supersedes=skip, question="q2")
    assert last_pairwise_label(db, "human:alice").id == again
    assert own_pairwise_label(db, "human:alice", "q2", "s1", "s2").id == withdrawn
    assert last_pairwise_label(db, "human:nobody") is None
    assert pairwise_rater_kinds(db) == [("auto:x", "auto"), ("human:alice", "human")]
    assert human_raters(db) == ["human:alice", "human:bob"]
    assert question_judgment_count(db, "q1") == 4
    assert question_judgment_count(db, "q1", human_only=True) == 3
    assert question_judgment_count(db, "q2", human_only=True) == 2


@contract_case(answer_pairs, question_answer_count, question_answers, utcnow)
def test_answer_pairs_and_texts(seeded):
    db = seeded
    db["systems"].insert({"name": "s0", "model": "m:1", "context": "none", "created_at": utcnow()})
    db["answers"].insert(
        {"question_id": "q1", "system": "s0", "text": "failed", "status": "error", "created_at": ""}
    )
    assert answer_pairs(db) == [
        {
            "question_id": "q1",
            "system_1": "s1",
            "text_1": "answer s1",
            "system_2": "s2",
            "text_2": "answer s2",
        }
    ]  # the failed answer of s0 makes no pair
    got = {a.system: a for a in question_answers(db, "q1")}
    assert "s9" not in got and got["s2"].text == "answer s2" and got["s2"].id == 2
    assert (question_answer_count(db, "q1"), question_answer_count(db, "q2")) == (3, 0)


@contract_case(
    add_dispute,
    all_dispute_ids,
    dispute_question_ids,
    get_answer,
    get_dispute,
    insert_judgment,
    question_dispute_answers,
)
def test_dispute_lookups(seeded):
    db = seeded
    d1, d2 = _dispute(db, "s1", 1), _dispute(db, "s2", 2)
    assert all_dispute_ids(db) == [d1, d2]
    assert dispute_question_ids(db, [d2, 99]) == {d2: "q1"}
    assert dispute_question_ids(db, []) == {}
    assert get_answer(db, get_dispute(db, d2).answer_id).text == "answer s2"
    assert get_dispute(db, 99) is None
    assert question_dispute_answers(db, "q1") == [("s1", "answer s1"), ("s2", "answer s2")]


@contract_case(
    all_question_ids,
    child_questions,
    get_question,
    insert_question,
    question_texts,
    root_questions,
    update_question,
    utcnow,
)
def test_question_lookups_and_update(seeded):
    db = seeded
    now = utcnow()
    for qid in ("q1-de", "q1-fr"):
        insert_question(
            db,
            Question(
                id=qid,
                document_id="d1",
                question=f"{qid}?",
                origin=QuestionOrigin.GENERATED,
                parent_id="q1",
                metadata={"language": "x"},
                created_at=now,
                updated_at=now,
            ),
        )
    assert all_question_ids(db) == ["q1", "q1-de", "q1-fr", "q2"]
    assert question_texts(db, ["q2", "q1", "nope"]) == {"q1": "question q1?", "q2": "question q2?"}
    many = [f"x{i}" for i in range(1200)] + ["q2"]  # more ids than one query takes
    assert question_texts(db, many) == {"q2": "question q2?"}
    kids = child_questions(db, "q1")
    assert [(k.id, k.metadata) for k in kids] == [
        ("q1-de", {"language": "x"}),
        ("q1-fr", {"language": "x"}),
    ]
    assert [q.id for q in root_questions(db, QuestionOrigin.GENERATED)] == ["q1"]
    imported = root_questions(db, QuestionOrigin.IMPORTED)
    assert [(q.id, q.status) for q in imported] == [("q2", "accepted")]
    update_question(db, "q1", status=QuestionStatus.DISCARDED, metadata={"status_reason": "why"})
    q = get_question(db, "q1")
    assert (q.status, q.metadata) == (QuestionStatus.DISCARDED, {"status_reason": "why"})
