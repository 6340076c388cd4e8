"""Store contract (issue 33): the same test on SQLite and PostgreSQL for each converted module
(docs/storage.md lists them), and the quoted-text cases the run-time translation got wrong."""

from __future__ import annotations

import json

import pytest
import sqlalchemy as sa
from bound_sql import run_sql
from contract_registry import contract_case

from core.errors import AccessError
from core.store import (
    entity_edits,
    sessions,
    statements,
    tables,
    tables_exam,  # noqa: F401  (its tables join tables.metadata)
    tables_more,  # noqa: F401  (its tables join tables.metadata)
    xrag,
)
from core.store.accounts import create_account, get_account
from core.store.answers import (
    Answer,
    AnswerStatus,
    answer_ids,
    answer_pairs,
    answer_texts,
    answered,
    answers_of_systems,
    answers_version,
    get_answer,
    imported_answer_counts,
    insert_answers,
    max_answer_id,
    question_answer_count,
    question_answers,
    save_answer,
    set_answer_text,
)
from core.store.connection import transaction, utcnow
from core.store.dialect import SQLITE
from core.store.disputes import (
    NewDispute,
    add_dispute,
    all_dispute_ids,
    dispute_question_ids,
    dispute_records,
    get_dispute,
    question_dispute_answers,
    question_disputes,
)
from core.store.generation_failures import GenerationFailure, record_generation_failure
from core.store.judgment_counts import (
    count_judgments,
    imported_verdict_counts,
    judge_models,
    summary_by_rater,
)
from core.store.judgments import (
    JudgmentKind,
    JudgmentStatus,
    NewJudgment,
    RaterKind,
    insert_judgment,
)
from core.store.llm_cache import (
    CacheEntry,
    LedgerEntry,
    cached_keys,
    cached_responses,
    ledger_totals,
    write_calls,
)
from core.store.postgres import POSTGRES
from core.store.schema_upgrade import engine_over
from core.store.sign_in_failures import clear_failures, failures_since, record_failure
from core.store.validation_items import (
    NewValidationItem,
    insert_validation_items,
    validation_overlaps,
    validation_requests,
)

#: Quoted text a migration plants: type names, ``--`` and ``;`` inside quotes (issue 33).
STORED = {
    "k": "integer",
    "n": "a real end",
    "dash": "--",
    "semi": "a;b",
    "both_": "it's; -- not a comment",
}


@contract_case(engine_over)
def test_a_planted_alembic_migration_stores_quoted_text_as_written(db):
    """An Alembic migration's defaults and literal inserts come back byte for byte, on both
    databases (the DDL was rewritten by pattern on PostgreSQL: ``'integer'`` became
    ``'bigint'``; a script was cut at ``;`` and ``--`` inside quotes)."""
    from alembic.migration import MigrationContext
    from alembic.operations import Operations

    with engine_over(db).begin() as conn:
        op = Operations(MigrationContext.configure(conn))
        op.create_table(
            "planted",
            sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
            *(
                sa.Column(name, sa.Text, nullable=False, server_default=v)
                for name, v in STORED.items()
            ),
            sa.Column("note", sa.Text),
        )
        op.execute("insert into planted (id) values (1)")
        op.execute("insert into planted (id, note) values (2, 'it''s; -- not a comment')")
        op.bulk_insert(
            sa.table("planted", sa.column("id"), sa.column("note")), [{"id": 3, "note": "a;b --"}]
        )
    rows = db.query(f"select id, note, {', '.join(STORED)} from planted order by id")
    expected = {"id": 1, "note": None, **STORED}
    assert list(rows) == [
        expected,
        {**expected, "id": 2, "note": "it's; -- not a comment"},
        {**expected, "id": 3, "note": "a;b --"},
    ]


def _judgment(db, rater, status="ok", raw="", evidence=()):
    new = NewJudgment(
        kind=JudgmentKind.ABSOLUTE,
        question_id="q1",
        rater=rater,
        rater_kind=RaterKind.HUMAN if rater.startswith("human:") else RaterKind.AUTO,
        criterion="supported",
        system="s1",
        answer_id=1,
        verdict=None if status == "unparsed" else "yes",
        status=JudgmentStatus(status),
        raw=raw,
        evidence=list(evidence),
        created_at=utcnow(),
    )
    return insert_judgment(db, new)


@contract_case(
    count_judgments,
    imported_verdict_counts,
    insert_judgment,
    judge_models,
    summary_by_rater,
    utcnow,
)
def test_judgment_counts(seeded):
    db = seeded
    assert summary_by_rater(db) == [] and count_judgments(db) == 0
    assert judge_models(db) == set() and imported_verdict_counts(db) == {}
    _judgment(db, "auto:openai:gpt-4o")
    _judgment(db, "auto:openai:gpt-4o", status="unparsed")
    _judgment(db, "auto:lexical")
    _judgment(db, "human:ann", raw='{"file": "a.csv", "row": 2}')
    _judgment(db, "human:ann", raw='{"file": "a.csv", "row": 3}')
    _judgment(db, "human:bob", raw='{"file" broken')
    summary = {(s.rater, s.judgments, s.unparsed) for s in summary_by_rater(db)}
    assert summary == {
        ("auto:lexical", 1, 0),
        ("auto:openai:gpt-4o", 2, 1),
        ("human:ann", 2, 0),
        ("human:bob", 1, 0),
    }
    assert [s.rater for s in summary_by_rater(db)] == sorted(s[0] for s in summary)
    assert count_judgments(db) == 6 and count_judgments(db, "unparsed") == 1
    assert judge_models(db) == {"openai:gpt-4o"}
    assert imported_verdict_counts(db) == {"a.csv": 2}


@contract_case(clear_failures, failures_since, record_failure)
def test_sign_in_failures(db):
    record_failure(db, "10.0.0.1", 100.0, keep_s=50)
    record_failure(db, "10.0.0.1", 120.5, keep_s=50)
    record_failure(db, "10.0.0.2", 130.0, keep_s=50)
    assert failures_since(db, "10.0.0.1", 0) == [100.0, 120.5]
    assert failures_since(db, "10.0.0.1", 110) == [120.5]
    record_failure(db, "10.0.0.2", 160.0, keep_s=50)  # drops every failure before 110
    assert failures_since(db, "10.0.0.1", 0) == [120.5]
    clear_failures(db, "10.0.0.1")
    assert failures_since(db, "10.0.0.1", 0) == [] and failures_since(db, "10.0.0.2", 0) == [
        130.0,
        160.0,
    ]


@pytest.mark.parametrize("table", sorted(tables.metadata.tables))
def test_declared_tables_match_the_migrated_schema(db, table):
    """Each table of :mod:`core.store.tables` has the migrated table's columns, in order."""
    declared = [c.name for c in tables.metadata.tables[table].columns]
    cursor = db.execute(f"select * from {table} where 1 = 0")
    assert [d[0] for d in cursor.description] == declared
    assert isinstance(tables.metadata.tables[table], sa.Table)


def _entry(key: str, response: str = '{"text": "r"}') -> CacheEntry:
    return CacheEntry(key=key, model="m:x", request="{}", response=response, created_at=utcnow())


def _call(model: str, status: str = "ok", hit: int = 0, cost: float = 0.5, **tags: str):
    return LedgerEntry(
        run_id=None, model=model, provider=model.split(":")[0], task="answer", purpose="p",
        tags=json.dumps(tags), cache_key="k", cache_hit=hit, batch_id=None, status=status,
        error_kind=None if status == "ok" else "server", error="", attempts=1, input_tokens=10,
        output_tokens=5, cached_tokens=1, cache_write_tokens=0, cost_usd=cost, latency_s=0.1,
        finish_reason="stop", request_id="", created_at=utcnow(),
    )  # fmt: skip


@contract_case(cached_keys, cached_responses, ledger_totals, transaction, utcnow, write_calls)
def test_llm_cache_and_ledger(db):
    assert cached_responses(db, ["a"]) == {} and cached_keys(db, []) == set()
    with transaction(db):
        write_calls(db, [_entry("a"), _entry("b")], [_call("m:x", system="s1")])
    with transaction(db):  # a stored key is replaced, not doubled
        write_calls(db, [_entry("a", '{"text": "new"}')], [])
    keys = [f"k{i}" for i in range(1200)]  # more than one chunk of keys
    assert cached_responses(db, ["a", "b", "c", *keys]) == {
        "a": '{"text": "new"}',
        "b": '{"text": "r"}',
    }
    assert cached_keys(db, ["b", "c", "b"]) == {"b"}
    with transaction(db):
        write_calls(
            db,
            [],
            [_call("m:x", status="error", cost=0.25, system="s1"), _call("n:y", hit=1, cost=2.0)],
        )
    totals = ledger_totals(db, "model")
    assert [t["group"] for t in totals] == ["n:y", "m:x"]  # costliest first
    assert totals[1] == {
        "group": "m:x",
        "calls": 2,
        "cache_hits": 0,
        "errors": 1,
        "input_tokens": 20,
        "output_tokens": 10,
        "cached_tokens": 2,
        "cost_usd": 0.75,
    }
    assert {t["group"]: t["calls"] for t in ledger_totals(db, "system_name")} == {"s1": 2, None: 1}
    with pytest.raises(ValueError):
        ledger_totals(db, "tags")


@contract_case(
    answer_ids,
    answer_pairs,
    answer_texts,
    answered,
    answers_of_systems,
    answers_version,
    get_answer,
    imported_answer_counts,
    insert_answers,
    max_answer_id,
    question_answer_count,
    question_answers,
    save_answer,
    set_answer_text,
    utcnow,
)
def test_answers(seeded):
    db = seeded  # answers 1 (s1) and 2 (s2) to q1
    assert [a.system for a in question_answers(db, "q1")] == ["s1", "s2"]
    first = get_answer(db, 1)
    assert first is not None and first.text == "answer s1" and first.metadata == {}
    assert get_answer(db, 99) is None
    assert max_answer_id(db) == 2 and question_answer_count(db, "q1") == 2
    assert answered(db, ["s1"]) == {("q1", "s1")} and answered(db, []) == set()
    now = utcnow()
    new_id = save_answer(
        db,
        Answer(
            question_id="q2",
            system="s1",
            created_at=now,
            text="x",
            status=AnswerStatus.ERROR,
            metadata={"imported_from": "a.jsonl"},
        ),
    )
    assert new_id == 3 and answered(db, ["s1", "s2"]) == {("q1", "s1"), ("q1", "s2")}
    again = save_answer(db, Answer(question_id="q2", system="s1", created_at=now, text="y"))
    assert again == 3 and get_answer(db, 3).status == AnswerStatus.OK  # replaced, same id
    before = answers_version(db)
    set_answer_text(db, 3, "longer text")
    assert answers_version(db) != before and get_answer(db, 3).text == "longer text"
    insert_answers(
        db,
        [
            Answer(
                question_id="q2",
                system="s2",
                created_at=now,
                text="z",
                metadata={"imported_from": "b.jsonl"},
            )
        ],
    )
    assert [a.id for a in answers_of_systems(db, ["s2"])] == [2, 4]
    assert answers_of_systems(db, []) == []
    assert answer_ids(db) == {("q1", "s1"): 1, ("q1", "s2"): 2, ("q2", "s1"): 3, ("q2", "s2"): 4}
    assert answer_texts(db)[("q2", "s2")] == (4, "z")
    pairs = answer_pairs(db)
    assert [(p["question_id"], p["system_1"], p["system_2"]) for p in pairs] == [
        ("q1", "s1", "s2"),
        ("q2", "s1", "s2"),
    ]
    assert pairs[1]["text_1"] == "longer text" and pairs[1]["text_2"] == "z"
    assert imported_answer_counts(db) == {"b.jsonl": 1}  # the replaced answer lost its metadata


@contract_case(insert_validation_items, validation_overlaps, validation_requests)
def test_validation_items(db):
    def item(key: str, rater: str = "auto:j", overlap: int = 2) -> NewValidationItem:
        return NewValidationItem(
            task="review", item_key=key, rater=rater, overlap=overlap, requested_by="lead"
        )

    assert insert_validation_items(db, [item("q2"), item("q1"), item("q2")]) == 2
    assert insert_validation_items(db, [item("q2", overlap=5), item("q1", "auto:k", 3)]) == 1
    assert validation_overlaps(db, "review") == {"q2": 2, "q1": 3}  # in order of first request
    assert validation_overlaps(db, "other") == {}
    found = validation_requests(db, "review")
    # ids ascending (PostgreSQL spends an identity value on a skipped duplicate: not 1, 2, 3)
    assert [(v.item_key, v.rater) for v in found] == [
        ("q2", "auto:j"),
        ("q1", "auto:j"),
        ("q1", "auto:k"),
    ]
    assert [v.id for v in found] == sorted(v.id for v in found)
    assert validation_requests(db, "review", "auto:k") == found[2:]


@contract_case(
    add_dispute,
    all_dispute_ids,
    dispute_question_ids,
    dispute_records,
    get_dispute,
    insert_judgment,
    question_dispute_answers,
    question_disputes,
    utcnow,
)
def test_disputes(seeded):
    db = seeded
    gt = _judgment(db, "auto:gt", evidence=[{"quote": "a"}])
    ctx = _judgment(db, "auto:ctx")
    new = NewDispute(
        question_id="q1",
        answer_id=1,
        system="s1",
        gt_judgment_id=gt,
        ctx_judgment_id=ctx,
        gt_verdict="yes",
        ctx_verdict="no",
    )
    assert add_dispute(db, new) is True and add_dispute(db, new) is False
    (stored,) = question_disputes(db, "q1")
    assert get_dispute(db, stored.id) == stored and get_dispute(db, 99) is None
    assert stored.gt_judgment_id == gt and question_disputes(db, "q2") == []
    assert all_dispute_ids(db) == [stored.id]
    assert dispute_question_ids(db, [stored.id, 99]) == {stored.id: "q1"}
    assert dispute_question_ids(db, []) == {}
    assert question_dispute_answers(db, "q1") == [("s1", "answer s1")]
    (record,) = dispute_records(db)
    assert record.references == ["ref"] and record.answer == "answer s1"
    assert record.gt_rater == "auto:gt" and record.gt_evidence == [{"quote": "a"}]
    assert record.ctx_rater == "auto:ctx" and record.ctx_evidence == []


class _On:
    """A stand-in database of one dialect (its store ``Dialect``: ``compiled`` reads its name,
    ``statements.insert`` its insert construct)."""

    def __init__(self, name: str) -> None:
        self.dialect = {"sqlite": SQLITE, "postgresql": POSTGRES}[name]


def _statements(dialect: str, key: str, keys: list[int]) -> list[sa.Executable]:
    j, f = tables.judgments, tables.sign_in_failures
    new = statements.insert(_On(dialect), f)
    return [
        sa.select(j.c.id).where(j.c.rater == key, j.c.id.in_(keys), j.c.raw.like('{"file"%')),
        sa.select(statements.json_text(j.c.raw, key)).where(j.c.supersedes.in_(keys)),
        sa.update(f).where(f.c.client == key).values(failed_at=len(keys) + 0.5),
        new.values(client=key, failed_at=1.0).on_conflict_do_nothing(),
    ]


@pytest.mark.parametrize("dialect", ["sqlite", "postgresql"])
def test_cached_compilation_gives_what_a_fresh_compile_gives(dialect):
    on = _On(dialect)
    for key, keys in (("a", [1, 2]), ("b", [3, 4]), ("c%", [5, 6, 7]), ("d", [8, 9])):
        for statement in _statements(dialect, key, keys):
            fresh = statement.compile(
                dialect=statements.sa_dialect(dialect), compile_kwargs={"render_postcompile": True}
            )
            params = fresh.construct_params()
            want = [params[n] for n in fresh.positiontup] if fresh.positional else params
            assert statements.compiled(on, statement) == (str(fresh), want)


@contract_case(
    utcnow,
    xrag.add_article_note,
    xrag.add_distractors,
    xrag.add_pair,
    xrag.add_xrag_item,
    xrag.article_notes,
    xrag.article_pairs,
    xrag.confirmed_pairs,
    xrag.delete_distractors,
    xrag.english_xrag_questions,
    xrag.has_distractors,
    xrag.pair_distractors,
    xrag.qa_note_sources,
    xrag.set_pair_verdict,
    xrag.translated_qa_notes,
    xrag.xrag_item_count,
    xrag.xrag_item_exists,
)
def test_xrag(seeded):
    db = seeded
    now = utcnow()
    db["documents"].insert(
        {
            "id": "d2",
            "kind": "article",
            "source": "test",
            "title": "Other",
            "text": "y",
            "n_chars": 1,
            "n_tokens": 1,
            "sha256": "",
            "created_at": now,
            "updated_at": now,
        }
    )
    pair = {"article_a": "d1", "article_b": "d2", "shared_entities": ["Paris"], "days_apart": 3}
    assert xrag.add_pair(db, pair, now) is True and xrag.add_pair(db, pair, now) is False
    (stored,) = xrag.article_pairs(db)
    assert stored["shared_entities"] == ["Paris"] and stored["related"] is None
    assert xrag.confirmed_pairs(db, "title-entities") == set()
    verdict = {**pair, "method": "m", "related": "no", "status": "rejected", "provenance": {"a": 1}}
    xrag.set_pair_verdict(db, verdict)
    assert xrag.article_pairs(db) == [] and xrag.confirmed_pairs(db, "m") == {("d1", "d2")}
    assert xrag.article_pairs(db, None)[0]["provenance"] == {"a": 1}
    note = {"article_id": "d2", "kind": "qa", "question": "q", "answer": "a", "created_at": now}
    xrag.add_article_note(db, {**note, "provenance": {"builder": "llm"}})
    xrag.add_article_note(db, {**note, "language": "de", "provenance": "{}"})
    assert [n["language"] for n in xrag.article_notes(db, "d2", "qa")] == ["en"]
    assert [n["language"] for n in xrag.translated_qa_notes(db, "d2")] == ["de"]
    assert [s["provenance"] for s in xrag.qa_note_sources(db)] == [{"builder": "llm"}, {}]
    pair_id = stored["id"]
    item = {"question_id": "q2", "pair_id": pair_id, "qtype": "set", "builder": "llm"}
    xrag.add_xrag_item(db, {**item, "sub_questions": [{"question": "x"}], "created_at": now})
    assert xrag.xrag_item_count(db, pair_id, "set") == 1
    assert xrag.xrag_item_count(db, pair_id, "multihop") == 0
    assert xrag.xrag_item_exists(db, pair_id, builder="llm")
    assert not xrag.xrag_item_exists(db, pair_id, builder="llm", qtype="multihop")
    (question,) = xrag.english_xrag_questions(db, ["accepted", "edited"])
    assert question["id"] == "q2" and question["pair_id"] == pair_id
    assert question["answers"] == ["ref"] and xrag.english_xrag_questions(db, []) == []
    assert not xrag.has_distractors(db, pair_id)
    xrag.add_distractors(
        db,
        [
            {"pair_id": pair_id, "language": "en", "rank": r, "document_id": "d1",
             "english_id": "d1", "score": 1.0 / r}
            for r in (2, 1, 3)
        ],
    )  # fmt: skip
    assert [d["rank"] for d in xrag.pair_distractors(db, pair_id)] == [1, 2, 3]
    assert xrag.pair_distractors(db, pair_id, "de") == [] and xrag.has_distractors(db, pair_id)
    xrag.delete_distractors(db, pair_id)
    assert not xrag.has_distractors(db, pair_id)


@contract_case(
    entity_edits.document_edits,
    entity_edits.documents_with_entities,
    entity_edits.entity_ids_by_name,
    entity_edits.entity_question_counts,
    entity_edits.flagged_questions,
    entity_edits.get_base,
    entity_edits.insert_edit,
    entity_edits.mention_rows,
    entity_edits.mention_spans,
    entity_edits.passage_starts,
    entity_edits.put_base,
    entity_edits.questions_about,
    entity_edits.replace_entities,
    entity_edits.stored_entities,
    transaction,
)
def test_entity_edits(seeded):
    db = seeded  # document d1 (no passages yet), questions q1, q2
    db["passages"].insert_all(
        [
            {"document_id": "d1", "idx": i, "start": 10 * i, "end": 10 * i + 9, "text": "p",
             "n_tokens": 1}
            for i in (1, 0)
        ]
    )  # fmt: skip
    assert entity_edits.passage_starts(db, "d1") == [0, 10]
    first = entity_edits.insert_edit(db, "d1", "rename", {"from": "A", "to": "B"}, "ann")
    undo = entity_edits.insert_edit(db, "d1", "undo", {}, "ann", undoes=first)
    edits = entity_edits.document_edits(db, "d1")
    assert [(e["id"], e["undone_by"]) for e in edits] == [(first, undo), (undo, None)]
    assert edits[0]["payload"] == {"from": "A", "to": "B"}
    assert entity_edits.get_base(db, "d1", "m", "r1") is None
    entity_edits.put_base(db, "d1", "m", "r1", [{"name": "Ann"}])
    entity_edits.put_base(db, "d1", "m", "r1", [{"name": "other"}])  # written once
    assert entity_edits.get_base(db, "d1", "m", "r1") == [{"name": "Ann"}]
    ann = {"name": "Ann", "aliases": ["A."], "label": "PERSON", "mentions": [(12, 15, "Ann", 1),
           (2, 5, "A.", 0)]}  # fmt: skip
    bob = {"name": "Bob", "aliases": [], "label": "PERSON", "mentions": [(20, 23, "Bob", 2)]}
    with transaction(db):
        entity_edits.replace_entities(db, "d1", "m", None, [ann, bob], referenced=set())
    ids = entity_edits.entity_ids_by_name(db, "d1", "m")
    stored = entity_edits.stored_entities(db, "d1", "m")
    assert [(e["name"], e["rank"], e["aliases"]) for e in stored] == [
        ("Ann", 1, ["A."]),
        ("Bob", 2, []),
    ]
    assert stored[0]["mentions"] == [[2, 5, "A."], [12, 15, "Ann"]]
    assert "mentions" not in entity_edits.stored_entities(db, "d1", "m", chains=False)[0]
    spans = entity_edits.mention_rows(db, ids["Ann"])
    assert [(r["start"], r["end"], r["passage_idx"]) for r in spans] == [(2, 5, 0), (12, 15, 1)]
    assert entity_edits.mention_spans(db, ids["Ann"], [spans[1]["id"], 999]) == {
        spans[1]["id"]: (12, 15)
    }
    assert entity_edits.mention_spans(db, ids["Ann"], []) == {}
    assert entity_edits.documents_with_entities(db) == [("d1", "Book")]
    run_sql(db, "update questions set entity_id = :e where id = 'q1'", e=ids["Bob"])
    meta = json.dumps({"entity_ids": [ids["Ann"]], "needs_review": {"edit": first}})
    run_sql(db, "update questions set metadata = :m where id = 'q2'", m=meta)
    assert entity_edits.entity_question_counts(db, "d1") == {ids["Bob"]: 1}
    about = entity_edits.questions_about(db, [ids["Ann"], ids["Bob"]])
    assert [q["id"] for q in about] == ["q1", "q2"] and entity_edits.questions_about(db, []) == []
    assert [q["id"] for q in entity_edits.questions_about(db, [ids["Ann"]])] == ["q2"]
    flagged = entity_edits.flagged_questions(db, first, "accepted")
    assert [q["id"] for q in flagged] == ["q2"] and flagged[0]["metadata"]["entity_ids"]
    assert entity_edits.flagged_questions(db, undo, "accepted") == []
    with transaction(db):  # Bob kept (a question points at it), Ann renamed onto its row
        entity_edits.replace_entities(
            db, "d1", "m", None, [{**ann, "name": "Anne", "keep": "Ann"}], referenced={ids["Bob"]}
        )
    assert entity_edits.entity_ids_by_name(db, "d1", "m") == {"Anne": ids["Ann"], "Bob": ids["Bob"]}
    assert [e["name"] for e in entity_edits.stored_entities(db, "d1", "m")] == ["Anne"]
    assert entity_edits.mention_rows(db, ids["Bob"]) == []


@contract_case(
    create_account,
    get_account,
    sessions.create_session,
    sessions.end_session,
    sessions.get_session,
    sessions.session_account,
    sessions.session_hash,
)
def test_sessions(db):
    create_account(db, "ann")
    account = get_account(db, "ann")
    plain = sessions.create_session(db, "ann", account.token_id)
    key = sessions.session_hash(plain)
    stored = sessions.get_session(db, key)
    assert stored.name == "ann" and stored.revoked_at is None and stored.id_hash != plain
    assert sessions.get_session(db, "unknown") is None
    assert sessions.session_account(db, key).name == "ann"
    assert sessions.end_session(db, key) is True and sessions.end_session(db, key) is False
    assert sessions.get_session(db, key).revoked_at is not None
    with pytest.raises(AccessError):
        sessions.session_account(db, key)


@contract_case(record_generation_failure, utcnow)
def test_generation_failures(db):
    failure = GenerationFailure(
        run_id=None,
        document_id=None,
        entity_id=None,
        model="m:x",
        prompt_hash="h",
        kind="unparsed",
        error="e" * 1500,
        raw="{",
        created_at=utcnow(),
    )
    record_generation_failure(db, failure)
    (row,) = db.query("select model, kind, error, raw from generation_failures")
    assert row == {"model": "m:x", "kind": "unparsed", "error": "e" * 1000, "raw": "{"}
