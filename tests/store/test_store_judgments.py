"""The judgments table layer: effective rows, decoding, retry bookkeeping, fingerprints."""

from __future__ import annotations

import pytest
from bound_sql import run_sql
from contract_registry import contract_case

from core.errors import StoreError
from core.store.connection import transaction, utcnow
from core.store.judge_runs import (
    judged_answer_ids,
    judged_pairs,
    last_error_id,
    latest_verdicts,
    stored_call_counts,
)
from core.store.judgment_counts import count_judgments, judge_models
from core.store.judgments import (
    Judgment,
    JudgmentKind,
    JudgmentStatus,
    NewJudgment,
    RaterKind,
    effective_judgments,
    effective_values,
    get_judgment,
    insert_judgment,
    max_judgment_id,
    pairwise_raters,
    question_judgments,
)
from core.store.verdict_reads import (
    PAIRWISE_SINCE_COLUMNS,
    pairwise_records_since,
    verdict_summary,
)


def _insert(db, new, evidence=None):
    """Append ``new``; ``evidence`` as stored text (e.g. invalid JSON) goes in as it is."""
    if isinstance(evidence, str):
        return int(db.table("judgments").insert({**new.row(), "evidence": evidence}).last_pk)
    return insert_judgment(db, new)


def _abs(db, rater="auto:j", verdict="yes", status="ok", answer_id=1, system="s1", **extra):
    evidence = extra.pop("evidence", None)
    extra.setdefault("criterion", "supported")
    new = NewJudgment(
        kind=JudgmentKind.ABSOLUTE,
        question_id="q1",
        rater=rater,
        rater_kind=RaterKind.HUMAN if rater.startswith("human:") else RaterKind.AUTO,
        system=system,
        answer_id=answer_id,
        verdict=verdict,
        status=JudgmentStatus(status),
        created_at=utcnow(),
        **extra,
    )
    return _insert(db, new, evidence)


def _pair(db, rater="auto:p", verdict="A", a="s1", b="s2", status="ok", **extra):
    new = NewJudgment(
        kind=JudgmentKind.PAIRWISE,
        question_id="q1",
        rater=rater,
        rater_kind=RaterKind.HUMAN if rater.startswith("human:") else RaterKind.AUTO,
        criterion="better",
        system_a=a,
        system_b=b,
        answer_a_id=1 if a == "s1" else 2,
        answer_b_id=2 if b == "s2" else 1,
        verdict=verdict,
        status=JudgmentStatus(status),
        created_at=utcnow(),
        **extra,
    )
    return insert_judgment(db, new)


def _naive_effective(db):
    """Independent reading: every id minus every id some row supersedes."""
    ids = [r[0] for r in db.execute("select id from judgments order by id")]
    gone = {r[0] for r in db.execute("select supersedes from judgments") if r[0] is not None}
    return [i for i in ids if i not in gone]


@contract_case(effective_judgments, insert_judgment, question_judgments, utcnow)
def test_effective_rows_leave_out_superseded_ones(seeded):
    db = seeded
    first = _abs(db, verdict="no")
    second = _abs(db, verdict="yes", supersedes=first)
    other = _abs(db, rater="auto:k", answer_id=2, system="s2")
    third = _pair(db)
    got = [r.id for r in effective_judgments(db)]
    assert got == [second, other, third] == _naive_effective(db)
    assert [r.verdict for r in effective_judgments(db, rater="auto:j")] == ["yes"]
    # a chain: superseding the superseding row leaves only the last one
    fourth = _abs(db, verdict="no", supersedes=second)
    assert [r.id for r in effective_judgments(db, rater="auto:j")] == [fourth]
    flagged = {r.id: gone for r, gone in question_judgments(db, "q1")}
    assert flagged == {first: True, second: True, other: False, third: False, fourth: False}


@contract_case(effective_judgments, effective_values, insert_judgment, utcnow)
def test_effective_filters(seeded):
    db = seeded
    _abs(db)
    _abs(db, rater="human:ann", verdict=None, status="unparsed")
    pid = _pair(db)
    _pair(db, rater="auto:q", verdict="B", a="s2", b="s1")
    assert [r.id for r in effective_judgments(db, kind="pairwise", rater="auto:p")] == [pid]
    assert len(effective_judgments(db, kind="pairwise", raters=["auto:p", "auto:q"])) == 2
    assert len(effective_judgments(db, raters=[])) == 0
    assert [r.rater for r in effective_judgments(db, rater_kind="human")] == ["human:ann"]
    assert len(effective_judgments(db, with_verdict=True)) == 3
    assert len(effective_judgments(db, status="ok", criterion="supported")) == 1
    assert len(effective_judgments(db, document_id="d1")) == 4
    assert effective_judgments(db, document_id="nope") == []
    assert effective_judgments(db, question_id="q2") == []
    only = effective_values(db, ["rater", "verdict"], kind="pairwise")
    assert only == [("auto:p", "A"), ("auto:q", "B")]
    with pytest.raises(ValueError, match="not a judgments column"):
        effective_values(db, ["verdict; drop table judgments"])


@contract_case(effective_judgments, get_judgment, insert_judgment, utcnow)
def test_rows_come_back_decoded_and_bad_json_raises(seeded):
    db = seeded
    jid = _abs(db, evidence='[{"quote": "x", "verified": true}]')
    assert get_judgment(db, jid).evidence == [{"quote": "x", "verified": True}]
    assert get_judgment(db, 999) is None
    bad = _abs(db, rater="auto:bad", evidence='[{"quote": ')
    with pytest.raises(StoreError, match=rf"column 'evidence' of row {bad} holds invalid JSON"):
        effective_judgments(db, rater="auto:bad")
    with pytest.raises(StoreError):
        get_judgment(db, bad)


@contract_case(
    insert_judgment, judged_answer_ids, judged_pairs, last_error_id, stored_call_counts, utcnow
)
def test_retry_bookkeeping(seeded):
    db = seeded
    failed = _abs(db, verdict=None, status="error")
    assert judged_answer_ids(db, "auto:j") == set()
    assert last_error_id(db, "auto:j", answer_id=1) == failed
    assert last_error_id(db, "auto:j", answer_id=2) is None
    _abs(db, supersedes=failed)
    assert judged_answer_ids(db, "auto:j") == {1}
    perr = _pair(db, verdict=None, status="error")
    assert judged_pairs(db, "auto:p") == set()
    assert last_error_id(db, "auto:p", pair=("q1", "s1", "s2")) == perr
    _pair(db, supersedes=perr)
    assert judged_pairs(db, "auto:p") == {("q1", "s1", "s2")}
    assert stored_call_counts(db, "auto:j", "absolute", ["s1"]) == {"q1": 1}
    assert stored_call_counts(db, "auto:j", "absolute", ["s2"]) == {}
    assert stored_call_counts(db, "auto:p", "pairwise", ["s1", "s2"]) == {"q1": 1}
    assert stored_call_counts(db, "auto:p", "pairwise", ["s1"]) == {}


@contract_case(
    count_judgments,
    insert_judgment,
    judge_models,
    latest_verdicts,
    max_judgment_id,
    pairwise_raters,
    pairwise_records_since,
    utcnow,
)
def test_raters_verdicts_counts_and_fingerprint(seeded):
    db = seeded
    assert max_judgment_id(db) == 0 and count_judgments(db) == 0
    _pair(db, rater="human:bo")
    _pair(db, rater="auto:openai:gpt-x")
    _pair(db, rater="auto:z", verdict=None, status="unparsed")
    assert pairwise_raters(db) == ["auto:openai:gpt-x", "human:bo"]
    assert pairwise_raters(db, "human") == ["human:bo"]
    assert judge_models(db) == {"openai:gpt-x"}
    assert count_judgments(db) == 3 and count_judgments(db, "unparsed") == 1
    top = max_judgment_id(db)
    _abs(db, rater="human:bo", verdict="no", criterion="key")
    _abs(db, rater="human:bo", verdict="yes", criterion="key")
    _abs(db, rater="human:al", verdict="no", criterion="key", system="s2", answer_id=2)
    assert max_judgment_id(db) == top + 3
    assert latest_verdicts(db, "key", rater="human:bo") == {("q1", "s1"): "yes"}
    assert latest_verdicts(db, "key", rater_prefix="human:") == {
        ("q1", "s1"): "yes",
        ("q1", "s2"): "no",
    }
    new = [dict(zip(PAIRWISE_SINCE_COLUMNS, r)) for r in pairwise_records_since(db, 1)]
    assert [r["id"] for r in new] == [2, 3] and "supersedes" in new[0]


@contract_case(insert_judgment, transaction, utcnow, verdict_summary)
def test_verdict_summary_per_rater_and_item_and_never_stale(seeded):
    """One row per rater and item as shown (count, first, latest); the kept summary follows every
    new row (a verdict, a correction superseding one), and is not kept inside a transaction."""
    db = seeded
    first = _pair(db, verdict="A")
    _pair(db, verdict="B")
    _pair(db, verdict="Equal", a="s2", b="s1")  # the other order: its own row
    _pair(db, rater="human:x", verdict="B")
    got = {(r[0], r[3], r[4]): r[5:] for r in verdict_summary(db, "pairwise")}
    assert got[("auto:p", "s1", "s2")] == (2, first, "A", first + 1, "B")
    assert got[("auto:p", "s2", "s1")] == (1, first + 2, "Equal", first + 2, "Equal")
    assert verdict_summary(db, "pairwise") == verdict_summary(db, "pairwise")
    # a correction supersedes the latest auto:p verdict in the shown order s1, s2
    fix = _pair(db, verdict="A", supersedes=first + 1)
    got = {(r[0], r[3], r[4]): r[5:] for r in verdict_summary(db, "pairwise")}
    assert got[("auto:p", "s1", "s2")] == (2, first, "A", fix, "A")
    assert [r[0] for r in verdict_summary(db, "pairwise", ["human:x"])] == ["human:x"]
    # read inside a write transaction that is rolled back: nothing of it is kept
    with pytest.raises(RuntimeError):
        with transaction(db):
            _pair(db, rater="auto:q", verdict="A")
            assert any(r[0] == "auto:q" for r in verdict_summary(db, "pairwise"))
            raise RuntimeError("roll back")
    _pair(db, rater="auto:r", verdict="B")  # may reuse the rolled-back id
    raters = {r[0] for r in verdict_summary(db, "pairwise")}
    assert "auto:r" in raters and "auto:q" not in raters


@contract_case(get_judgment, insert_judgment)
def test_a_record_round_trips_and_stores_its_enums_as_text(seeded):
    """What goes in as a NewJudgment comes back as the same fields (evidence decoded, enums equal
    to their stored text), read back independently with plain SQL too."""
    db = seeded
    new = NewJudgment(
        kind=JudgmentKind.PAIRWISE,
        question_id="q1",
        rater="human:ann",
        rater_kind=RaterKind.HUMAN,
        criterion="better",
        system_a="s2",
        system_b="s1",
        order_shown="ba",
        verdict="Equal",
        evidence=[{"quote": "q", "verified": False}],
        rationale="same",
        created_at="2026-01-01T00:00:00",
    )
    jid = insert_judgment(db, new)
    got = get_judgment(db, jid)
    assert isinstance(got, Judgment) and got.id == jid
    assert {f: getattr(got, f) for f in new.row()} == {f: getattr(new, f) for f in new.row()}
    assert got.kind is JudgmentKind.PAIRWISE and got.status is JudgmentStatus.OK
    raw = run_sql(
        db, "select kind, rater_kind, status, evidence from judgments where id = :id", id=jid
    ).fetchone()
    assert raw == ("pairwise", "human", "ok", '[{"quote": "q", "verified": false}]')
    with pytest.raises(ValueError):
        Judgment.from_row({**new.row(), "id": 1, "kind": "ranking"})
