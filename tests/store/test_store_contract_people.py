"""Store contract (issue 33), the people, corpus and export batch: every public function of
``accounts``, ``adjudications``, ``benchmark``, ``copy_db``, ``documents``, ``entities``,
``exam_bank`` and ``export`` called on SQLite and PostgreSQL (``db`` / ``seeded`` run on both);
on PostgreSQL a SQLite-spelled statement would be refused by the connection, not rewritten."""

from __future__ import annotations

import dataclasses

import pytest
from bound_sql import run_sql
from contract_registry import contract_case

from core.errors import AccessError, InputError
from core.store import (
    accounts,
    adjudications,
    benchmark,
    copy_db,
    documents,
    entities,
    exam_bank,
    export,
    tables,
    tables_people,
)
from core.store.connection import transaction, utcnow
from core.store.database import open_db
from core.store.documents import Document, Passage
from core.store.judgments import JudgmentKind, JudgmentStatus, NewJudgment, RaterKind
from core.store.judgments import insert_judgment as _insert_judgment
from core.store.reviews import NewReview, ReviewDecision, insert_review
from core.store.row_stage import drop_rows_stage, switch_rows
from core.store.runs import start_run


@pytest.mark.parametrize("table", ["accounts", "adjudications", "exam_banks", "exam_queries"])
def test_declared_tables_match_the_migrated_schema(db, table):
    """Each table of :mod:`core.store.tables_people` has the migrated table's columns, in
    order."""
    declared = [c.name for c in tables_people.metadata.tables[table].columns]
    cursor = db.execute(f"select * from {table} where 1 = 0")
    assert [d[0] for d in cursor.description] == declared


@contract_case(
    accounts.account_names,
    accounts.accounts_exist,
    accounts.active_account,
    accounts.check_name,
    accounts.create_account,
    accounts.excluded_names,
    accounts.get_account,
    accounts.list_accounts,
    accounts.mark_token_used,
    accounts.named_and_excluded,
    accounts.reissue_token,
    accounts.revoke_account,
    accounts.set_labels_excluded,
    accounts.verify_token,
    transaction,
)
def test_accounts(db):
    assert accounts.check_name("  ann ") == "ann"
    with pytest.raises(InputError):
        accounts.check_name("a\x00b")
    assert not accounts.accounts_exist(db) and accounts.list_accounts(db) == []
    token = accounts.create_account(db, "ann", "admin")
    accounts.create_account(db, "bob")
    assert accounts.accounts_exist(db) and accounts.account_names(db) == {"ann", "bob"}
    with pytest.raises(InputError):
        accounts.create_account(db, "ann")  # active: refused
    with pytest.raises(InputError):
        accounts.create_account(db, "cy", "king")
    found = accounts.list_accounts(db)
    assert [(a.name, a.role) for a in found] == [("ann", "admin"), ("bob", "annotator")]
    ann = accounts.verify_token(db, token)
    assert ann.name == "ann" and ann.token_id == token.split(".")[0]
    for wrong in ("", "nodot", f"{ann.token_id}.wrong", "unknown.secret"):
        with pytest.raises(AccessError):
            accounts.verify_token(db, wrong)
    with transaction(db):
        accounts.mark_token_used(db, ann.token_id)
    with pytest.raises(AccessError):
        accounts.mark_token_used(db, ann.token_id)  # once only
    with pytest.raises(AccessError, match="already used"):
        accounts.verify_token(db, token)
    fresh = accounts.reissue_token(db, "ann")
    assert accounts.verify_token(db, fresh).token_used_at is None
    with pytest.raises(AccessError):
        accounts.verify_token(db, token)
    with pytest.raises(InputError):
        accounts.reissue_token(db, "nobody")
    with pytest.raises(InputError, match="active"):
        accounts.set_labels_excluded(db, "bob", True, "ann")
    accounts.revoke_account(db, "bob")
    accounts.revoke_account(db, "bob")  # already revoked: nothing changes
    with pytest.raises(InputError):
        accounts.revoke_account(db, "nobody")
    bob = accounts.get_account(db, "bob")
    assert bob is not None and bob.revoked_at is not None
    assert accounts.active_account(db, "bob") is None and accounts.get_account(db, "x") is None
    assert accounts.active_account(db, "ann").role == "admin"
    assert accounts.excluded_names(db) == set()
    assert accounts.named_and_excluded(db) == ({"ann", "bob"}, set())
    accounts.set_labels_excluded(db, "bob", True, "ann")
    assert accounts.excluded_names(db) == {"bob"}
    assert accounts.named_and_excluded(db) == ({"ann", "bob"}, {"bob"})
    assert accounts.get_account(db, "bob").labels_excluded_at is not None
    with pytest.raises(InputError, match="already"):
        accounts.set_labels_excluded(db, "bob", True, "ann")
    with pytest.raises(InputError):
        accounts.set_labels_excluded(db, "nobody", False, "ann")
    accounts.set_labels_excluded(db, "bob", False, "ann")
    assert accounts.excluded_names(db) == set()
    again = accounts.create_account(db, "bob", "adjudicator")  # a revoked one: a new token
    renewed = accounts.verify_token(db, again)
    assert renewed.role == "adjudicator" and renewed.revoked_at is None
    assert [a.name for a in accounts.list_accounts(db)] == ["ann", "bob"]


@contract_case(
    adjudications.effective_adjudications,
    adjudications.insert_adjudication,
    adjudications.item_adjudication,
    adjudications.own_adjudication,
)
def test_adjudications(db):
    new = adjudications.NewAdjudication
    assert adjudications.effective_adjudications(db, "review") == []
    first = adjudications.insert_adjudication(
        db, new(task="review", item_key="q1", label="accept", adjudicator="carol")
    )
    other = adjudications.insert_adjudication(
        db, new(task="review", item_key="q2", label="reject", adjudicator="dan", rationale="r")
    )
    again = adjudications.insert_adjudication(
        db,
        new(task="review", item_key="q1", label="reject", adjudicator="carol", supersedes=first),
    )
    adjudications.insert_adjudication(
        db, new(task="disputes", item_key="1", label="x", adjudicator="carol")
    )
    found = adjudications.effective_adjudications(db, "review")
    assert [(a.id, a.label) for a in found] == [(other, "reject"), (again, "reject")]
    assert found[0].rationale == "r" and found[1].supersedes == first
    own = adjudications.own_adjudication(db, "review", "q1", "carol")
    assert own is not None and own.id == again
    assert adjudications.own_adjudication(db, "review", "q1", "dan") is None
    assert adjudications.item_adjudication(db, "review", "q2").adjudicator == "dan"
    assert adjudications.item_adjudication(db, "review", "q3") is None


def _document(doc_id: str, **kw: object) -> Document:
    values: dict[str, object] = {
        "id": doc_id, "text": f"text of {doc_id}", "kind": "book", "source": "test",
        "title": doc_id.upper(), "n_chars": 9, "n_tokens": 3, "sha256": f"h{doc_id}",
        "metadata": {"k": 1}, "created_at": "t0", "updated_at": "t0", **kw,
    }  # fmt: skip
    return Document(**values)  # type: ignore[arg-type]


def _passages(n: int) -> list[Passage]:
    return [
        Passage(idx=i, start=10 * i, end=10 * i + 5, text=f"p{i}", n_tokens=1) for i in range(n)
    ]


@contract_case(
    documents.count_passages,
    documents.document_exists,
    documents.document_headers,
    documents.document_ids,
    documents.document_stamp,
    documents.document_summaries,
    documents.document_totals,
    documents.documents_by_id,
    documents.documents_of_kind,
    documents.first_passages,
    documents.get_document,
    documents.get_passages,
    documents.passage_key,
    documents.passages_at,
    documents.replace_passages,
    documents.searchable_documents,
    documents.version_id,
    documents.write_document,
    transaction,
)
def test_documents(db):
    assert documents.get_document(db, "b1") is None and documents.document_ids(db) == []
    documents.write_document(db, _document("b1"))
    documents.write_document(db, _document("a1", kind="article", language="de", parent_id="b1"))
    documents.write_document(db, _document("a2", kind="article", title="Second"))
    documents.write_document(db, _document("b1", title="Renamed", metadata={"k": 2}))  # replaced
    book = documents.get_document(db, "b1")
    assert book is not None and book.title == "Renamed" and book.metadata == {"k": 2}
    assert documents.document_stamp(db, "b1") == documents.DocumentStamp("hb1", "t0", "Renamed", "")
    assert documents.document_stamp(db, "zz") is None
    assert set(documents.documents_by_id(db, ["a1", "zz", "b1"])) == {"a1", "b1"}
    assert documents.document_exists(db, "a2") and not documents.document_exists(db, "zz")
    assert documents.document_ids(db) == ["a1", "a2", "b1"]
    assert documents.document_ids(db, ["article"]) == ["a1", "a2"]
    assert [d.id for d in documents.documents_of_kind(db, "article")] == ["a1", "a2"]
    assert [d.id for d in documents.documents_of_kind(db, "article", language="de")] == ["a1"]
    assert [d.id for d in documents.documents_of_kind(db, "article", originals=True)] == ["a2"]
    assert documents.version_id(db, "b1", "de") == "a1"
    assert documents.version_id(db, "b1", "fr") is None
    with transaction(db):
        documents.replace_passages(db, "b1", _passages(3))
    with transaction(db):
        documents.replace_passages(db, "a1", _passages(2))
        documents.replace_passages(db, "a1", _passages(1))  # replaced as a whole
    assert documents.count_passages(db, "b1") == 3 and documents.count_passages(db, "a1") == 1
    assert documents.passage_key(db, "b1") == ("hb1", 3) and documents.passage_key(db, "z") is None
    assert documents.get_passages(db, "b1") == _passages(3)
    assert documents.passages_at(db, "b1", [2, 0, 7]) == [_passages(3)[0], _passages(3)[2]]
    assert documents.passages_at(db, "b1", []) == []
    assert documents.first_passages(db, "b1", 2) == _passages(2)
    summaries = documents.document_summaries(db)
    assert [(s.id, s.passages, s.tokens) for s in summaries] == [
        ("a1", 1, 3),
        ("a2", 0, 3),
        ("b1", 3, 3),
    ]
    headers = documents.document_headers(db, ["a1", "zz"])
    assert list(headers) == ["a1"] and headers["a1"].parent_id == "b1"
    assert documents.document_headers(db, []) == {}
    found = documents.searchable_documents(db, ["b1"])
    assert [(h.kind, h.id) for h in found] == [("article", "a1"), ("book", "b1")]
    assert documents.searchable_documents(db, ["a2"]) == []
    assert documents.searchable_documents(db, []) == []
    assert documents.document_totals(db) == [
        {"source": "test", "kind": "article", "documents": 2, "tokens": 6},
        {"source": "test", "kind": "book", "documents": 1, "tokens": 3},
    ]


@contract_case(
    entities.entities_by_id,
    entities.entity_passage_indexes,
    entities.get_entities,
    entities.get_entity,
    entities.get_mentions,
    entities.latest_method_entity_names,
    entities.mention_passages,
    entities.mention_spans,
    entities.replace_entities,
    start_run,
)
def test_entities(seeded):
    db = seeded  # document d1, questions q1, q2
    run_id = start_run(db, "entities", "e", {})
    drafts = [entities.EntityDraft("Ann", ["A."], "PERSON", 2), entities.EntityDraft("Bob")]
    mentions = [
        entities.MentionDraft("Ann", 12, 15, "Ann", 1),
        entities.MentionDraft("Ann", 2, 4, "A.", 0),
        entities.MentionDraft("Bob", 30, 33, "Bob", None),
    ]
    entities.replace_entities(db, "d1", "m", run_id, drafts, mentions)
    found = entities.get_entities(db, "d1", "m")
    assert [(e.name, e.rank, e.aliases) for e in found] == [("Ann", 1, ["A."])]  # Bob: 0 mentions
    ann = found[0]
    assert entities.get_entity(db, ann.id) == ann and entities.get_entity(db, 999) is None
    assert entities.get_entities(db, "d1", "m", top=1) == [ann]
    assert entities.latest_method_entity_names(db, "d1", 5) == ["Ann", "Bob"]
    assert entities.latest_method_entity_names(db, "zz", 5) == []
    chain = entities.get_mentions(db, ann.id)
    assert [(m.start, m.surface, m.passage_idx) for m in chain] == [(2, "A.", 0), (12, "Ann", 1)]
    bob = entities.entities_by_id(db, [ann.id + 1, ann.id])
    assert [e.name for e in bob] == ["Ann", "Bob"] and entities.entities_by_id(db, []) == []
    assert entities.mention_spans(db, [ann.id, bob[1].id]) == {
        ann.id: [(0, 2, 4), (1, 12, 15)],
        bob[1].id: [],
    }
    assert entities.entity_passage_indexes(db, ann.id) == [0, 1]
    assert entities.mention_passages(db, [ann.id, bob[1].id]) == [0, 1]
    assert entities.mention_passages(db, []) == []
    run_sql(db, "update questions set entity_id = :e where id = 'q1'", e=bob[1].id)
    again = [entities.EntityDraft("Cy", [], "PERSON", 1), entities.EntityDraft("Ann")]
    entities.replace_entities(db, "d1", "m", run_id, again, [])
    kept = {e.name: e for e in entities.entities_by_id(db, [ann.id, bob[1].id, ann.id + 2])}
    assert kept["Ann"].id == ann.id and kept["Ann"].rank == 2  # same id, new rank
    assert kept["Bob"].rank == 3 and kept["Bob"].n_mentions == 0  # a question points at it
    assert kept["Cy"].rank == 1 and entities.get_mentions(db, ann.id) == []
    entities.replace_entities(db, "d1", "m", run_id, [], [])
    assert [e.name for e in entities.entities_by_id(db, list(kept_ids(kept)))] == ["Bob"]


def kept_ids(kept: dict[str, entities.Entity]) -> list[int]:
    return sorted(e.id for e in kept.values())


def _exam_question(qid: str, query: str = "Q1") -> exam_bank.ExamQuestion:
    return exam_bank.ExamQuestion(
        id=f"b::{qid}", bank_id="b", query_id=query, qid=qid, question=f"what {qid}?",
        choices={"A": "yes", "B": "no"} if qid.endswith("1") else None, correct_key="A",
        answers=["yes"], metadata={"m": qid},
    )  # fmt: skip


@contract_case(
    exam_bank.bank_articles,
    exam_bank.bank_exists,
    exam_bank.bank_queries,
    exam_bank.bank_questions,
    exam_bank.count_bank_questions,
    exam_bank.delete_bank_articles,
    exam_bank.insert_exam_questions,
    exam_bank.query_exists,
    exam_bank.questions_per_query,
    exam_bank.replace_article,
    exam_bank.replace_bank,
    exam_bank.run_query_ids,
    exam_bank.stage_exam_questions,
    switch_rows,
    drop_rows_stage,
    start_run,
    transaction,
)
def test_exam_bank(seeded):
    db = seeded
    bank = exam_bank.ExamBank("b", "Bank", "jsonl", "b.jsonl", "d1", 2, 3)
    assert not exam_bank.bank_exists(db, "b")
    with transaction(db):
        exam_bank.replace_bank(db, bank, {"Q1": "first", "Q2": "second"}, {"Q1": "d1"})
        exam_bank.insert_exam_questions(db, [_exam_question("x1"), _exam_question("x2")])
    stage = exam_bank.stage_exam_questions(db, [_exam_question("y1", "Q2")])
    assert stage.target == "exam_questions"
    with transaction(db):
        switch_rows(db, stage)
    drop_rows_stage(db, stage)
    assert exam_bank.bank_exists(db, "b") and exam_bank.query_exists(db, "b", "Q2")
    assert not exam_bank.query_exists(db, "b", "Q9")
    found = exam_bank.bank_questions(db, "b")
    assert [q.id for q in found] == ["b::x1", "b::x2", "b::y1"]
    assert found[0].choices == {"A": "yes", "B": "no"} and found[1].choices is None
    assert found[0].answers == ["yes"] and found[0].metadata == {"m": "x1"}
    assert exam_bank.bank_queries(db, "b") == [
        {"query_id": "Q1", "query_text": "first", "document_id": "d1", "n_questions": 2},
        {"query_id": "Q2", "query_text": "second", "document_id": None, "n_questions": 1},
    ]
    assert exam_bank.count_bank_questions(db, "b") == 3
    assert exam_bank.count_bank_questions(db, "b", "Q2") == 1
    assert exam_bank.questions_per_query(db, "b") == {"Q1": 2, "Q2": 1}
    start_run(db, "exam", "e", {}, run_id="r1")
    db["exam_runs"].insert(
        {"id": "r1", "bank_id": "b", "qa_model": "m", "verification": "v", "created_at": utcnow()}
    )
    assert (
        exam_bank.run_query_ids(db, "r1") == ["Q1", "Q2"] and exam_bank.run_query_ids(db, "x") == []
    )
    article = exam_bank.ExamArticle("b", "Q1", "s1", "generated", "text", 3, {"a": 1})
    with transaction(db):
        first = exam_bank.replace_article(db, article)
        assert exam_bank.replace_article(db, article) == first  # the same: kept
        second = exam_bank.replace_article(
            db, exam_bank.ExamArticle("b", "Q2", "s1", "generated", "other", 4)
        )
    (stored,) = [a for a in exam_bank.bank_articles(db, "b") if a["id"] == first]
    assert stored["metadata"] == {"a": 1} and stored["text"] == "text"
    with transaction(db):
        changed = exam_bank.replace_article(db, dataclasses.replace(article, text="new"))
    assert changed != first
    assert [a["query_id"] for a in exam_bank.bank_articles(db, "b")] == ["Q1", "Q2"]
    exam_bank.delete_bank_articles(db, "b", keep=[second])
    assert [a["id"] for a in exam_bank.bank_articles(db, "b")] == [second]
    exam_bank.delete_bank_articles(db, "b")
    assert exam_bank.bank_articles(db, "b") == []
    with transaction(db):  # again: old questions go, queries replaced
        exam_bank.replace_bank(db, bank, {"Q1": "first again"})
    assert exam_bank.bank_questions(db, "b") == [] and exam_bank.count_bank_questions(db, "b") == 0
    assert exam_bank.bank_queries(db, "b")[0]["query_text"] == "first again"


def _verdict(db, question: str, rater: str, verdict: str | None = "yes", supersedes=None) -> int:
    return _insert_judgment(
        db,
        NewJudgment(
            kind=JudgmentKind.ABSOLUTE, question_id=question, rater=rater,
            rater_kind=RaterKind.AUTO, criterion="supported", system="s1", answer_id=1,
            verdict=verdict, status=JudgmentStatus.OK if verdict else JudgmentStatus.UNPARSED,
            supersedes=supersedes, created_at=utcnow(),
        ),
    )  # fmt: skip


@contract_case(
    benchmark.answers_of,
    benchmark.benchmark_questions,
    benchmark.passages_of,
    benchmark.reviews_of,
    benchmark.status_counts,
    benchmark.verdicts_of,
    insert_review,
    _insert_judgment,
    documents.replace_passages,
)
def test_benchmark(seeded, monkeypatch):
    db = seeded  # q1 pending (answers 1, 2), q2 accepted, both of d1
    monkeypatch.setattr(benchmark, "CHUNK", 1)  # every read in several chunks
    assert [q.id for q in benchmark.benchmark_questions(db, ["accepted", "pending"])] == [
        "q1",
        "q2",
    ]
    assert [q.id for q in benchmark.benchmark_questions(db, ["accepted"], ["d1"])] == ["q2"]
    assert benchmark.benchmark_questions(db, ["accepted"], ["zz"]) == []
    assert benchmark.benchmark_questions(db, [], None) == []
    first = insert_review(db, NewReview(question_id="q2", annotator="ann", decision="accept"))
    insert_review(db, NewReview(question_id="q1", annotator="bob", decision="reject"))
    insert_review(
        db, NewReview(question_id="q2", annotator="ann", decision="edit", supersedes=first)
    )
    insert_review(db, NewReview(question_id="q2", annotator="cy", decision=ReviewDecision.SKIPPED))
    found = benchmark.reviews_of(db, ["q2", "q1"])
    assert [(r.question_id, r.decision) for r in found] == [("q1", "reject"), ("q2", "edit")]
    assert [(a.question_id, a.system) for a in benchmark.answers_of(db, ["q1", "q2"])] == [
        ("q1", "s1"),
        ("q1", "s2"),
    ]
    old = _verdict(db, "q1", "auto:a")
    new = _verdict(db, "q1", "auto:a", "no", supersedes=old)
    other = _verdict(db, "q2", "auto:b")
    _verdict(db, "q2", "auto:c", None)
    assert [j.id for j in benchmark.verdicts_of(db, ["q1", "q2"])] == [new, other]
    assert benchmark.verdicts_of(db, []) == []
    with transaction(db):
        documents.replace_passages(db, "d1", _passages(3))
    found_passages = benchmark.passages_of(db, [("d1", 2), ("d1", 0), ("d1", 2), ("zz", 1)])
    assert [(p.document_id, p.idx, p.end) for p in found_passages] == [("d1", 0, 5), ("d1", 2, 25)]
    assert benchmark.status_counts(db) == {"accepted": 1, "pending": 1}
    assert benchmark.status_counts(db, ["d1"]) == {"accepted": 1, "pending": 1}
    assert benchmark.status_counts(db, []) == {}


@contract_case(
    export.export_rows,
    export.exportable,
    _insert_judgment,
)
def test_export(seeded):
    db = seeded
    names = export.exportable(db)
    assert {"questions", "judgments", "accounts"} <= names
    assert not any(n.startswith("sqlite") for n in names)
    with pytest.raises(ValueError):
        export.export_rows(db, "nope")
    old = _verdict(db, "q1", "auto:a")
    new = _verdict(db, "q1", "auto:a", "no", supersedes=old)
    _verdict(db, "q2", "auto:c", None)
    columns, found = export.export_rows(db, "judgments")
    assert columns == [c.name for c in tables.judgments.columns]
    assert [r[0] for r in found] == [new]
    _, every = export.export_rows(db, "judgments", all_rows=True)
    assert sorted(r[0] for r in every) == [old, new, new + 1]
    columns, found = export.export_rows(db, "questions")
    assert columns[0] == "id" and sorted(r[0] for r in found) == ["q1", "q2"]


@contract_case(
    copy_db.canonical,
    copy_db.check_empty,
    copy_db.check_same_schema,
    copy_db.copied_tables,
    copy_db.copy_database,
    copy_db.foreign_keys,
    copy_db.is_postgres,
    copy_db.plan_table,
    copy_db.read_rows,
    copy_db.row_digest,
    copy_db.snapshot,
    copy_db.table_checksum,
    copy_db.table_order,
    copy_db.writable_columns,
    open_db,
    _insert_judgment,
)
def test_copy_db(seeded, init_location):
    src = seeded
    _verdict(src, "q1", "auto:a")
    old = _verdict(src, "q1", "auto:b")
    _verdict(src, "q1", "auto:b", "no", supersedes=old)
    assert copy_db.is_postgres(src) == (src.dialect.name == "postgresql")
    names = copy_db.copied_tables(src)
    assert "judgments" in names and "schema_migrations" not in names and names == sorted(names)
    assert ("question_id", "questions", "id") in copy_db.foreign_keys(src, "answers")
    assert ("supersedes", "judgments", "id") in copy_db.foreign_keys(src, "judgments")
    assert "system_name" not in copy_db.writable_columns(src, "llm_calls")
    assert copy_db.writable_columns(src, "answers")[:2] == ["id", "question_id"]
    order = copy_db.table_order(src, ["answers", "questions", "documents"])
    assert order == ["documents", "questions", "answers"]
    plan = copy_db.plan_table(src, src, "judgments")
    assert plan.pk == ("id",) and plan.self_refs == (("supersedes", "id"),)
    assert len(list(copy_db.read_rows(src, plan, chunk=2))) == 3
    assert copy_db.canonical(b"\x01") == {"hex": "01"} and copy_db.canonical(1.5) == 1.5
    assert copy_db.row_digest([1, "a"]) != copy_db.row_digest([1.0, "a"])
    assert copy_db.table_checksum(iter([(1,), (2,)])) == copy_db.table_checksum(iter([(2,), (1,)]))
    with pytest.raises(copy_db.CopyError, match="not empty"):
        copy_db.check_empty(src)
    applied = [r[0] for r in src.execute("select name from schema_migrations").fetchall()]
    copy_db.check_same_schema(src, src, applied)
    with pytest.raises(copy_db.CopyError, match="schema versions"):
        copy_db.check_same_schema(src, src, applied[:-1])
    with copy_db.snapshot(src):
        assert copy_db.table_checksum(copy_db.read_rows(src, plan))[0] == 3
    dest = open_db(init_location("dest"))
    try:
        done = {c.table: c for c in copy_db.copy_database(src, dest, applied)}
        assert done["judgments"].dest_rows == 3 and done["questions"].source_rows == 2
        assert (
            done["answers"].checksum
            == copy_db.table_checksum(
                copy_db.read_rows(dest, copy_db.plan_table(dest, dest, "answers"))
            )[1]
        )
        assert all(c.source_rows == c.dest_rows for c in done.values())
        with pytest.raises(copy_db.CopyError, match="not empty"):
            copy_db.copy_database(src, dest, applied)
    finally:
        dest.close()
