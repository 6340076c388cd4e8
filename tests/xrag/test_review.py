"""XRAG quality control: the checklist, the Sufficient filter, edits and label distribution."""

from __future__ import annotations

from dataclasses import replace

import pytest
from bound_sql import decoded_rows

from core.annotation.guideline import CHECKLIST_FIELDS
from core.annotation.identity import sign_in_open
from core.annotation.xrag_reviews import apply_review, label_distribution
from core.errors import InputError
from core.store.questions import QuestionOrigin, get_question

OK = {
    "intelligible": True,
    "answerable": True,
    "answer_correct": True,
    "support_a": "Some",
    "support_b": "Some",
}


@pytest.fixture
def items(composed_xrag):
    """A fresh database with the items and the ids of the XRAG ones (tests/xrag/conftest.py)."""
    db, roots, _ = composed_xrag
    return db, [qid for qid, origin in roots if origin == "xrag"]


def test_checklist_spec_has_guideline_fields():
    names = [f["name"] for f in CHECKLIST_FIELDS]
    assert names == [
        "intelligible",
        "answerable",
        "answer_correct",
        "correction",
        "support_a",
        "support_b",
    ]
    assert CHECKLIST_FIELDS[4]["choices"] == ["Sufficient", "Some", "None"]


def test_sufficient_discards_question_and_translations(items):
    db, ids = items
    out = apply_review(db, ids[0], sign_in_open(db, "ann"), {**OK, "support_b": "Sufficient"})
    assert out["status"] == "discarded" and "article B alone" in out["reason"]
    q = decoded_rows(db, "select status, metadata from questions where id = :v", v=ids[0])[0]
    assert q["status"] == "discarded" and "Sufficient" in q["metadata"]["status_reason"]
    kids = decoded_rows(db, "select status from questions where parent_id = :v", v=ids[0])
    assert len(kids) == 4 and {k["status"] for k in kids} == {"discarded"}
    review = decoded_rows(db, "select * from reviews where question_id = :v", v=ids[0])[0]
    assert review["decision"] == "reject" and review["checklist"]["support_b"] == "Sufficient"


def test_any_annotators_sufficient_keeps_it_discarded(items):
    db, ids = items
    apply_review(db, ids[1], sign_in_open(db, "ann"), {**OK, "support_a": "Sufficient"})
    assert apply_review(db, ids[1], sign_in_open(db, "bob"), OK)["status"] == "discarded"
    # ann changes her mind: a superseding row, the old one is kept (append-only)
    assert apply_review(db, ids[1], sign_in_open(db, "ann"), OK)["status"] == "accepted"
    revs = decoded_rows(
        db, "select annotator, supersedes from reviews where question_id = :v order by id", v=ids[1]
    )
    assert [r["annotator"] for r in revs] == ["ann", "bob", "ann"]
    assert revs[2]["supersedes"] is not None


def test_correction_and_rejection(items):
    db, ids = items
    out = apply_review(
        db, ids[2], sign_in_open(db, "ann"), {**OK, "answer_correct": False, "correction": "42"}
    )
    assert out["status"] == "edited"
    q = decoded_rows(db, "select answers, metadata from questions where id = :v", v=ids[2])[0]
    assert q["answers"] == ["42"] and q["metadata"]["original_answers"]
    with pytest.raises(InputError, match="corrected answer"):
        apply_review(db, ids[3], sign_in_open(db, "ann"), {**OK, "answer_correct": False})
    assert (
        apply_review(db, ids[3], sign_in_open(db, "ann"), {**OK, "intelligible": False})["status"]
        == "rejected"
    )


def test_translation_review_edits(items):
    db, ids = items
    tid = f"{ids[0]}.de"
    out = apply_review(
        db, tid, sign_in_open(db, "ann"), {"translation_ok": False, "edited_question": "Neu?"}
    )
    assert out["status"] == "edited"
    assert (
        decoded_rows(db, "select question from questions where id = :v", v=tid)[0]["question"]
        == "Neu?"
    )


@pytest.mark.parametrize(
    "bad,msg",
    [
        ({**OK, "support_a": "Maybe"}, "must be one of"),
        ({**OK, "intelligible": "yes"}, "true or false"),
        ({**OK, "colour": "red"}, "unknown checklist fields"),
        ({k: v for k, v in OK.items() if k != "support_b"}, "required"),
    ],
)
def test_bad_checklists_are_refused_without_writing(items, bad, msg):
    db, ids = items
    with pytest.raises(InputError, match=msg):
        apply_review(db, ids[0], sign_in_open(db, "ann"), bad)
    assert db["reviews"].count == 0


def test_label_distribution(items):
    db, ids = items
    apply_review(db, ids[0], sign_in_open(db, "ann"), {**OK, "support_a": "Sufficient"})
    apply_review(db, ids[1], sign_in_open(db, "ann"), OK)
    apply_review(
        db, ids[2], sign_in_open(db, "ann"), {**OK, "support_b": "None", "answerable": False}
    )
    dist = label_distribution(db)
    assert dist["n_reviews"] == 3 and dist["discarded_sufficient"] == 1
    assert dist["fields"]["support_a"] == {"Sufficient": 1, "Some": 2}
    assert dist["fields"]["support_b"] == {"Some": 2, "None": 1}
    assert dist["fields"]["answerable"] == {"yes": 2, "no": 1}
    assert dist["fields"]["either_sufficient"] == {"yes": 1, "no": 2}
    assert dist["status"]["discarded"] == 1 and dist["status"]["rejected"] == 1


def test_one_write_path_for_every_review(items):
    """core.annotation.reviews.record_review (the Review page's path) applies the same guideline."""
    from core.annotation.guideline import (
        SINGLE_DOCUMENT_FIELDS,
        TRANSLATION_FIELDS,
        checklist_fields,
    )
    from core.annotation.reviews import record_review

    db, ids = items
    q = get_question(db, ids[4])
    assert checklist_fields(q) is CHECKLIST_FIELDS
    assert checklist_fields(replace(q, parent_id=ids[4])) is TRANSLATION_FIELDS
    generated = replace(q, origin=QuestionOrigin.GENERATED)
    assert checklist_fields(generated) is SINGLE_DOCUMENT_FIELDS
    # an explicit "accept" is recorded as chosen but does not override the Sufficient filter
    out = record_review(
        db, ids[4], sign_in_open(db, "ann"), {"support_a": "Sufficient"}, decision="accept"
    )
    assert (out.status, out.decision) == ("discarded", "accept") and "Sufficient" in out.reason
    # the translations get the translation fields; the English ones are refused there
    with pytest.raises(InputError, match="unknown checklist fields"):
        record_review(db, f"{ids[5]}.de", sign_in_open(db, "ann"), OK)
    out = record_review(db, f"{ids[5]}.de", sign_in_open(db, "ann"), {"translation_ok": True})
    assert out.status == "accepted"
    stored = decoded_rows(db, "select checklist from reviews where id = :v", v=out.review_id)[0]
    assert stored["checklist"] == {"translation_ok": True}


@pytest.mark.parametrize("decision", ["accept", "reject", "edit"])
def test_sufficient_discards_whatever_the_decision(items, decision):
    db, ids = items
    out = apply_review(
        db,
        ids[0],
        sign_in_open(db, "ann"),
        {**OK, "support_a": "Sufficient", "correction": "x"}
        if decision == "edit"
        else {**OK, "support_a": "Sufficient"},
        decision=decision,
    )
    assert out["status"] == "discarded" and "article A alone" in out["reason"]
    review = decoded_rows(db, "select decision from reviews where question_id = :v", v=ids[0])[0]
    assert review["decision"] == decision
    assert {
        r["status"]
        for r in decoded_rows(db, "select status from questions where parent_id = :v", v=ids[0])
    } == {"discarded"}


@pytest.mark.parametrize(
    "checklist,decision,kw,msg",
    [
        ({**OK, "intelligible": False}, "accept", {}, "not intelligible"),
        ({**OK, "answerable": False}, "accept", {}, "not answerable"),
        (
            {**OK, "answer_correct": False, "correction": "42"},
            "accept",
            {},
            "answer is not correct",
        ),
        ({**OK, "correction": "42"}, "accept", {}, "Choose Save edit to keep it"),
        (OK, "accept", {"edited_question": "Better?"}, "Choose Save edit to keep it"),
        (OK, "edit", {}, "needs an edited question or a corrected answer"),
        (
            {**OK, "answer_correct": False},
            "edit",
            {"edited_question": "Better?"},
            "give the corrected answer",
        ),
    ],
)
def test_refused_decisions_write_nothing(items, checklist, decision, kw, msg):
    from core.annotation.reviews import record_review

    db, ids = items
    with pytest.raises(InputError, match=msg):
        record_review(db, ids[0], sign_in_open(db, "ann"), checklist, decision=decision, **kw)
    assert db["reviews"].count == 0
    assert decoded_rows(db, "select status from questions where id = :v", v=ids[0])[0][
        "status"
    ] not in (
        "accepted",
        "rejected",
        "edited",
        "discarded",
    )


def test_explicit_decisions_on_an_xrag_question(items):
    from core.annotation.reviews import record_review
    from core.store.reviews import effective_reviews

    db, ids = items
    before = decoded_rows(db, "select question, answers from questions where id = :v", v=ids[1])[0]
    # Reject needs nothing more, even with a positive checklist; a typed edit is not applied
    out = record_review(
        db, ids[1], sign_in_open(db, "ann"), OK, decision="reject", edited_question="Other?"
    )
    assert (out.decision, out.status) == ("reject", "rejected")
    stored = decoded_rows(db, "select * from reviews where id = :v", v=out.review_id)[0]
    assert stored["edited_question"] is None and stored["note"] == ""
    assert (
        decoded_rows(db, "select question from questions where id = :v", v=ids[1])[0]["question"]
        == before["question"]
    )
    # Save edit with a corrected answer: the reference changes, the original is kept
    out = record_review(
        db,
        ids[1],
        sign_in_open(db, "ann"),
        {**OK, "answer_correct": False, "correction": "42"},
        decision="edit",
    )
    assert (out.decision, out.status) == ("edit", "edited")
    q = decoded_rows(db, "select answers, metadata from questions where id = :v", v=ids[1])[0]
    assert q["answers"] == ["42"] and q["metadata"]["original_answers"] == before["answers"]
    # majority of current decisions: bob and carol accept, ann's edit is outvoted
    record_review(db, ids[1], sign_in_open(db, "bob"), OK, decision="accept")
    assert (
        record_review(db, ids[1], sign_in_open(db, "carol"), OK, decision="accept").status
        == "accepted"
    )
    assert len(effective_reviews(db, ids[1])) == 3


def test_explicit_decisions_on_a_translation(items):
    from core.annotation.reviews import record_review

    db, ids = items
    tid = f"{ids[2]}.de"
    with pytest.raises(InputError, match="does not keep the meaning"):
        record_review(
            db, tid, sign_in_open(db, "ann"), {"translation_ok": False}, decision="accept"
        )
    with pytest.raises(InputError, match="corrected translation"):
        record_review(db, tid, sign_in_open(db, "ann"), {"translation_ok": False}, decision="edit")
    assert db["reviews"].count == 0
    out = record_review(
        db,
        tid,
        sign_in_open(db, "ann"),
        {"translation_ok": False, "edited_answer": "Zwei"},
        decision="edit",
    )
    assert out.status == "edited"
    q = decoded_rows(db, "select answers, metadata from questions where id = :v", v=tid)[0]
    assert q["answers"] == ["Zwei"] and q["metadata"]["original_answers"]
    assert (
        record_review(
            db, tid, sign_in_open(db, "ann"), {"translation_ok": False}, decision="reject"
        ).status
        == "rejected"
    )


def test_undo_of_a_review_restores_status_texts_and_translations(items):
    """An undo recomputes from the remaining reviews: the discard is lifted from the question
    and its translations, and a correction of the answer gives way to the original."""
    from core.annotation.reviews import withdraw_last_review

    db, ids = items
    ann, bob = sign_in_open(db, "ann"), sign_in_open(db, "bob")
    kids_before = decoded_rows(
        db, "select id, status from questions where parent_id = :v", v=ids[0]
    )
    apply_review(db, ids[0], bob, OK)
    apply_review(db, ids[0], ann, {**OK, "support_b": "Sufficient"})
    assert withdraw_last_review(db, ann).status == "accepted"  # bob's review is left
    assert decoded_rows(db, "select id, status from questions where parent_id = :v", v=ids[0]) == (
        kids_before
    )
    original = decoded_rows(db, "select answers from questions where id = :v", v=ids[2])[0][
        "answers"
    ]
    apply_review(
        db, ids[2], ann, {**OK, "answer_correct": False, "correction": "42"}, decision=None
    )
    assert decoded_rows(db, "select answers from questions where id = :v", v=ids[2])[0][
        "answers"
    ] == ["42"]
    assert withdraw_last_review(db, ann).status == "pending"
    q = decoded_rows(db, "select status, answers from questions where id = :v", v=ids[2])[0]
    assert (q["status"], q["answers"]) == ("pending", original)
