"""Store contract (issue 33), the read and staging modules: every public function of
``fingerprints``, ``foreign_db``, ``judgments``, ``passage_stage``, ``questions``, ``reviews``,
``row_stage`` and ``verdict_reads`` (and of their statement modules) called on SQLite and
PostgreSQL (``db`` / ``seeded`` run on both) with the same expected result; none of them sends
SQL text of its own (:func:`test_no_store_spelled_sql_is_sent`), and a SQLite-spelled statement
is refused on PostgreSQL (:func:`test_a_store_spelled_statement_fails_loudly`)."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from contract_registry import contract_case

from core.errors import DatabaseFileError, StoreError
from core.store import (
    fingerprints,
    foreign_db,
    judgment_queries,
    judgments,
    passage_stage,
    pg_connection,
    prepared,
    question_queries,
    questions,
    reviews,
    row_stage,
    tables,
    tables_reads,
    verdict_reads,
)
from core.store.answers import answers_version
from core.store.connection import transaction, utcnow
from core.store.engine import NotFoundError
from core.store.judgments import JudgmentKind, JudgmentStatus, NewJudgment, RaterKind
from core.store.questions import Question, QuestionOrigin, QuestionStatus
from core.store.reviews import NewReview, ReviewDecision

#: The converted modules of this file (they send only statements SQLAlchemy spelled).
MODULES = (
    fingerprints,
    foreign_db,
    judgment_queries,
    judgments,
    passage_stage,
    prepared,
    question_queries,
    questions,
    reviews,
    row_stage,
    tables_reads,
    verdict_reads,
)
#: The one sender of statements SQLAlchemy spelled (the connection's ``execute``).
_SENDS = {(inspect.getfile(prepared), "send")}


@contract_case(pg_connection.refuse_sqlite_marks)
def test_a_store_spelled_statement_fails_loudly(db):
    """A planted SQLite-spelled statement (a ``?`` mark) sent from a store module is refused on
    PostgreSQL (nothing rewrites it), and runs on SQLite. The check reads quotes and comments:
    a ``?`` in a literal, a quoted name or a ``--`` comment is text."""
    for text in ("select '?', \"a?\" from t -- ?", "select %(x)s, 'it''s ?'", "select 1"):
        pg_connection.refuse_sqlite_marks(text)
    for text in ("select ?", "select 'a' || ? -- ?", "select 'it''s', ?"):
        with pytest.raises(ValueError, match="SQLite's '\\?' parameter mark"):
            pg_connection.refuse_sqlite_marks(text)
    planted: dict[str, Any] = {}
    exec(  # a function whose code is in judgments.py, as a store function's would be
        compile("def planted(db):\n    return db.execute('select ?', [1]).fetchone()\n",
                inspect.getfile(judgments), "exec"),
        planted,
    )  # fmt: skip
    if db.dialect.name == "postgresql":
        with pytest.raises(ValueError, match="parameter mark"):
            planted["planted"](db)
    else:
        assert planted["planted"](db) == (1,)


#: Calls on ``db`` / ``db.conn`` that send store-spelled SQL (the engine's helpers).
_SENDERS = {"execute", "executemany", "query", "table", "table_names", "view_names"}


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__.rsplit(".", 1)[-1])
def test_no_store_spelled_sql_is_sent(module):
    """Statically, for both databases: no module calls the engine's SQL-text helpers
    (``db.execute``, ``db.conn.execute``, ``db.query``, ``db.table(...)``, ``db[...]``) or the
    raw reader ``rows`` but the one allowed function."""
    tree = ast.parse(Path(inspect.getfile(module)).read_text())
    found = []
    for fn in ast.walk(tree):
        if not isinstance(fn, ast.FunctionDef) or ((inspect.getfile(module), fn.name) in _SENDS):
            continue
        for node in ast.walk(fn):
            called = node.func if isinstance(node, ast.Call) else None
            on_db = isinstance(called, ast.Attribute) and _is_db(called.value)
            if (
                (on_db and called.attr in _SENDERS)
                or (isinstance(called, ast.Name) and called.id == "rows")
                or (isinstance(node, ast.Subscript) and _is_db(node.value))
            ):
                found.append(f"{fn.name}: line {node.lineno}")
    assert found == []


def _is_db(node: ast.expr) -> bool:
    """``db`` or ``db.conn``."""
    if isinstance(node, ast.Attribute) and node.attr == "conn":
        node = node.value
    return isinstance(node, ast.Name) and node.id == "db"


#: The tables :mod:`core.store.tables_reads` declares.
_DECLARED = [t for t in vars(tables_reads).values() if isinstance(t, sa.Table)]


@pytest.mark.parametrize("table", _DECLARED, ids=lambda t: t.name)
def test_declared_tables_match_the_migrated_schema(db, table):
    """Each table of :mod:`core.store.tables_reads` has the migrated table's columns, in order."""
    assert tables.metadata.tables[table.name] is table
    cursor = prepared.run_bound(db, sa.select(table).where(sa.false()))
    assert [d[0] for d in cursor.description] == [c.name for c in table.columns]


def _verdict(db, rater, **fields):
    values = {
        "kind": JudgmentKind.PAIRWISE,
        "question_id": "q1",
        "rater": rater,
        "rater_kind": RaterKind(rater.split(":")[0]),
        "system_a": "s1",
        "system_b": "s2",
        "verdict": "A",
        **fields,
    }
    return judgments.insert_judgment(db, NewJudgment(**values))


@contract_case(
    judgments.effective_judgments,
    judgments.effective_values,
    judgments.get_judgment,
    judgments.human_raters,
    judgments.imported_human_raters,
    judgments.insert_judgment,
    judgments.insert_judgments,
    judgments.judgments_after,
    judgments.last_pairwise_label,
    judgments.max_judgment_id,
    judgments.own_pairwise_label,
    judgments.pairwise_rater_kinds,
    judgments.pairwise_raters,
    judgments.question_judgment_count,
    judgments.question_judgments,
)
def test_judgments(seeded):
    db = seeded
    assert judgments.max_judgment_id(db) == 0 and judgments.effective_judgments(db) == []
    assert judgments.human_raters(db) == [] and judgments.pairwise_raters(db) == []
    one = _verdict(db, "auto:x", evidence=[{"quote": "q"}])
    two = _verdict(db, "human:ann", system_a="s2", system_b="s1", verdict="B", context_kind="human")
    three = _verdict(db, "human:ann", supersedes=two, context_kind="human")
    four = _verdict(
        db, "auto:y", kind=JudgmentKind.ABSOLUTE, question_id="q2", system="s1", answer_id=1,
        system_a=None, system_b=None, verdict="yes", criterion="supported",
    )  # fmt: skip
    five = _verdict(
        db, "human:imp", kind=JudgmentKind.ABSOLUTE, system="s2", system_a=None, system_b=None,
        verdict="no", raw='{"file": "a.csv"}',
    )  # fmt: skip
    six = _verdict(db, "auto:x", status=JudgmentStatus.UNPARSED, verdict=None)
    assert judgments.max_judgment_id(db) == six
    ids = [j.id for j in judgments.effective_judgments(db, kind="pairwise")]
    assert ids == [one, three, six]
    assert [j.id for j in judgments.effective_judgments(db, with_verdict=True)] == [
        one, three, four, five,
    ]  # fmt: skip
    assert [j.id for j in judgments.effective_judgments(db, raters=["auto:y", "human:imp"])] == [
        four, five,
    ]  # fmt: skip
    assert judgments.effective_judgments(db, raters=[]) == []
    found = judgments.effective_judgments(db, rater="auto:x", status="ok", document_id="d1")
    assert [j.id for j in found] == [one] and found[0].evidence == [{"quote": "q"}]
    assert found[0].kind is JudgmentKind.PAIRWISE and found[0].rater_kind is RaterKind.AUTO
    assert [j.id for j in judgments.effective_judgments(db, document_id="d2")] == []
    assert [j.id for j in judgments.effective_judgments(db, question_id="q2")] == [four]
    assert [j.id for j in judgments.effective_judgments(db, rater_kind="human", criterion="")] == [
        three,
        five,
    ]
    values = judgments.effective_values(db, ["id", "verdict"], kind="pairwise", with_verdict=True)
    assert values == [(one, "A"), (three, "A")]
    with pytest.raises(ValueError, match="not a judgments column"):
        judgments.effective_values(db, ["verdict; drop table judgments"])
    with pytest.raises(TypeError):
        judgments.effective_values(db, ["id"], colour="red")
    pairs = judgments.question_judgments(db, "q1")
    assert [(j.id, gone) for j, gone in pairs] == [
        (five, False), (one, False), (six, False), (two, True), (three, False),
    ]  # fmt: skip
    got = judgments.get_judgment(db, four)
    assert got is not None and got.system == "s1" and got.answer_id == 1 and got.verdict == "yes"
    assert judgments.get_judgment(db, 999) is None
    assert judgments.pairwise_raters(db) == ["auto:x", "human:ann"]
    assert judgments.pairwise_raters(db, "human") == ["human:ann"]
    assert judgments.own_pairwise_label(db, "human:ann", "q1", "s1", "s2").id == three
    assert judgments.own_pairwise_label(db, "human:ann", "q1", "s2", "s1").id == three
    assert judgments.own_pairwise_label(db, "human:bob", "q1", "s1", "s2") is None
    last = judgments.last_pairwise_label(db, "human:ann")
    assert last is not None and last.id == three and judgments.last_pairwise_label(db, "x") is None
    undo = judgments.insert_judgment(db, last.withdrawal())
    assert judgments.last_pairwise_label(db, "human:ann") is None
    assert judgments.get_judgment(db, undo).status is JudgmentStatus.WITHDRAWN
    assert judgments.pairwise_rater_kinds(db) == [("auto:x", "auto"), ("human:ann", "human")]
    assert judgments.human_raters(db) == ["human:ann", "human:imp"]
    assert judgments.question_judgment_count(db, "q1") == 6
    assert judgments.question_judgment_count(db, "q1", human_only=True) == 4
    assert judgments.imported_human_raters(db) == {"human:imp": 1}
    assert judgments.judgments_after(db, five, ["id", "rater"]) == [
        (six, "auto:x"),
        (undo, "human:ann"),
    ]
    new = [NewJudgment(kind=JudgmentKind.LABEL, question_id="q2", rater=f"auto:b{i}",
                       rater_kind=RaterKind.AUTO, criterion="t", verdict="x") for i in range(3)]  # fmt: skip
    judgments.insert_judgments(db, new, batch_size=2)
    judgments.insert_judgments(db, [])
    assert [j.rater for j in judgments.effective_judgments(db, kind="label")] == [
        "auto:b0", "auto:b1", "auto:b2",
    ]  # fmt: skip
    assert NewJudgment(**{**vars_of(new[0]), "verdict": None}).row()["verdict"] is None


def vars_of(new: NewJudgment) -> dict[str, Any]:
    return {f: getattr(new, f) for f in judgments._new_judgment_fields()}


@contract_case(
    judgments.switch_staged_judgments,
    judgments.effective_values,
    row_stage.stage_rows,
    row_stage.drop_rows_stage,
    row_stage.live_stages,
    transaction,
)
def test_staged_judgments_get_their_answer_ids(seeded):
    db = seeded
    rows = [
        NewJudgment(kind=JudgmentKind.PAIRWISE, question_id="q1", rater="auto:s",
                    rater_kind=RaterKind.AUTO, system_a=a, system_b=b, verdict="A").row()
        for a, b in (("s1", "s2"), ("s2", "s3"))
    ]  # fmt: skip
    stage = row_stage.stage_rows(db, "judgments", rows)
    try:
        with transaction(db):
            assert judgments.switch_staged_judgments(db, stage) == 2
    finally:
        row_stage.drop_rows_stage(db, stage)
    found = judgments.effective_values(db, ["system_a", "answer_a_id", "answer_b_id"])
    assert found == [("s1", 1, 2), ("s2", 2, None)]
    assert row_stage.live_stages(db) == []


@contract_case(
    judgment_queries.columns_of,
    judgment_queries.effective_select,
    prepared.fetch_each,
    prepared.run_bound,
)
def test_judgment_queries(seeded):
    db = seeded
    query, values = judgment_queries.effective_select(["id"], kind="pairwise", raters=("a",))
    again, _ = judgment_queries.effective_select(["id"], kind="absolute", raters=["b"])
    assert query is again and values == {"kind": "pairwise", "raters": ["a"]}  # built once
    shape = judgment_queries.effective_shape(("id",), ("kind",), True, False, False, True)
    assert shape is query
    assert [c.name for c in judgment_queries.columns_of(["id", "rater"])] == ["id", "rater"]
    assert judgment_queries.columns_of(None) == [judgment_queries.J]
    assert judgment_queries.after_query(("id",)) is judgment_queries.after_query(("id",))
    with pytest.raises(ValueError, match="not a judgments column"):
        judgment_queries.columns_of(["id", "nope"])
    with pytest.raises(TypeError, match="not a filter"):
        judgment_queries.effective_select(None, colour="red")
    one = _verdict(db, "auto:a")
    two = _verdict(db, "auto:b", verdict="B")
    _verdict(db, "auto:a", verdict="B", supersedes=one)  # one is no longer effective
    query, values = judgment_queries.effective_select(
        ["id", "rater"], raters=["auto:b", "auto:c"], document_id="d1"
    )
    assert values == {"raters": ["auto:b", "auto:c"], "document_id": "d1"}
    assert [tuple(r) for r in prepared.run_bound(db, query, values)] == [(two, "auto:b")]
    query, values = judgment_queries.effective_select(None, ordered=False, document_id="d9")
    assert prepared.run_bound(db, query, values).fetchall() == []
    # several statements' rows (one round trip on PostgreSQL), in the order given
    named, _ = judgment_queries.effective_select(["id", "rater"], raters=["auto:b"])
    assert prepared.fetch_each(db, [(named, {"raters": ["auto:b"]}), (query, values)]) == [
        [(two, "auto:b")],
        [],
    ]


def _pairwise_rows(db):
    one = _verdict(db, "auto:x")
    two = _verdict(db, "auto:x", verdict="B", supersedes=one)
    three = _verdict(db, "human:ann", verdict="A")
    four = _verdict(db, "human:ann", status=JudgmentStatus.UNPARSED, verdict=None)
    five = _verdict(
        db, "auto:x", kind=JudgmentKind.ABSOLUTE, system="s1", answer_id=1, system_a=None,
        system_b=None, verdict="yes", criterion="supported",
    )  # fmt: skip
    return one, two, three, four, five


@contract_case(
    verdict_reads.counted_pairwise,
    verdict_reads.pairwise_changes,
    verdict_reads.pairwise_count,
    verdict_reads.pairwise_records_since,
    verdict_reads.verdict_summary,
    judgments.insert_judgment,
)
def test_verdict_reads(seeded):
    db = seeded
    assert verdict_reads.verdict_summary(db, "pairwise") == []
    one, two, three, four, five = _pairwise_rows(db)
    summary = verdict_reads.verdict_summary(db, "pairwise")
    assert summary == [
        ("auto:x", "auto", "q1", "s1", "s2", 1, two, "B", two, "B"),
        ("human:ann", "human", "q1", "s1", "s2", 1, three, "A", three, "A"),
    ]
    assert verdict_reads.verdict_summary(db, "pairwise", ["human:ann"]) == summary[1:]
    assert verdict_reads.verdict_summary(db, "absolute") == [
        ("auto:x", "auto", "q1", "s1", "supported", 1, five, "yes", five, "yes")
    ]
    with pytest.raises(ValueError, match="not a judgment kind"):
        verdict_reads.verdict_summary(db, "other")
    since = verdict_reads.pairwise_records_since(db, one)
    assert [r[0] for r in since] == [two, three, four]
    assert since[0] == (two, "q1", "s1", "s2", "B", "ok", one, "auto:x", "auto", "", "")
    counted = verdict_reads.pairwise_count(db, four, one, two)
    assert counted == (None if db.dialect.name == "sqlite" else (3, 2))
    top, counted_too, rows = verdict_reads.pairwise_changes(db, one, one, two)
    assert top == five and [r[0] for r in rows] == [two, three, four]
    assert counted_too == (None if db.dialect.name == "sqlite" else (0, 0))  # none up to one
    assert verdict_reads.pairwise_changes(db, four, one, two) == (five, counted, [])
    found, gone, last = verdict_reads.counted_pairwise(db, four)
    assert [r[0] for r in found] == [one, two, three] and gone == {one} and last == four
    found, _, _ = verdict_reads.counted_pairwise(db, four, {"rater_kind": "auto"}, ["auto:x"])
    assert found == [(one, "q1", "s1", "s2", "A"), (two, "q1", "s1", "s2", "B")]
    assert verdict_reads.counted_pairwise(db, four, raters=[])[0] == []
    assert verdict_reads.counted_pairwise(db, 0) == ([], set(), 0)
    with pytest.raises(ValueError, match="not a filter"):
        verdict_reads.counted_pairwise(db, four, {"verdict": "A"})


@contract_case(
    fingerprints.answers_fingerprint,
    fingerprints.data_version,
    fingerprints.judgments_version,
    fingerprints.recent_count,
    fingerprints.recent_count_sql,
    prepared.scalar,
    answers_version,
)
def test_fingerprints(seeded):
    db = seeded
    late = not db.dialect.ids_in_commit_order
    before = fingerprints.data_version(db)
    assert len(before) == 13 + (8 if late else 0) + 3
    assert before[:8] == (0, 0, 0, 0, 2, 0, 0, 0)  # largest ids: only the two answers
    assert before[-8:] == (2, 1, 0, "", "", 0, 0, 0)  # questions, documents, runs, ...
    assert fingerprints.judgments_version(db) == (("judgments", 0, 0) if late else ("judgments", 0))
    one = _verdict(db, "auto:x")
    after = fingerprints.data_version(db)
    assert after != before and after[0] == one
    assert fingerprints.judgments_version(db) == (
        ("judgments", one, 1) if late else ("judgments", one)
    )
    assert fingerprints.answers_fingerprint(db) == ("answers", *answers_version(db))
    recent = prepared.scalar(db, sa.select(fingerprints.recent_count("judgments", 1)))
    assert recent == 1
    assert fingerprints.recent_count_sql("answers", 5) == (
        "(select count(*) from answers where id > (select coalesce(max(id), 0) from answers) - 5)"
    )


@contract_case(
    foreign_db.is_workbench,
    foreign_db.known_migrations,
    foreign_db.refuse_foreign,
    foreign_db.shown,
    foreign_db.user_tables,
    prepared.run_bound,
)
def test_foreign_db(db):
    tables_found = foreign_db.user_tables(db)
    assert "judgments" in tables_found and not any(t.startswith("sqlite_") for t in tables_found)
    assert foreign_db.is_workbench(db, tables_found)
    assert not foreign_db.is_workbench(db, ["other"])
    assert "m0750_passage_stage" in foreign_db.known_migrations()
    foreign_db.refuse_foreign(db, "here", create=False)  # this version's database
    prepared.run_bound(
        db, sa.text("insert into schema_migrations (name, applied_at) values ('m9999_x', 'now')")
    )
    with pytest.raises(DatabaseFileError, match="newer version.*m9999_x"):
        foreign_db.refuse_foreign(db, "here", create=False)
    prepared.run_bound(db, sa.text("insert into schema_migrations (name, applied_at) values ('bad', 'x')"))  # fmt: skip
    assert not foreign_db.is_workbench(db, foreign_db.user_tables(db))
    with pytest.raises(DatabaseFileError, match="another application's tables"):
        foreign_db.refuse_foreign(db, "here", create=False)
    assert foreign_db.shown("a\nb") == "a\\nb" and foreign_db.shown("x" * 50).endswith("...")


@contract_case(
    passage_stage.drop_dead_stages,
    passage_stage.drop_stage,
    passage_stage.needs_stage,
    passage_stage.stage_passages,
    passage_stage.switch_passages,
    prepared.run_bound,
    prepared.scalar,
    transaction,
)
def test_passage_stage(seeded, monkeypatch):
    db = seeded
    monkeypatch.setattr(passage_stage, "CHUNK_ROWS", 2)
    monkeypatch.setattr(passage_stage.time, "sleep", lambda s: None)  # no pause between chunks
    rows = [{"idx": i, "start": i * 10, "end": i * 10 + 9, "text": f"p{i}", "n_tokens": 2}
            for i in range(5)]  # fmt: skip
    assert passage_stage.needs_stage(rows) and not passage_stage.needs_stage(rows[:2])
    written: list[int] = []
    stage = passage_stage.stage_passages(db, "d1", rows, after_chunk=written.append)
    assert stage.n_rows == 5 and written == [2, 4, 5] and stage.document_id == "d1"
    with transaction(db):
        passage_stage.switch_passages(db, stage)
    passage_stage.drop_stage(db, stage.stage)
    stored = prepared.run_bound(
        db, sa.select(tables.passages.c.idx, tables.passages.c.end).order_by(tables.passages.c.idx)
    ).fetchall()
    assert [tuple(r) for r in stored] == [(i, i * 10 + 9) for i in range(5)]
    assert passage_stage.drop_dead_stages(db) == 0
    left = passage_stage.stage_passages(db, "d1", rows[:3])
    assert passage_stage.drop_dead_stages(db, "d1") == 1  # an earlier import of the document
    with pytest.raises(StoreError, match="at the same time"), transaction(db):
        passage_stage.switch_passages(db, left)
    with transaction(db):  # inside a transaction a stage goes at once
        again = passage_stage.stage_passages(db, "d1", rows)
        passage_stage.drop_stage(db, again.stage)
    assert (
        prepared.scalar(db, sa.select(sa.func.count()).select_from(tables_reads.passage_stage)) == 0
    )


def _question(qid: str, **fields: Any) -> Question:
    now = utcnow()
    values = {"question": f"Text {qid}?", "origin": QuestionOrigin.IMPORTED, "created_at": now,
              "updated_at": now, "document_id": "d1", **fields}  # fmt: skip
    return Question(id=qid, **values)


@contract_case(
    questions.all_question_ids,
    questions.all_question_texts,
    questions.child_questions,
    questions.counts_by_origin,
    questions.distinct_values,
    questions.document_dependents,
    questions.document_questions,
    questions.find_question_ids,
    questions.generated_exists,
    questions.generator_models,
    questions.get_question,
    questions.insert_question,
    questions.insert_questions,
    questions.origin_questions,
    questions.pending_review_count,
    questions.question_counts_by_document,
    questions.question_documents,
    questions.question_entities,
    questions.question_exists,
    questions.question_texts,
    questions.questions_by_id,
    questions.referenced_entity_ids,
    questions.review_summary_by_origin,
    questions.root_questions,
    questions.sample_question_ids,
    questions.set_question_text,
    questions.update_question,
    questions.upsert_question,
    question_queries.column,
)
def test_questions(seeded):
    db = seeded  # q1 (generated, pending), q2 (imported, accepted), both of d1
    q1 = questions.get_question(db, "q1")
    assert q1 is not None and q1.answers == ["ref"] and q1.provenance == {"model": "m:1"}
    assert questions.get_question(db, "nope") is None
    assert list(questions.questions_by_id(db, ["q2", "q1", "x"])) == ["q1", "q2"]
    assert questions.questions_by_id(db, []) == {}
    assert questions.question_texts(db, ["q2"]) == {"q2": "question q2?"}
    questions.insert_question(db, _question("q3", status=QuestionStatus.REJECTED, parent_id="q2",
                                            provenance={"model": "m:2", "prompt_hash": "h"}))  # fmt: skip
    questions.insert_questions(
        db, [_question(f"b{i}", origin=QuestionOrigin.XRAG) for i in range(3)]
    )
    questions.insert_questions(db, [])
    doc = questions.document_questions(
        db, "d1", statuses=[QuestionStatus.PENDING, QuestionStatus.REJECTED]
    )
    assert [q.id for q in doc] == ["b0", "b1", "b2", "q1", "q3"]
    assert [q.id for q in questions.document_questions(db, "d1", origin=QuestionOrigin.IMPORTED,
                                                       exclude_status=QuestionStatus.REJECTED)] == ["q2"]  # fmt: skip
    assert [q.id for q in questions.document_questions(db, "d1", statuses=[])] == []
    assert len(questions.document_questions(db, "d1", order="created")) == 6
    assert [q.id for q in questions.origin_questions(db, QuestionOrigin.XRAG)] == ["b0", "b1", "b2"]
    assert questions.find_question_ids(db, {"status": "accepted", "qtype": None}) == ["q2"]
    assert questions.find_question_ids(db, {}, "TEXT B1") == ["b1"]  # case ignored on both
    assert questions.find_question_ids(db, {"origin": ""}, "q3") == ["q3"]
    with pytest.raises(ValueError, match="not a question filter"):
        questions.find_question_ids(db, {"question": "x"})
    assert questions.distinct_values(db, "origin") == ["generated", "imported", "xrag"]
    with pytest.raises(ValueError):
        questions.distinct_values(db, "id")
    assert questions.question_documents(db) == [{"id": "d1", "title": "Book"}]
    assert questions.question_entities(db) == [] and questions.referenced_entity_ids(db) == set()
    assert questions.question_exists(db, "q3") and not questions.question_exists(db, "zz")
    assert questions.generated_exists(db, "d1", 7, "m:1", "h") is False
    questions.update_question(db, "q3", status=QuestionStatus.PENDING, metadata={"k": [1]})
    q3 = questions.get_question(db, "q3")
    assert q3.status is QuestionStatus.PENDING and q3.metadata == {"k": [1]}
    with pytest.raises(NotFoundError):
        questions.update_question(db, "zz", question="x")
    with pytest.raises(NotFoundError):
        questions.update_question(db, "zz")
    assert questions.upsert_question(db, _question("q4")) == "inserted"
    assert questions.upsert_question(db, _question("q4")) == "unchanged"
    assert questions.upsert_question(db, _question("q4", question="New?")) == "updated"
    assert questions.get_question(db, "q4").question == "New?"
    assert questions.counts_by_origin(db) == {"generated": 1, "imported": 3, "xrag": 3}
    assert questions.review_summary_by_origin(db) == [
        {"origin": "generated", "questions": 1, "pending": 1, "accepted": 0, "rejected": 0},
        {"origin": "imported", "questions": 3, "pending": 2, "accepted": 1, "rejected": 0},
        {"origin": "xrag", "questions": 3, "pending": 3, "accepted": 0, "rejected": 0},
    ]
    assert questions.pending_review_count(db) == 6
    assert questions.question_counts_by_document(db, "imported", ["pending"], ["book"]) == {"d1": 2}
    assert questions.question_counts_by_document(db, "imported", [], ["book"]) == {}
    assert questions.generator_models(db) == {"m:1", "m:2"}
    assert questions.all_question_ids(db) == ["b0", "b1", "b2", "q1", "q2", "q3", "q4"]
    assert [q.id for q in questions.child_questions(db, "q2")] == ["q3"]
    assert questions.child_questions(db, "q2", origin=QuestionOrigin.XRAG) == []
    assert [q.id for q in questions.root_questions(db, QuestionOrigin.IMPORTED)] == ["q2", "q4"]
    assert questions.sample_question_ids(db, {"origin": "imported"}, {"status": ["pending"]}) == [
        "q3", "q4",
    ]  # fmt: skip
    assert questions.sample_question_ids(db, {"origin": ""}, {"status": []}) == [
        "b0", "b1", "b2", "q1", "q2", "q3", "q4",
    ]  # fmt: skip
    with pytest.raises(ValueError, match="not a questions column"):
        questions.sample_question_ids(db, {"1 = 1; --": "x"})
    questions.set_question_text(db, "q4", "Set?", "2030-01-01")
    assert questions.all_question_texts(db)["q4"] == "Set?"
    assert questions.get_question(db, "q4").updated_at == "2030-01-01"
    assert questions.document_dependents(db, "d1") == {"questions": 7, "answers": 2, "judgments": 0}
    assert questions.document_dependents(db, "d9") == {"questions": 0, "answers": 0, "judgments": 0}
    assert [c.name for c in [question_queries.column("id")]] == ["id"]
    assert question_queries.of_document(True, False, False, "id") is question_queries.of_document(
        True, False, False, "id"
    )
    assert (
        question_queries.children(False) is not None
        and question_queries.distinct("qtype") is not None
    )
    assert question_queries.matching_ids((), (), False) is not None
    assert question_queries.set_columns(("question",)) is question_queries.set_columns(
        ("question",)
    )


@contract_case(
    questions.generated_exists,
    questions.insert_question,
    questions.question_entities,
    questions.referenced_entity_ids,
    prepared.run_bound,
)
def test_questions_generated_exists(seeded):
    db = seeded
    entity = {
        "id": 7,
        "document_id": "d1",
        "name": "Ann",
        "n_mentions": 1,
        "rank": 1,
        "method": "m",
    }
    prepared.run_bound(db, sa.insert(tables.entities).values(**entity))
    assert questions.question_entities(db) == []  # no question about it yet
    questions.insert_question(db, _question("g1", origin=QuestionOrigin.GENERATED, entity_id=7,
                                            provenance={"model": "m:9", "prompt_hash": "h9"}))  # fmt: skip
    assert questions.generated_exists(db, "d1", 7, "m:9", "h9")
    assert not questions.generated_exists(db, "d1", 7, "m:9", "other")
    assert questions.referenced_entity_ids(db) == {7}
    assert questions.question_entities(db) == [{"id": 7, "name": "Ann"}]


def _review(db, qid, who, decision, supersedes=None):
    new = NewReview(question_id=qid, annotator=who, decision=decision, supersedes=supersedes,
                    checklist={"ok": True})  # fmt: skip
    return reviews.insert_review(db, new)


@contract_case(
    reviews.effective_reviews,
    reviews.ever_reviewed,
    reviews.insert_review,
    reviews.last_review,
    reviews.own_review,
    reviews.question_reviews,
    reviews.review_count,
    reviews.review_marks,
    reviews.skipped_reviews,
)
def test_reviews(seeded):
    db = seeded
    assert reviews.effective_reviews(db) == [] and reviews.skipped_reviews(db) == []
    one = _review(db, "q1", "ann", ReviewDecision.ACCEPT)
    two = _review(db, "q1", "bob", ReviewDecision.REJECT)
    three = _review(db, "q1", "ann", ReviewDecision.EDIT, supersedes=one)
    skip = _review(db, "q2", "ann", ReviewDecision.SKIPPED)
    undo = _review(db, "q1", "bob", ReviewDecision.WITHDRAWN, supersedes=two)
    assert [r.id for r in reviews.effective_reviews(db)] == [three]
    assert [r.id for r in reviews.effective_reviews(db, "q1")] == [three]
    assert reviews.effective_reviews(db, origin="imported") == []
    assert [r.id for r in reviews.effective_reviews(db, "q1", origin="generated")] == [three]
    found = reviews.effective_reviews(db)[0]
    assert found.checklist == {"ok": True} and found.decision is ReviewDecision.EDIT
    assert [r.id for r in reviews.question_reviews(db, "q1")] == [one, three]  # bob's withdrawn
    assert reviews.own_review(db, "q1", "bob").id == undo
    assert reviews.own_review(db, "q2", "cy") is None
    assert reviews.last_review(db, "ann").id == skip and reviews.last_review(db, "cy") is None
    assert [r.id for r in reviews.skipped_reviews(db)] == [skip]
    assert reviews.ever_reviewed(db, "q1") and not reviews.ever_reviewed(db, "q2")
    assert reviews.review_marks(db) == {"ok": {"q1": {"ann"}}, "skipped": {"q2": {"ann"}}}
    assert reviews.review_count(db, "q1") == 4 and reviews.review_count(db, "q9") == 0


@contract_case(
    row_stage.drop_rows_stage,
    row_stage.live_stages,
    row_stage.stage_rows,
    row_stage.staged_or_direct,
    row_stage.staged_value,
    row_stage.switch_rows,
    questions.get_question,
    questions.question_exists,
    transaction,
)
def test_row_stage(seeded, monkeypatch):
    db = seeded
    monkeypatch.setattr(row_stage, "CHUNK_ROWS", 2)
    now = utcnow()
    rows = [_question(f"s{i}", created_at=now, updated_at=now, document_id=None).to_row()
            for i in range(3)]  # fmt: skip
    empty = row_stage.stage_rows(db, "questions", [])
    assert empty.n_rows == 0 and row_stage.switch_rows(db, empty) == 0
    stage = row_stage.stage_rows(db, "questions", rows)
    assert stage.n_rows == 3 and row_stage.live_stages(db) == [stage.stage]
    with transaction(db):
        fill = {"document_id": sa.literal("d1")}
        assert row_stage.switch_rows(db, stage, fill, columns=["id", *stage.columns[1:]]) == 3
    assert questions.get_question(db, "s2").document_id == "d1"
    row_stage.drop_rows_stage(db, stage)
    assert row_stage.live_stages(db) == []
    again = row_stage.stage_rows(
        db, "questions", [{**r, "id": f"t{i}"} for i, r in enumerate(rows)]
    )
    with transaction(db):  # a fill reading the staged values (a correlated subquery)
        q = tables.questions.alias("q")  # the document of the stored question of that text
        same = q.c.question == row_stage.staged_value("question")
        fill = {
            "document_id": sa.select(sa.func.max(q.c.document_id)).where(same).scalar_subquery()
        }
        assert row_stage.switch_rows(db, again, fill) == 3
    row_stage.drop_rows_stage(db, again)
    assert questions.get_question(db, "t0").document_id == "d1"
    assert str(row_stage.staged_value("x")) == 's."x"'
    direct: list[int] = []
    with row_stage.staged_or_direct(db, lambda: pytest.fail("staged"), lambda: direct.append(1),
                                    n_rows=1, stage_from=2) as write:  # fmt: skip
        write()
    assert direct == [1]
    with row_stage.staged_or_direct(
        db, lambda: row_stage.stage_rows(db, "questions", [{**rows[0], "id": "u0"}]),
        lambda: pytest.fail("direct"), n_rows=2, stage_from=2,
    ) as write, transaction(db):  # fmt: skip
        write()
    assert questions.question_exists(db, "u0") and row_stage.live_stages(db) == []


@contract_case(
    prepared.bound,
    prepared.bound_rows,
    prepared.run_bound,
    prepared.run_ddl,
    prepared.scalar,
    prepared.send,
)
def test_prepared(db):
    query = sa.select(tables.judgments.c.id).where(
        tables.judgments.c.rater.in_(sa.bindparam("raters", expanding=True)),
        tables.judgments.c.kind.in_(["pairwise", "absolute"]),
    )
    text, bound_params = prepared.bound(db, query, {"raters": ["a"]})
    assert ("%(" in text) is (db.dialect.name == "postgresql") and len(bound_params) == 3
    assert prepared.run_bound(db, query, {"raters": []}).fetchall() == []
    assert prepared._compiled(query, "sqlite") is prepared._compiled(query, "sqlite")  # once
    assert prepared.bound_rows(db, sa.select(sa.literal(1).label("one"))) == [{"one": 1}]
    assert prepared.scalar(db, sa.select(tables.judgments.c.id).where(sa.false())) is None
    stage = sa.Table(
        "t_prepared", sa.MetaData(), sa.Column("k", sa.Integer), prefixes=["TEMPORARY"]
    )
    prepared.run_ddl(db, sa.schema.CreateTable(stage))
    prepared.send(db, *prepared.bound(db, sa.insert(stage).values(k=5)))
    assert prepared.scalar(db, sa.select(stage.c.k)) == 5
    prepared.run_ddl(db, sa.schema.DropTable(stage))
