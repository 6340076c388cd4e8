"""The runs, experiments, setups and XRAG table layers, and the readers and writers the pipeline,
the importer and the overview use on questions, answers, judgments and dispute resolutions."""

from __future__ import annotations

import os
from dataclasses import fields

import pytest
from bound_sql import run_sql
from contract_registry import contract_case

from core.store.answers import (
    Answer,
    answer_ids,
    answer_texts,
    answers_of_systems,
    imported_answer_counts,
    insert_answers,
    set_answer_text,
)
from core.store.connection import utcnow
from core.store.database import open_db
from core.store.disputes import NewDispute, add_dispute
from core.store.experiments import (
    ExperimentStatus,
    experiment_names,
    finish_experiment,
    get_experiment,
    mark_experiments_interrupted,
    save_experiment_start,
    stored_experiments,
)
from core.store.judge_runs import run_judgments
from core.store.judgment_counts import imported_verdict_counts
from core.store.judgments import (
    JudgmentKind,
    NewJudgment,
    RaterKind,
    insert_judgment,
    insert_judgments,
)
from core.store.llm_cache import LedgerEntry, write_calls
from core.store.questions import (
    Question,
    QuestionOrigin,
    all_question_texts,
    child_questions,
    insert_questions,
    sample_question_ids,
    set_question_text,
)
from core.store.resolutions import effective_resolutions, resolved_dispute_count
from core.store.runs import (
    RUN_REFERENCES,
    RunStatus,
    add_run_totals,
    count_runs,
    discard_idle_runs,
    experiment_runs,
    finish_run,
    latest_entity_method,
    recent_runs,
    run_exists,
    start_run,
)
from core.store.setups import (
    StoredJudge,
    StoredSystem,
    get_judge,
    get_system,
    insert_system,
    setup_models,
    system_names,
)
from core.store.xrag import (
    add_article_note,
    add_distractors,
    add_pair,
    add_xrag_item,
    article_notes,
    article_pairs,
    delete_distractors,
    english_xrag_questions,
    has_distractors,
    pair_distractors,
    qa_note_sources,
    set_pair_verdict,
    translated_qa_notes,
    xrag_item_count,
    xrag_item_exists,
)


def _question(qid, **extra):
    now = utcnow()
    return {
        "id": qid,
        "document_id": "d1",
        "question": f"question {qid}?",
        "origin": "imported",
        "status": "accepted",
        "split": "",
        "language": "en",
        "parent_id": None,
        "created_at": now,
        "updated_at": now,
        **extra,
    }


# ---------------------------------------------------------------------------------------------
# runs
# ---------------------------------------------------------------------------------------------


@contract_case(
    add_run_totals, count_runs, experiment_runs, finish_run, recent_runs, run_exists, start_run
)
def test_runs_exist_add_totals_and_are_listed_newest_first(seeded):
    db = seeded
    assert not run_exists(db, "exp-a")
    a = start_run(db, "experiment", "alpha", {"x": 1}, run_id="exp-a", started_at="2026-01-01")
    b = start_run(db, "experiment", "beta", {}, run_id="exp-b", started_at="2026-01-03")
    j = start_run(db, "judge", "j", {}, run_id="judge-1", started_at="2026-01-02")
    assert run_exists(db, a) and run_exists(db, j)
    add_run_totals(db, a, n_calls=2, input_tokens=10, output_tokens=4, cost_usd=0.25)
    add_run_totals(db, a, n_calls=1, input_tokens=5, output_tokens=1, cost_usd=0.125)
    got = run_sql(
        db, "select n_calls, input_tokens, output_tokens, cost_usd from runs where id = :id", id=a
    ).fetchone()
    assert tuple(got) == (3, 15, 5, 0.375)
    assert [(r.id, r.name) for r in experiment_runs(db)] == [(b, "beta"), (a, "alpha")]
    latest = experiment_runs(db)[0]
    assert (latest.status, latest.pid, latest.config) == (RunStatus.RUNNING, os.getpid(), {})
    assert [r.id for r in recent_runs(db)] == [b, j, a]
    assert [r.id for r in recent_runs(db, 2)] == [b, j]
    assert recent_runs(db)[2].cost_usd == 0.375 and recent_runs(db)[2].config == {"x": 1}
    finish_run(db, b, RunStatus.FAILED)
    finish_run(db, j, RunStatus.DONE)
    waiting = (RunStatus.RUNNING, RunStatus.FAILED, RunStatus.INTERRUPTED)
    assert count_runs(db, waiting) == 2  # a running, b failed
    assert count_runs(db, (RunStatus.DONE,)) == 1 and count_runs(db, ()) == 0


@contract_case(latest_entity_method, start_run)
def test_latest_entity_method_follows_the_latest_run(seeded):
    db = seeded
    assert latest_entity_method(db, "d1") is None
    old = start_run(db, "entities", "d1", {}, started_at="2026-01-01")
    new = start_run(db, "entities", "d1", {}, started_at="2026-02-01")
    for name, method, run_id in (
        ("Ann", "spacy", new),  # stored first, by the later run
        ("Bob", "proper-noun", old),
    ):
        db["entities"].insert(
            {
                "document_id": "d1",
                "name": name,
                "n_mentions": 1,
                "rank": 1,
                "method": method,
                "run_id": run_id,
            }
        )
    assert latest_entity_method(db, "d1") == "spacy"
    assert latest_entity_method(db, "nope") is None


# ---------------------------------------------------------------------------------------------
# experiments and setups
# ---------------------------------------------------------------------------------------------


@contract_case(
    experiment_names,
    finish_experiment,
    get_experiment,
    mark_experiments_interrupted,
    save_experiment_start,
    start_run,
    stored_experiments,
)
def test_experiments_round_trip_decoded(seeded):
    db = seeded
    assert get_experiment(db, "e1") is None and experiment_names(db) == []
    start_run(db, "experiment", "e1", {}, run_id="r1")
    save_experiment_start(
        db,
        name="e1",
        path="x.toml",
        config={"name": "e1", "c": 2},
        question_ids=["q1", "q2"],
        run_id="r1",
        now="2026-01-01T00:00:00.000+00:00",
    )
    row = get_experiment(db, "e1")
    assert row.question_ids == ["q1", "q2"] and row.config == {"name": "e1", "c": 2}
    assert (row.status, row.run_id, row.summary) == (ExperimentStatus.RUNNING, "r1", {})
    done = ExperimentStatus.DONE
    finish_experiment(db, "e1", done, {"answers": 3}, "2026-01-02T00:00:00.000+00:00")
    row = get_experiment(db, "e1")
    assert (row.status, row.summary) == ("done", {"answers": 3})
    start_run(db, "experiment", "e0", {}, run_id="r0")
    save_experiment_start(
        db, name="e0", path="", config={}, question_ids=[], run_id="r0", now="2026-01-03"
    )
    assert experiment_names(db) == ["e0", "e1"]
    assert [e.name for e in stored_experiments(db)] == ["e0", "e1"]  # newest update first
    assert stored_experiments(db)[0].question_ids == []
    mark_experiments_interrupted(db, ["r0", "r1"], "2026-01-04")  # e1 is done: left alone
    mark_experiments_interrupted(db, [], "2026-01-05")
    assert [(e.name, e.status) for e in stored_experiments(db)] == [
        ("e0", "interrupted"),
        ("e1", "done"),
    ]


@contract_case(get_judge, get_system, insert_system, setup_models, system_names)
def test_setups(seeded):
    db = seeded
    assert system_names(db) == {"s1", "s2"}
    s3 = StoredSystem(name="s3", model="m:3", context="rag", params={"k": 2}, created_at="t")
    insert_system(db, s3)
    assert get_system(db, "s3") == s3 and get_system(db, "none") is None
    assert get_judge(db, "j") is None
    db["judges"].insert(
        {"name": "j", "kind": "autoais", "model": "m:j", "context": "rag", "created_at": "t"}
    )
    assert get_judge(db, "j") == StoredJudge(
        name="j", kind="autoais", model="m:j", context="rag", created_at="t"
    )
    db.execute(
        "insert into llm_calls (model, provider, status, created_at) values ('m:l', 'm', 'ok', 't')"
    )
    assert setup_models(db) == {"m:1", "m:3", "m:j", "m:l"}


# ---------------------------------------------------------------------------------------------
# questions, answers, judgments, resolutions
# ---------------------------------------------------------------------------------------------


@contract_case(
    all_question_texts,
    child_questions,
    insert_questions,
    sample_question_ids,
    set_question_text,
    utcnow,
)
def test_question_readers_and_writers(seeded):
    db = seeded
    insert_questions(
        db,
        [
            Question(**_question("q3", split="test", language="en")),
            Question(**_question("q3.de", language="de", parent_id="q3", origin="xrag")),
            Question(**_question("q3.fr", language="fr", parent_id="q3", origin="exam")),
        ],
    )
    insert_questions(db, [])
    texts = all_question_texts(db)
    assert texts["q3"] == "question q3?" and set(texts) == {"q1", "q2", "q3", "q3.de", "q3.fr"}
    set_question_text(db, "q3", "new text?", "2026-01-01")
    assert all_question_texts(db)["q3"] == "new text?"
    assert [q.id for q in child_questions(db, "q3")] == ["q3.de", "q3.fr"]
    assert [q.id for q in child_questions(db, "q3", origin=QuestionOrigin.XRAG)] == ["q3.de"]
    assert sample_question_ids(db) == ["q1", "q2", "q3", "q3.de", "q3.fr"]
    assert sample_question_ids(db, equal={"origin": "imported", "split": None}) == ["q2", "q3"]
    assert sample_question_ids(db, equal={"language": "en", "split": "test"}) == ["q3"]
    assert sample_question_ids(db, any_of={"status": ["pending"], "document_id": []}) == ["q1"]
    assert sample_question_ids(db, any_of={"id": ["q2", "q3.fr", "zz"]}) == ["q2", "q3.fr"]
    with pytest.raises(ValueError, match="not a questions column"):
        sample_question_ids(db, equal={"origin = origin or 1": "x"})


@contract_case(
    answer_ids,
    answer_texts,
    answers_of_systems,
    imported_answer_counts,
    insert_answers,
    set_answer_text,
    utcnow,
)
def test_answer_readers_and_writers(seeded):
    db = seeded
    insert_answers(
        db,
        [
            Answer(
                question_id="q2",
                system="s2",
                text="t",
                metadata={"imported_from": "f.csv", "line": 2},
                created_at=utcnow(),
            )
        ],
    )
    assert answer_ids(db) == {("q1", "s1"): 1, ("q1", "s2"): 2, ("q2", "s2"): 3}
    assert answer_texts(db)[("q1", "s2")] == (2, "answer s2")
    set_answer_text(db, 2, "fixed")
    row = db.execute("select text, status from answers where id = 2").fetchone()
    assert tuple(row) == ("fixed", "ok")
    assert [a.id for a in answers_of_systems(db, ["s2"])] == [2, 3]
    assert answers_of_systems(db, ["s2"])[1].metadata == {"imported_from": "f.csv", "line": 2}
    assert answers_of_systems(db, []) == []
    assert imported_answer_counts(db) == {"f.csv": 1}


def _verdict(rater, run_id=None, kind="pairwise", **extra):
    fields = {"system_a": "s1", "system_b": "s2", "verdict": "A", "rater_kind": "auto", **extra}
    fields["rater_kind"] = RaterKind(fields["rater_kind"])
    return NewJudgment(
        kind=JudgmentKind(kind), question_id="q1", rater=rater, run_id=run_id, **fields
    )


@contract_case(imported_verdict_counts, insert_judgment, insert_judgments, run_judgments, start_run)
def test_judgment_writers_and_run_readers(seeded):
    db = seeded
    start_run(db, "judge", "j", {}, run_id="r1")
    first = insert_judgment(db, _verdict("auto:p", "r1"))
    insert_judgments(
        db,
        [
            _verdict("auto:p", "r1", supersedes=first, verdict="B"),
            _verdict("auto:p", None),
            _verdict("auto:q", "r1"),
            _verdict("auto:p", "r1", kind="absolute", system="s1", system_a=None, system_b=None),
            _verdict(
                "human:x", raw='{"file": "f.csv", "line": 3, "label": "A"}', rater_kind="human"
            ),
            _verdict(
                "human:y", raw='{"file": "f.csv", "line": 4, "label": "B"}', rater_kind="human"
            ),
            _verdict("auto:z", raw='{"model": "m"}'),
        ],
        batch_size=2,
    )
    insert_judgments(db, [])
    got = run_judgments(db, "auto:p", "r1", "pairwise")
    assert [(r.id, r.verdict) for r in got] == [(first, "A"), (first + 1, "B")]
    assert [r.kind for r in run_judgments(db, "auto:p", "r1", "absolute")] == ["absolute"]
    assert imported_verdict_counts(db) == {"f.csv": 2}


@contract_case(add_dispute, effective_resolutions, insert_judgment, resolved_dispute_count, utcnow)
def test_resolutions_effective_and_counted(seeded):
    db = seeded
    g = insert_judgment(db, _verdict("auto:gt", kind="absolute", verdict="no"))
    c = insert_judgment(db, _verdict("auto:ctx", kind="absolute", verdict="yes"))
    c2 = insert_judgment(db, _verdict("auto:ctx", kind="absolute", verdict="yes", system="s2"))
    for ctx, answer in ((c, 1), (c2, 2)):
        add_dispute(
            db,
            NewDispute(
                question_id="q1",
                answer_id=answer,
                system="s1",
                gt_judgment_id=g,
                ctx_judgment_id=ctx,
                gt_verdict="no",
                ctx_verdict="yes",
            ),
        )
    d1, d2 = (r[0] for r in db.execute("select id from disputes order by id"))
    assert effective_resolutions(db) == [] and resolved_dispute_count(db, [d1, d2]) == 0

    def resolve(dispute, resolution, supersedes=None, who="ann"):
        return int(
            db["dispute_resolutions"]
            .insert(
                {
                    "dispute_id": dispute,
                    "annotator": who,
                    "resolution": resolution,
                    "supersedes": supersedes,
                    "created_at": utcnow(),
                }
            )
            .last_pk
        )

    r1 = resolve(d1, "model_wrong")
    r2 = resolve(d1, "reference_wrong", supersedes=r1)  # the effective one
    resolve(d2, "ambiguous", who="bob")
    r4 = resolve(d2, "withdrawn", who="ann")
    assert [r.id for r in effective_resolutions(db)] == [r2, r4 - 1]
    assert resolved_dispute_count(db, [d1, d2]) == 2
    assert resolved_dispute_count(db, [d1]) == 1 and resolved_dispute_count(db, []) == 0
    resolve(d2, "withdrawn", supersedes=r4 - 1, who="bob")  # bob withdraws his label
    assert resolved_dispute_count(db, [d1, d2]) == 1
    assert [r.dispute_id for r in effective_resolutions(db)] == [d1]


# ---------------------------------------------------------------------------------------------
# XRAG tables
# ---------------------------------------------------------------------------------------------


def _article(db, doc_id):
    now = utcnow()
    db["documents"].insert(
        {
            "id": doc_id,
            "kind": "article",
            "source": "test",
            "title": doc_id,
            "text": "x",
            "n_chars": 1,
            "n_tokens": 1,
            "sha256": "",
            "created_at": now,
            "updated_at": now,
        }
    )


@contract_case(
    add_article_note,
    add_distractors,
    add_pair,
    add_xrag_item,
    article_notes,
    article_pairs,
    delete_distractors,
    english_xrag_questions,
    has_distractors,
    pair_distractors,
    qa_note_sources,
    set_pair_verdict,
    translated_qa_notes,
    utcnow,
    xrag_item_count,
    xrag_item_exists,
)
def test_xrag_pairs_notes_items_and_distractors(seeded):
    db = seeded
    for doc in ("a", "b", "c", "c.de"):
        _article(db, doc)
    pair = {"article_a": "a", "article_b": "b", "shared_entities": ["X"], "days_apart": 3}
    assert add_pair(db, pair, "t") is True and add_pair(db, pair, "t") is False
    [stored] = article_pairs(db)
    assert stored["shared_entities"] == ["X"] and stored["method"] == "title-entities"
    set_pair_verdict(
        db,
        {**pair, "method": "title-entities+model", "related": "no", "status": "rejected"},
    )
    assert article_pairs(db) == [] and article_pairs(db, None)[0]["related"] == "no"
    assert article_pairs(db, "rejected")[0]["status"] == "rejected"
    pid = stored["id"]

    for lang, q in (("en", "q-en"), ("de", "q-de"), ("en", "q-en-2")):
        add_article_note(
            db,
            {
                "article_id": "a",
                "kind": "qa",
                "question": q,
                "language": lang,
                "provenance": '{"xquad_id": "x1"}',
                "created_at": "t",
            },
        )
    add_article_note(db, {"article_id": "a", "kind": "summary", "answer": "s", "created_at": "t"})
    assert [n["question"] for n in article_notes(db, "a", "qa")] == ["q-en", "q-en-2"]
    assert [n["question"] for n in article_notes(db, "a", "qa", "de")] == ["q-de"]
    assert [n["answer"] for n in article_notes(db, "a", "summary")] == ["s"]
    assert [n["question"] for n in translated_qa_notes(db, "a")] == ["q-de"]
    assert qa_note_sources(db) == [
        {"article_id": "a", "language": lang, "provenance": {"xquad_id": "x1"}}
        for lang in ("en", "de", "en")
    ]

    assert xrag_item_count(db, pid, "set") == 0 and not xrag_item_exists(db, pid, builder="llm")
    db["questions"].insert(_question("xrag-1", origin="xrag", status="pending"))
    db["questions"].insert(_question("xrag-2", origin="xrag", status="rejected"))
    for qid, builder in (("xrag-1", "llm"), ("xrag-2", "baseline:xquad-compose")):
        add_xrag_item(
            db,
            {
                "question_id": qid,
                "pair_id": pid,
                "qtype": "set",
                "builder": builder,
                "created_at": "t",
            },
        )
    assert xrag_item_count(db, pid, "set") == 2 and xrag_item_count(db, pid, "multihop") == 0
    assert xrag_item_exists(db, pid, builder="llm", qtype="set")
    assert not xrag_item_exists(db, pid, builder="llm", qtype="multihop")
    assert xrag_item_exists(db, pid, builder="baseline:xquad-compose")
    got = english_xrag_questions(db, ("pending", "accepted"))
    assert [(q["id"], q["pair_id"], q["builder"]) for q in got] == [("xrag-1", pid, "llm")]
    assert len(english_xrag_questions(db, ("pending", "rejected"))) == 2
    assert english_xrag_questions(db, ()) == []

    assert not has_distractors(db, pid)
    add_distractors(
        db,
        (
            {
                "pair_id": pid,
                "language": lang,
                "rank": rank,
                "document_id": doc,
                "english_id": "c",
                "score": score,
            }
            for lang, rank, doc, score in (
                ("en", 2, "b", 1.0),
                ("en", 1, "c", 2.0),
                ("de", 1, "c.de", 2.0),
            )
        ),
    )
    assert has_distractors(db, pid)
    assert [d["document_id"] for d in pair_distractors(db, pid)] == ["c", "b"]
    assert [d["document_id"] for d in pair_distractors(db, pid, "de")] == ["c.de"]
    delete_distractors(db, pid)
    assert not has_distractors(db, pid) and pair_distractors(db, pid) == []


def test_run_references_are_every_foreign_key_to_runs():
    """discard_idle_runs looks for rows pointing at a run in RUN_REFERENCES: every one."""
    db = open_db(":memory:")
    found = {
        (table, fk[3])
        for (table,) in db.execute("select name from sqlite_master where type = 'table'")
        for fk in db.execute(f"pragma foreign_key_list({table})").fetchall()
        if fk[2] == "runs"
    }
    db.close()
    assert found == set(RUN_REFERENCES)


def _call(run_id: str, cache_hit: int) -> LedgerEntry:
    return LedgerEntry(
        **{
            **{f.name: "" for f in fields(LedgerEntry)},
            **dict.fromkeys(("attempts", "input_tokens", "output_tokens", "cached_tokens"), 0),
            **{
                "cache_write_tokens": 0,
                "cost_usd": 0.0,
                "latency_s": 0.0,
                "batch_id": None,
                "tags": "{}",
            },
            **{"run_id": run_id, "cache_hit": cache_hit, "error_kind": None, "status": "ok"},
            "created_at": utcnow(),
        }
    )


@contract_case(discard_idle_runs, finish_run, run_exists, start_run, utcnow, write_calls)
def test_discard_idle_runs_drops_only_runs_that_changed_nothing(seeded):
    """A done run whose calls all came from the cache and that no row points at leaves no trace;
    a run with a fresh call, a row of its own, or not done is kept (issue 34: quiet re-runs)."""
    db = seeded
    ids = {name: start_run(db, "generate", name, {}) for name in ("idle", "fresh", "wrote", "live")}
    for name in ("idle", "fresh", "wrote"):
        finish_run(db, ids[name], RunStatus.DONE)
    write_calls(db, [], [_call(ids["idle"], 1), _call(ids["fresh"], 1), _call(ids["fresh"], 0)])
    run_sql(db, "update questions set run_id = :r where id = 'q1'", r=ids["wrote"])
    assert discard_idle_runs(db, list(ids.values())) == [ids["idle"]]
    assert not run_exists(db, ids["idle"])
    assert all(run_exists(db, ids[n]) for n in ("fresh", "wrote", "live"))
    assert db.execute("select run_id from llm_calls").fetchall() == [(ids["fresh"],)] * 2
