"""Store contract, table-driven (issue 33): one row per store function (or a few that belong
together), each called on SQLite and PostgreSQL over ``seeded`` (tests/store/conftest.py: book
``d1``, questions ``q1``/``q2``, systems ``s1``/``s2`` with an answer each to ``q1``). How to add
a row: tests/store/README.md."""

from __future__ import annotations

import dataclasses

import sqlalchemy as sa
from contract_registry import ContractCase, contract_table

from core.store import answers, connection, experiments, llm_cache, runs, schema, statements
from core.store.connection import transaction, utcnow
from core.store.engine import Database
from core.store.tables_more import settings


def _systems_by_question(db: Database) -> None:
    assert answers.systems_by_question(db) == {"q1": ["s1", "s2"]}


def _run_ids(db: Database) -> None:
    assert runs.run_ids(db) == set()
    made = {runs.start_run(db, "test", name, {}) for name in ("a", "b")}
    assert runs.run_ids(db) == made and len(made) == 2


def _ledger(run_id: str | None, hit: int) -> llm_cache.LedgerEntry:
    return llm_cache.LedgerEntry(
        run_id=run_id, model="m:x", provider="m", task="answer", purpose="p", tags="{}",
        cache_key="k", cache_hit=hit, batch_id=None, status="ok", error_kind=None, error="",
        attempts=1, input_tokens=1, output_tokens=1, cached_tokens=0, cache_write_tokens=0,
        cost_usd=0.0, latency_s=0.1, finish_reason="stop", request_id="", created_at=utcnow(),
    )  # fmt: skip


def _forget_cached_run_calls(db: Database) -> None:
    cached, paid = (runs.start_run(db, "test", name, {}) for name in ("cached", "paid"))
    with transaction(db):
        llm_cache.write_calls(db, [], [_ledger(cached, 1), _ledger(cached, 1), _ledger(paid, 1)])
        llm_cache.write_calls(db, [], [_ledger(paid, 0)])
    assert llm_cache.forget_cached_run_calls(db, paid) is False  # one call was paid for
    assert llm_cache.forget_cached_run_calls(db, cached) is True
    left = connection.rows(db, "select run_id, count(*) n from llm_calls group by run_id")
    assert left == [{"run_id": paid, "n": 2}]
    assert llm_cache.forget_cached_run_calls(db, "no-such-run") is True  # nothing to keep


def _restore_experiment(db: Database) -> None:
    run_id = runs.start_run(db, "experiment", "e", {})
    experiments.save_experiment_start(
        db, name="e", path="e.toml", config={"k": 1}, question_ids=["q1"], run_id=run_id,
        now="2026-01-01",
    )  # fmt: skip
    before = experiments.get_experiment(db, "e")
    assert before is not None
    experiments.finish_experiment(db, "e", experiments.ExperimentStatus.DONE, {"n": 3}, "later")
    experiments.restore_experiment(db, before)
    assert experiments.get_experiment(db, "e") == before
    gone = dataclasses.replace(before, name="restored", path="r.toml")
    experiments.restore_experiment(db, gone)  # a row that was deleted comes back
    assert experiments.get_experiment(db, "restored") == gone


def _rows_and_counts(db: Database) -> None:
    counts = connection.table_counts(db)
    assert counts["questions"] == 2 and counts["answers"] == 2 and counts["judgments"] == 0
    assert "schema_migrations" not in counts
    sql = "select id, answers from questions where id in ('q1', 'q2', 'zz') order by id"
    found = connection.rows(db, sql)  # no parameters: sent as written on both
    assert found == [{"id": "q1", "answers": ["ref"]}, {"id": "q2", "answers": ["ref"]}]


def _not_superseded(db: Database) -> None:
    now = utcnow()
    first = {"question_id": "q1", "annotator": "ann", "decision": "accept", "created_at": now}
    db["reviews"].insert(first)
    (old,) = connection.rows(db, "select id from reviews")
    db["reviews"].insert(first | {"decision": "reject", "supersedes": old["id"]})
    sql = f"select decision from reviews t where {schema.not_superseded('reviews')}"
    assert connection.rows(db, sql) == [{"decision": "reject"}]
    t = sa.table("reviews", sa.column("id"), sa.column("supersedes"), sa.column("decision"))
    query = sa.select(t.c.decision).where(statements.not_superseded(t, t))
    assert statements.all_rows(db, query) == [{"decision": "reject"}]


def _statements(db: Database) -> None:
    k, v = settings.c.key, settings.c.value
    statements.run_many(
        db, sa.insert(settings), [{"key": "a", "value": "1"}, {"key": "b", "value": "2"}]
    )
    assert statements.run_many(db, sa.insert(settings), []) is None
    statements.run(db, statements.upsert(db, settings, {"key": "a", "value": "10"}))
    statements.run(db, statements.upsert(db, settings, {"key": "c", "value": "3"}))
    ignored = statements.insert(db, settings).values(key="b", value="20").on_conflict_do_nothing()
    statements.run(db, ignored)
    query = sa.select(k, v).where(k.in_(["a", "b", "c"])).order_by(k)
    assert statements.all_rows(db, query) == [
        {"key": "a", "value": "10"}, {"key": "b", "value": "2"}, {"key": "c", "value": "3"}
    ]  # fmt: skip
    sql, params = statements.compiled(db, sa.select(v).where(k == "a"))
    assert "settings" in sql and "a" in (params.values() if isinstance(params, dict) else params)
    assert statements.run(db, sa.delete(settings).where(k == "c")).rowcount == 1


CASES = [
    ContractCase("systems_by_question", (answers.systems_by_question,), _systems_by_question),
    ContractCase("run_ids", (runs.run_ids,), _run_ids),
    ContractCase(
        "forget_cached_run_calls", (llm_cache.forget_cached_run_calls,), _forget_cached_run_calls
    ),
    ContractCase("restore_experiment", (experiments.restore_experiment,), _restore_experiment),
    ContractCase(
        "rows_and_counts",
        (connection.rows, connection.table_counts),
        _rows_and_counts,
    ),
    ContractCase(
        "not_superseded",
        (schema.not_superseded, statements.not_superseded, statements.all_rows),
        _not_superseded,
    ),
    ContractCase(
        "statements",
        (
            statements.run,
            statements.run_many,
            statements.upsert,
            statements.insert,
            statements.compiled,
            statements.all_rows,
        ),
        _statements,
    ),
]


@contract_table(CASES)
def test_contract_row(seeded: Database, case: ContractCase) -> None:
    case.run(seeded)
