"""Store contract (issue 33), continued: the modules converted after the first twelve, each
public function called on SQLite and PostgreSQL (``db`` / ``seeded`` run on both)."""

from __future__ import annotations

import json
import os
from dataclasses import replace

import pytest
from bound_sql import sql_rows
from contract_registry import contract_case

from core.errors import InputError
from core.store import (
    custom_tasks,
    exam,
    exam_results,
    experiments,
    judge_runs,
    label_rows,
    label_scales,
    llm_batches,
    resolutions,
    row_locks,
    runs,
    settings,
    setups,
    xrag_results,
)
from core.store.connection import transaction, utcnow
from core.store.database import open_db
from core.store.disputes import NewDispute, add_dispute, question_disputes
from core.store.engine import NotFoundError
from core.store.gold_sources import (
    GoldAction,
    NewGoldSource,
    active_gold_sources,
    insert_gold_source_change,
)
from core.store.judgments import JudgmentKind, JudgmentStatus, NewJudgment, RaterKind
from core.store.judgments import insert_judgment as _insert
from core.store.runs import start_run


@contract_case(active_gold_sources, insert_gold_source_change)
def test_gold_sources(db):
    assert active_gold_sources(db) == []
    first = insert_gold_source_change(
        db, NewGoldSource(rater="human:ann", action=GoldAction.ADD, marked_by="lead")
    )
    assert first.id > 0 and first.action is GoldAction.ADD
    insert_gold_source_change(
        db, NewGoldSource(rater="human:bob", action=GoldAction.ADD, marked_by="lead")
    )
    insert_gold_source_change(
        db, NewGoldSource(rater="human:bob", action=GoldAction.REMOVE, marked_by="lead")
    )
    insert_gold_source_change(
        db, NewGoldSource(rater="human:al", action=GoldAction.ADD, marked_by="x")
    )
    found = active_gold_sources(db)
    assert [(g.rater, g.marked_by) for g in found] == [("human:al", "x"), ("human:ann", "lead")]
    assert found[1] == first


def _review(db, question, annotator, decision, supersedes=None):
    return db["reviews"].insert(
        {"question_id": question, "annotator": annotator, "decision": decision,
         "supersedes": supersedes, "created_at": utcnow()}
    ).last_pk  # fmt: skip


@contract_case(label_rows.label_marks, label_rows.last_row, label_rows.own_row, utcnow)
def test_label_rows(seeded):
    db = seeded
    assert label_rows.own_row(db, "reviews", "q1", "ann") is None
    assert label_rows.last_row(db, "reviews", "ann") is None
    assert label_rows.label_marks(db, "reviews") == {"ok": {}, "skipped": {}}
    first = _review(db, "q1", "ann", "accept")
    skip = _review(db, "q2", "ann", label_rows.SKIPPED)
    _review(db, "q1", "bob", "reject")
    assert label_rows.own_row(db, "reviews", "q1", "ann")["id"] == first
    assert label_rows.last_row(db, "reviews", "ann")["id"] == skip
    assert label_rows.label_marks(db, "reviews") == {
        "ok": {"q1": {"ann", "bob"}},
        "skipped": {"q2": {"ann"}},
    }
    undo = _review(db, "q2", "ann", label_rows.WITHDRAWN, supersedes=skip)
    assert label_rows.own_row(db, "reviews", "q2", "ann")["id"] == undo
    assert label_rows.last_row(db, "reviews", "ann")["id"] == first
    assert label_rows.label_marks(db, "reviews")["skipped"] == {}
    assert label_rows.own_row(db, "dispute_resolutions", 1, "ann") is None
    assert label_rows.last_row(db, "dispute_resolutions", "ann") is None


def _verdict(db, rater, *, status="ok", kind="absolute", run_id=None, **fields):
    new = NewJudgment(
        kind=JudgmentKind(kind),
        question_id="q1",
        rater=rater,
        rater_kind=RaterKind.AUTO,
        criterion="supported",
        verdict=None if status == "error" else fields.pop("verdict", "yes"),
        status=JudgmentStatus(status),
        run_id=run_id,
        **fields,
    )
    return _insert(db, new)


@contract_case(
    _insert,
    judge_runs.judged_answer_ids,
    judge_runs.judged_pairs,
    judge_runs.last_error_id,
    judge_runs.latest_verdicts,
    judge_runs.run_judgments,
    judge_runs.stored_call_counts,
    start_run,
)
def test_judge_runs(seeded):
    db = seeded
    run = start_run(db, "judge", "j", {})
    j = "auto:j"
    assert judge_runs.judged_answer_ids(db, j) == set() and judge_runs.judged_pairs(db, j) == set()
    _verdict(db, j, system="s1", answer_id=1, run_id=run)
    failed = _verdict(db, j, system="s2", answer_id=2, status="error", run_id=run)
    pair = {"system_a": "s1", "system_b": "s2", "answer_a_id": 1, "answer_b_id": 2}
    _verdict(db, j, kind="pairwise", verdict="A", **pair)
    bad_pair = _verdict(db, j, kind="pairwise", status="error", **pair)
    _verdict(db, "auto:other", system="s2", answer_id=2, verdict="no")
    assert judge_runs.judged_answer_ids(db, j) == {1}
    assert judge_runs.judged_pairs(db, j) == {("q1", "s1", "s2")}
    assert judge_runs.last_error_id(db, j, answer_id=2) == failed
    assert judge_runs.last_error_id(db, j, answer_id=1) is None
    assert judge_runs.last_error_id(db, j, pair=("q1", "s1", "s2")) == bad_pair
    assert judge_runs.stored_call_counts(db, j, "absolute", ["s1", "s2"]) == {"q1": 1}
    assert judge_runs.stored_call_counts(db, j, "absolute", []) == {}
    assert judge_runs.stored_call_counts(db, j, "pairwise", ["s1", "s2"]) == {"q1": 1}
    assert judge_runs.stored_call_counts(db, j, "pairwise", ["s1"]) == {}
    found = judge_runs.run_judgments(db, j, run, "absolute")
    assert [(r.answer_id, r.status) for r in found] == [(1, "ok"), (2, "error")]
    assert judge_runs.run_judgments(db, j, run, "pairwise") == []
    latest = {("q1", "s1"): "yes", ("q1", None): "A"}  # the pairwise row has no system
    assert judge_runs.latest_verdicts(db, "supported", rater=j) == latest
    assert judge_runs.latest_verdicts(db, "supported", rater_prefix="auto:") == {
        **latest,
        ("q1", "s2"): "no",
    }
    assert judge_runs.latest_verdicts(db, "other", rater=j) == {}


@contract_case(
    _insert,
    setups.get_judge,
    setups.get_system,
    setups.insert_judge,
    setups.insert_system,
    setups.known_system_names,
    setups.setup_models,
    setups.system_names,
    utcnow,
)
def test_setups(seeded):
    db = seeded  # systems s1, s2 (model m:1)
    now = utcnow()
    assert setups.get_system(db, "s1").model == "m:1" and setups.get_system(db, "x") is None
    system = setups.StoredSystem(
        name="s3", model="m:3", context="rag", created_at=now, params={"k": 5}, family="f"
    )
    setups.insert_system(db, system)
    assert setups.get_system(db, "s3") == system
    assert setups.system_names(db) == {"s1", "s2", "s3"}
    assert setups.get_judge(db, "j") is None
    judge = setups.StoredJudge(
        name="j", kind="autoais", model="m:j", context="none", created_at=now, params={"t": 0}
    )
    setups.insert_judge(db, judge)
    assert setups.get_judge(db, "j") == judge
    _verdict(db, "auto:j", kind="pairwise", verdict="A", system_a="s1", system_b="imported")
    assert setups.known_system_names(db) == {"s1", "s2", "s3", "imported"}
    assert setups.setup_models(db) == {"m:1", "m:3", "m:j"}


@contract_case(
    settings.all_settings,
    settings.choice_setting,
    settings.get_setting,
    settings.int_setting,
    settings.set_setting,
    settings.set_task_setting,
    settings.settings_help,
    settings.task_setting,
    settings.update_setting,
    settings.url_setting,
)
def test_settings(db):
    assert settings.get_setting(db, "nothing", "d") == "d"
    assert "annotations_per_item" in settings.settings_help()
    defaults = settings.all_settings(db)
    assert defaults["annotations_per_item"] == 1 and defaults["queue_order"] == "shared"
    assert defaults["base_url"] == ""
    settings.set_setting(db, "free", 5)
    settings.set_setting(db, "free", "six")  # replaced, not doubled
    assert settings.get_setting(db, "free") == "six"
    assert settings.update_setting(db, "annotations_per_item", "3") == 3
    assert settings.int_setting(db, "annotations_per_item") == 3
    settings.set_setting(db, "calibration_items", "many")  # unreadable: the default
    assert settings.int_setting(db, "calibration_items") == 0
    assert settings.update_setting(db, "queue_order", "per-annotator") == "per-annotator"
    settings.set_setting(db, "queue_order", "other")  # not a choice: the default
    assert settings.choice_setting(db, "queue_order") == "shared"
    assert settings.update_setting(db, "base_url", "https://qa.example.org") != ""
    assert settings.url_setting(db, "base_url").startswith("https://qa.example.org")
    with pytest.raises(InputError):
        settings.update_setting(db, "unknown", 1)
    with pytest.raises(InputError):
        settings.update_setting(db, "annotations_per_item", "0")
    assert settings.int_setting(db, "annotations_per_item") == 3  # nothing written
    assert settings.task_setting(db, settings.ALT_TEST_EPSILON, "review") == ""
    settings.set_task_setting(db, settings.ALT_TEST_EPSILON, "review", "experts")
    assert settings.task_setting(db, settings.ALT_TEST_EPSILON, "review") == "experts"
    assert db.execute("select count(*) from settings where key = 'free'").fetchone()[0] == 1


def test_an_app_run_reads_the_settings_once(db_path):
    """A connection with a run memo (an app script run's, app_support.connection.database)
    reads every setting in one statement and keeps them for the run (issue 33: a label read 7,
    a round trip each on PostgreSQL); its own writes are read again; a connection without one
    (the CLI, a worker) reads each time."""
    run, other = open_db(db_path), open_db(db_path)
    try:
        run.run_memo = {}
        sent = []
        real = run.conn.execute
        run.conn.execute = lambda sql, *a: sent.append(sql) or real(sql, *a)
        assert settings.int_setting(run, "queue_seed") == 0
        assert settings.choice_setting(run, "queue_order") == "shared"
        assert settings.int_setting(run, "attention_every") == 0
        assert len(sent) == 1  # one statement for the three
        settings.update_setting(other, "queue_seed", 7)
        assert settings.int_setting(run, "queue_seed") == 0  # kept for the run
        assert settings.int_setting(other, "queue_seed") == 7  # no memo: read each time
        settings.update_setting(run, "attention_every", 3)  # its own write: read again
        assert settings.all_settings(run)["attention_every"] == 3
        assert settings.int_setting(run, "queue_seed") == 7
        assert settings.task_setting(run, settings.ALT_TEST_EPSILON, "review") == ""
    finally:
        run.close()
        other.close()


def _dispute(db, answer_id: int, system: str) -> int:
    gt = _verdict(db, "auto:gt", system=system, answer_id=answer_id)
    ctx = _verdict(db, "auto:ctx", system=system, answer_id=answer_id, verdict="no")
    new = NewDispute(question_id="q1", answer_id=answer_id, system=system, gt_judgment_id=gt,
                     ctx_judgment_id=ctx, gt_verdict="yes", ctx_verdict="no")  # fmt: skip
    add_dispute(db, new)
    return max(d.id for d in question_disputes(db, "q1"))


@contract_case(
    _insert,
    add_dispute,
    question_disputes,
    resolutions.effective_resolutions,
    resolutions.insert_resolution,
    resolutions.last_resolution,
    resolutions.own_resolution,
    resolutions.question_resolution_count,
    resolutions.resolution_marks,
    resolutions.resolved_dispute_count,
    resolutions.skipped_resolutions,
)
def test_resolutions(seeded):
    db = seeded
    one, two = _dispute(db, 1, "s1"), _dispute(db, 2, "s2")
    R = resolutions.DisputeResolution  # noqa: N806

    def put(dispute, who, what, supersedes=None):
        new = resolutions.NewResolution(
            dispute_id=dispute, annotator=who, resolution=what, supersedes=supersedes
        )
        return resolutions.insert_resolution(db, new)

    assert resolutions.own_resolution(db, one, "ann") is None
    assert resolutions.last_resolution(db, "ann") is None
    assert resolutions.effective_resolutions(db) == [] and resolutions.skipped_resolutions(db) == []
    first = put(one, "ann", R.MODEL_WRONG)
    changed = put(one, "ann", R.REFERENCE_WRONG, supersedes=first)
    skip = put(two, "ann", R.SKIPPED)
    put(two, "bob", R.AMBIGUOUS)
    assert resolutions.own_resolution(db, one, "ann").id == changed
    assert resolutions.last_resolution(db, "ann").id == skip
    ((skipped, question),) = resolutions.skipped_resolutions(db)
    assert skipped.id == skip and question == "q1"
    assert resolutions.resolution_marks(db) == {
        "ok": {one: {"ann"}, two: {"bob"}},
        "skipped": {two: {"ann"}},
    }
    found = resolutions.effective_resolutions(db)
    assert [(r.id, r.system, r.question, r.answers) for r in found] == [
        (changed, "s1", "question q1?", ["ref"]),
        (found[1].id, "s2", "question q1?", ["ref"]),
    ]
    assert [r.annotator for r in resolutions.effective_resolutions(db, dispute_id=two)] == ["bob"]
    assert resolutions.effective_resolutions(db, question_id="q2") == []
    assert len(resolutions.effective_resolutions(db, question_id="q1")) == 2
    assert resolutions.question_resolution_count(db, "q1") == 4
    assert resolutions.question_resolution_count(db, "q2") == 0
    assert resolutions.resolved_dispute_count(db, [one, two, 999]) == 2
    assert resolutions.resolved_dispute_count(db, []) == 0
    put(one, "ann", R.WITHDRAWN, supersedes=changed)  # undo: no resolution of ``one`` left
    assert resolutions.resolved_dispute_count(db, [one]) == 0
    assert resolutions.last_resolution(db, "ann").id == skip


@contract_case(
    llm_batches.add_batch,
    llm_batches.finish_import,
    llm_batches.get_batch,
    llm_batches.list_batches,
    llm_batches.pending_items,
    llm_batches.set_batch_status,
    llm_batches.set_item_status,
    start_run,
    transaction,
)
def test_llm_batches(db):
    run = start_run(db, "answer", "a", {})
    assert llm_batches.get_batch(db, "b1") is None and llm_batches.list_batches(db) == []
    batch = llm_batches.Batch(
        id="b1", provider="openai", model="openai:m", status="submitted", n_requests=3,
        run_id=run, metadata={"file": "f1"}, created_at="2026-01-01", updated_at="2026-01-01",
    )  # fmt: skip
    items = [llm_batches.BatchItem(f"c{i}", f"k{i}", {"task": "answer", "i": i}) for i in range(3)]
    with transaction(db):
        llm_batches.add_batch(db, batch, items)
        llm_batches.add_batch(db, replace(batch, id="b2", run_id=None, created_at="2026-02-01"), [])
    assert llm_batches.get_batch(db, "b1") == batch
    llm_batches.set_batch_status(db, "b1", "completed", {"file": "f2"})
    stored = llm_batches.get_batch(db, "b1")
    assert stored.status == "completed" and stored.metadata == {"file": "f2"}
    assert sorted(llm_batches.pending_items(db, "b1"), key=lambda i: i.custom_id) == items
    llm_batches.set_item_status(db, "b1", "c0", "ok")
    llm_batches.set_item_status(db, "b1", "c1", "error")
    assert [i.custom_id for i in llm_batches.pending_items(db, "b1")] == ["c2"]
    with transaction(db):
        assert llm_batches.finish_import(db, "b1") == (1, 1)
    listed = llm_batches.list_batches(db)
    assert [b["id"] for b in listed] == ["b2", "b1"] and "metadata" not in listed[0]
    assert (listed[1]["status"], listed[1]["n_imported"], listed[1]["n_failed"]) == (
        "imported",
        1,
        1,
    )
    assert [b["id"] for b in llm_batches.list_batches(db, run)] == ["b1"]


@contract_case(
    runs.add_run_totals,
    runs.count_runs,
    runs.experiment_runs,
    runs.finish_run,
    runs.latest_entity_method,
    runs.mark_dead_runs,
    runs.pid_alive,
    runs.recent_runs,
    runs.run_exists,
    runs.start_run,
)
def test_runs(seeded, monkeypatch):
    db = seeded  # document d1
    assert runs.recent_runs(db) == [] and runs.experiment_runs(db) == []
    assert not runs.run_exists(db, "x") and runs.count_runs(db, [runs.RunStatus.RUNNING]) == 0
    first = runs.start_run(db, "experiment", "e1", {"k": 1}, started_at="2026-01-01")
    second = runs.start_run(db, "judge", "j", {}, run_id="judge-1", started_at="2026-01-02")
    assert second == "judge-1" and runs.run_exists(db, first)
    runs.add_run_totals(db, first, n_calls=2, input_tokens=10, output_tokens=5, cost_usd=0.123456)
    runs.add_run_totals(db, first, n_calls=1, input_tokens=1, output_tokens=1, cost_usd=1.0)
    (stored,) = runs.experiment_runs(db)
    assert (stored.n_calls, stored.input_tokens, stored.config) == (3, 11, {"k": 1})
    assert stored.status is runs.RunStatus.RUNNING and stored.pid == os.getpid()
    assert [r.id for r in runs.recent_runs(db)] == [second, first]
    assert runs.recent_runs(db, 1)[0].id == second
    assert runs.recent_runs(db)[1].cost_usd == 1.1235
    runs.finish_run(db, second, runs.RunStatus.DONE, "fine", config={"n": 2})
    done = runs.recent_runs(db)[0]
    assert (done.status, done.note, done.config) == ("done", "fine", {"n": 2})
    assert done.finished_at is not None
    runs.finish_run(db, second, runs.RunStatus.FAILED, None, finished_at="2026-01-03")
    failed = runs.recent_runs(db)[0]
    assert (failed.status, failed.note, failed.finished_at) == ("failed", "fine", "2026-01-03")
    assert runs.count_runs(db, [runs.RunStatus.RUNNING, runs.RunStatus.FAILED]) == 2
    assert runs.count_runs(db, []) == 0
    assert runs.pid_alive(os.getpid()) and not runs.pid_alive(2**31 - 2)
    monkeypatch.setattr(runs, "pid_alive", lambda pid: pid == os.getpid())
    assert runs.mark_dead_runs(db) == []
    monkeypatch.setattr(runs, "pid_alive", lambda pid: False)
    assert runs.mark_dead_runs(db) == [first]
    dead = runs.experiment_runs(db)[0]
    assert (dead.status, dead.note) == ("interrupted", "process died")
    assert runs.latest_entity_method(db, "d1") is None
    for name, method, run_id in (("A", "m-old", None), ("B", "m-run", first), ("C", "m-new", None)):
        db["entities"].insert(
            {"document_id": "d1", "name": name, "n_mentions": 1, "rank": 1, "method": method,
             "run_id": run_id}
        )  # fmt: skip
    assert runs.latest_entity_method(db, "d1") == "m-run"  # entities of no run come last
    assert runs.latest_entity_method(db, "d2") is None


@contract_case(label_scales.label_scale, label_scales.label_scales, label_scales.save_label_scale)
def test_label_scales(db):
    LS, S = label_scales.LabelScale, label_scales.Scale  # noqa: N806
    assert label_scales.label_scale(db, "tone") is None and label_scales.label_scales(db) == []
    tone = LS(task="tone", scale=S.ORDINAL, labels=("1", "2"), declared=True,
              created_at="2026-01-01", updated_at="2026-01-01")  # fmt: skip
    assert label_scales.save_label_scale(db, tone) is True
    assert label_scales.label_scale(db, "tone") == tone
    assert label_scales.save_label_scale(db, replace(tone, updated_at="2026-01-02")) is False
    wider = replace(tone, labels=("1", "2", "3"), created_at="2026-02-01", updated_at="2026-02-01")
    assert label_scales.save_label_scale(db, wider) is True  # keeps its creation time
    assert label_scales.label_scale(db, "tone") == replace(wider, created_at="2026-01-01")
    topic = LS(task="a-topic", scale=S.MULTILABEL, labels=(), declared=False)
    label_scales.save_label_scale(db, topic)
    assert [s.task for s in label_scales.label_scales(db)] == ["a-topic", "tone"]
    assert label_scales.label_scale(db, "a-topic").declared is False


@contract_case(
    custom_tasks.custom_task,
    custom_tasks.custom_tasks,
    custom_tasks.insert_task_items,
    custom_tasks.save_custom_task,
    custom_tasks.task_items,
    label_scales.save_label_scale,
)
def test_custom_tasks(seeded, refused):
    db = seeded  # questions q1, q2
    CT, TI = custom_tasks.CustomTask, custom_tasks.TaskItem  # noqa: N806
    assert custom_tasks.custom_task(db, "tone") is None and custom_tasks.custom_tasks(db) == []
    for name in ("tone", "a-topic"):
        scale = label_scales.LabelScale(
            task=name, scale=label_scales.Scale.CATEGORICAL, labels=("x",), declared=True
        )
        label_scales.save_label_scale(db, scale)
    tone = CT(task="tone", guideline="be kind", defined_by="lead", created_at="2026-01-01",
              updated_at="2026-01-01")  # fmt: skip
    custom_tasks.save_custom_task(db, tone)
    assert custom_tasks.custom_task(db, "tone") == tone
    again = replace(tone, guideline="be fair", created_at="2026-02-01", updated_at="2026-02-01")
    custom_tasks.save_custom_task(db, again)  # keeps its creation time
    assert custom_tasks.custom_task(db, "tone") == replace(again, created_at="2026-01-01")
    custom_tasks.save_custom_task(db, CT(task="a-topic", guideline="", defined_by="lead"))
    assert [t.task for t in custom_tasks.custom_tasks(db)] == ["a-topic", "tone"]
    assert custom_tasks.task_items(db, "tone") == []
    items = [TI(task="tone", item="i2", question_id="q2", system=None, answer="", position=1),
             TI(task="tone", item="i1", question_id="q1", system="s1", answer="a", position=0)]  # fmt: skip
    custom_tasks.insert_task_items(db, items)
    custom_tasks.insert_task_items(db, [])
    assert custom_tasks.task_items(db, "tone") == items[::-1]  # by position
    clash = TI(task="tone", item="i3", question_id="q1", system=None, answer="", position=2)
    with pytest.raises(refused):  # an item key already stored: none of the items written
        custom_tasks.insert_task_items(db, [clash, items[0]])
    assert len(custom_tasks.task_items(db, "tone")) == 2


def _exam_run(db) -> str:
    now = utcnow()
    db["exam_banks"].insert({"id": "b", "source": "jsonl", "created_at": now})
    for query in ("t1", "t2"):
        db["exam_queries"].insert({"bank_id": "b", "query_id": query})
    for qid, query in (("x1", "t1"), ("x2", "t1"), ("x3", "t2")):
        db["exam_questions"].insert(
            {"id": f"b::{qid}", "bank_id": "b", "query_id": query, "qid": qid, "question": "?"}
        )
    for system, query in (("s2", "t1"), ("s1", "t1"), ("s1", "t2")):
        db["exam_articles"].insert(
            {"bank_id": "b", "query_id": query, "system": system, "kind": "generated",
             "text": "t", "created_at": now}
        )  # fmt: skip
    run_id = start_run(db, "exam", "e", {}, run_id="exam-1")
    db["exam_runs"].insert(
        {"id": run_id, "bank_id": "b", "qa_model": "offline:x", "verification": "answer_key",
         "created_at": "2026-01-01"}
    )  # fmt: skip
    articles = {
        (r["system"], r["query_id"]): r["id"] for r in db.query("select * from exam_articles")
    }
    for system, query, qid, correct in (("s2", "t1", "x1", 1), ("s1", "t1", "x1", 0),
                                        ("s1", "t2", "x3", None)):  # fmt: skip
        db["exam_grades"].insert(
            {"run_id": run_id, "article_id": articles[(system, query)], "question_id": f"b::{qid}",
             "correct": correct, "status": "ok" if correct is not None else "unparsed",
             "created_at": now}
        )  # fmt: skip
    return run_id


@contract_case(
    exam_results.book_correlations,
    exam_results.exam_runs_overview,
    exam_results.latest_book_systems,
    exam_results.replace_book_correlation,
    exam_results.run_grades,
    exam_results.run_questions_of_query,
    exam_results.run_systems,
    start_run,
    utcnow,
)
def test_exam_results(seeded):
    db = seeded  # document d1 "Book"
    assert exam_results.exam_runs_overview(db) == [] and exam_results.book_correlations(db) == []
    assert exam_results.latest_book_systems(db) is None
    run_id = _exam_run(db)
    grades = exam_results.run_grades(db, run_id)
    assert sorted((g.system, g.query_id, g.correct) for g in grades) == [
        ("s1", "t1", 0), ("s1", "t2", None), ("s2", "t1", 1)
    ]  # fmt: skip
    assert {g.system for g in exam_results.run_grades(db, run_id, "t2")} == {"s1"}
    assert exam_results.run_grades(db, "none") == []
    assert exam_results.run_systems(db, run_id) == ["s1", "s2"]
    assert exam_results.run_questions_of_query(db, run_id, "t1") == 2
    assert exam_results.run_questions_of_query(db, run_id, "t9") == 0
    (overview,) = exam_results.exam_runs_overview(db)
    assert (overview["run_id"], overview["graded"], overview["threshold"]) == (run_id, 3, None)
    corr = exam_results.BookCorrelation(
        document_id="d1", exam_run_id=run_id, experiment="x", rater="auto:j", n_systems=2,
        n_questions=3, spearman=0.5, kendall=0.25, systems=[{"system": "s1"}],
        created_at="2026-01-01",
    )  # fmt: skip
    exam_results.replace_book_correlation(db, corr)
    exam_results.replace_book_correlation(
        db, replace(corr, spearman=1.0, systems=[{"system": "s2"}], created_at="2026-01-02")
    )  # replaced: one row per (book, run, rater)
    (stored,) = exam_results.book_correlations(db)
    assert (stored["title"], stored["spearman"], stored["created_at"]) == (
        "Book",
        1.0,
        "2026-01-02",
    )
    assert "systems" not in stored and exam_results.book_correlations(db, "d2") == []
    assert exam_results.latest_book_systems(db) == [{"system": "s2"}]
    assert exam_results.latest_book_systems(db, "d1") == [{"system": "s2"}]
    assert exam_results.latest_book_systems(db, "d2") is None


@contract_case(
    exam.get_exam_run,
    exam.graded_pairs,
    exam.open_exam_run,
    exam.rate_grade,
    exam.save_grade,
    exam.unrated_grades,
    start_run,
    utcnow,
)
def test_exam(seeded):
    db = seeded
    run_id = _exam_run(db)  # exam run exam-1 with 3 grades (x1 of s2 and s1, x3 of s1)
    assert exam.get_exam_run(db, "none") is None
    config = {"threshold": 4}
    assert exam.open_exam_run(db, {**exam.get_exam_run(db, run_id), "config": {}}) is False
    assert len(exam.graded_pairs(db, run_id)) == 3  # same configuration: grades kept
    assert exam.open_exam_run(db, {**exam.get_exam_run(db, run_id), "config": config}) is True
    assert (
        exam.graded_pairs(db, run_id) == set() and exam.get_exam_run(db, run_id)["config"] == config
    )
    article = db.execute("select min(id) from exam_articles").fetchone()[0]

    def grade(status: str, answer: str) -> dict:
        return {"run_id": run_id, "article_id": article, "question_id": "b::x1", "answer": answer,
                "self_rating": None, "score": None, "correct": None, "status": status, "raw": "r",
                "prompt_hash": "", "rater": "", "created_at": utcnow()}  # fmt: skip

    exam.save_grade(db, grade("error", ""))
    assert exam.graded_pairs(db, run_id) == set() and exam.unrated_grades(db, run_id) == []
    exam.save_grade(db, grade("ok", "Paris"))  # replaces the error grade of the same pair
    assert exam.graded_pairs(db, run_id) == {(article, "b::x1")}
    (unrated,) = exam.unrated_grades(db, run_id)
    assert unrated["answer"] == "Paris" and set(unrated) == {"id", "question_id", "answer"}
    exam.rate_grade(db, unrated["id"], rater="m:judge", correct=1, status="ok")
    assert exam.unrated_grades(db, run_id) == []
    (row,) = sql_rows(db, "select rater, correct, raw from exam_grades where run_id = :r", r=run_id)
    assert row == {"rater": "m:judge", "correct": 1, "raw": "r"}
    exam.rate_grade(db, unrated["id"], rater="m:judge", correct=0, status="ok", raw="new")
    (row,) = sql_rows(db, "select correct, raw from exam_grades where run_id = :r", r=run_id)
    assert row == {"correct": 0, "raw": "new"}


@contract_case(
    experiments.experiment_names,
    experiments.finish_experiment,
    experiments.get_experiment,
    experiments.mark_experiments_interrupted,
    experiments.save_experiment_start,
    experiments.stored_experiments,
    start_run,
)
def test_experiments(db):
    ex, S = experiments, experiments.ExperimentStatus  # noqa: N806
    assert ex.get_experiment(db, "e") is None and ex.experiment_names(db) == []
    assert ex.stored_experiments(db) == []
    first, second = (start_run(db, "experiment", n, {}) for n in ("b", "a"))
    ex.save_experiment_start(db, name="b", path="b.toml", config={"k": 1}, question_ids=["q1"],
                             run_id=first, now="2026-01-01")  # fmt: skip
    ex.save_experiment_start(db, name="a", path="a.toml", config=[1], question_ids=[],
                             run_id=second, now="2026-01-02")  # fmt: skip
    stored = ex.get_experiment(db, "b")
    assert (stored.config, stored.question_ids, stored.status) == ({"k": 1}, ["q1"], S.RUNNING)
    assert stored.summary == {} and stored.run_id == first and stored.path == "b.toml"
    assert ex.experiment_names(db) == ["a", "b"]
    assert [e.name for e in ex.stored_experiments(db)] == ["a", "b"]
    ex.finish_experiment(db, "b", S.DONE, {"n": 3}, "2026-01-03")
    done = ex.get_experiment(db, "b")
    assert (done.status, done.summary, done.updated_at) == (S.DONE, {"n": 3}, "2026-01-03")
    assert [e.name for e in ex.stored_experiments(db)] == ["b", "a"]
    ex.save_experiment_start(
        db,
        name="b",
        path="b2.toml",
        config={"k": 2},
        question_ids=["q2"],
        run_id=first,
        now="2026-01-04",
    )  # fmt: skip  (replaced, not doubled)
    again = ex.get_experiment(db, "b")
    assert (again.path, again.config, again.status, again.summary) == ("b2.toml", {"k": 2},
                                                                       S.RUNNING, {"n": 3})  # fmt: skip
    ex.mark_experiments_interrupted(db, [], "2026-01-05")
    ex.mark_experiments_interrupted(db, [first, "other"], "2026-01-05")
    assert ex.get_experiment(db, "b").status is S.INTERRUPTED
    assert ex.get_experiment(db, "a").status is S.RUNNING


@contract_case(
    utcnow,
    xrag_results.add_vote,
    xrag_results.answered_cases,
    xrag_results.finish_result,
    xrag_results.finished_results,
    xrag_results.first_result_ids,
    xrag_results.get_result,
    xrag_results.insert_answer,
    xrag_results.pending_results,
    xrag_results.result_ids,
    xrag_results.result_question_ids,
)
def test_xrag_results(seeded):
    db = seeded  # questions q1, q2
    xr = xrag_results
    assert xr.answered_cases(db, "m", "p") == set() and xr.result_ids(db) == []

    def answer(question: str, setting: str, status: str = "ok") -> dict:
        return {"question_id": question, "item_id": "q1", "language": "en", "setting": setting,
                "model": "m", "documents": ["d1"], "answer": "a", "answer_status": status,
                "judge_panel": "p", "created_at": utcnow()}  # fmt: skip

    xr.insert_answer(db, answer("q1", "english", "error"))
    assert xr.answered_cases(db, "m", "p") == set()
    xr.insert_answer(db, answer("q1", "english"))  # replaces the failed answer
    xr.insert_answer(db, answer("q2", "none"))
    assert xr.answered_cases(db, "m", "p") == {("q1", "english"), ("q2", "none")}
    assert xr.answered_cases(db, "m", "other") == set()
    pending = xr.pending_results(db, "m", "p")
    assert [(r["question_id"], r["votes"], r["documents"]) for r in pending] == [
        ("q1", [], ["d1"]), ("q2", [], ["d1"])
    ]  # fmt: skip
    first, second = (r["id"] for r in pending)
    assert xr.result_ids(db) == [first, second]
    assert xr.add_vote(db, first, {"judge": "j1", "verdict": "yes"}) == [
        {"judge": "j1", "verdict": "yes"}
    ]
    votes = xr.add_vote(db, first, {"judge": "j2", "verdict": "no"})
    assert [v["judge"] for v in votes] == ["j1", "j2"]
    assert xr.finished_results(db) == []
    xr.finish_result(db, first, {"votes": votes, "content_verdict": "yes", "panel_status": "ok",
                                 "verdict": "yes", "run_id": None})  # fmt: skip
    (done,) = xr.finished_results(db)
    assert (
        done["id"] == first and done["verdict"] == "yes" and json.loads(done["votes"]) == votes
    )  # text here
    assert xr.finished_results(db, "m") == [done] and xr.finished_results(db, "n") == []
    assert xr.get_result(db, first) == done and xr.get_result(db, 999) is None
    assert [r["id"] for r in xr.pending_results(db, "m", "p")] == [second]
    with pytest.raises(NotFoundError):
        xr.finish_result(db, 999, {"votes": [], "panel_status": "ok"})
    assert xr.first_result_ids(db) == {("q1", "m@english"): first, ("q2", "m@none"): second}
    assert xr.result_question_ids(db, [second, 999]) == {second: "q2"}
    assert xr.result_question_ids(db, []) == {}


def _advisory_locks(db) -> int:
    if db.dialect.name != "postgresql":
        return 0
    sql = "select count(*) from pg_locks where locktype = 'advisory' and pid = pg_backend_pid()"
    return int(db.execute(sql).fetchone()[0])


@contract_case(
    row_locks.hold,
    row_locks.hold_item,
    row_locks.hold_label,
    row_locks.hold_name,
    row_locks.hold_person,
    row_locks.lock_name,
    transaction,
)
def test_row_locks(db):
    assert row_locks.lock_name("item", "t", 1) == '["item", "t", "1"]'
    assert row_locks.lock_name("a", "b,c") != row_locks.lock_name("a", "b", "c")
    postgres = db.dialect.name == "postgresql"
    with transaction(db):
        row_locks.hold_label(db, "review", "ann", "q1")  # the person's lock, then the item's
        row_locks.hold_name(db, "accounts", "ann")
        row_locks.hold(db, "custom", "x", 2)
        assert _advisory_locks(db) == (4 if postgres else 0)  # held until the transaction ends
    assert _advisory_locks(db) == 0
    with transaction(db):
        row_locks.hold_person(db, "review", "bob")
        row_locks.hold_item(db, "review", "q2")
        assert _advisory_locks(db) == (2 if postgres else 0)
    if postgres:  # a lock outside a transaction would end with its statement
        with pytest.raises(RuntimeError):
            row_locks.hold_item(db, "review", "q1")
    else:
        row_locks.hold_item(db, "review", "q1")  # SQLite: the write lock serialises writers
