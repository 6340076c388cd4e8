"""Store: migrations, transactions, append-only tables, thread safety."""

import threading

import pytest
from contract_registry import contract_case

from core.store.connection import transaction, utcnow
from core.store.database import (
    applied_migrations,
    migrate_db,
    open_db,
    registered_migrations,
    schema_version,
)
from core.store.schema import append_only


def _question(db, qid="q1"):
    now = utcnow()
    db["documents"].insert(
        {
            "id": "d1",
            "kind": "book",
            "source": "test",
            "text": "x",
            "n_chars": 1,
            "n_tokens": 1,
            "sha256": "",
            "created_at": now,
            "updated_at": now,
        },
        ignore=True,
    )
    db["questions"].insert(
        {
            "id": qid,
            "document_id": "d1",
            "question": "?",
            "origin": "imported",
            "created_at": now,
            "updated_at": now,
        }
    )


@contract_case(applied_migrations, migrate_db, open_db, registered_migrations, schema_version)
def test_migrations_apply_once_and_are_recorded(db_path):
    db = open_db(db_path)
    names = [n for n, _ in registered_migrations()]
    assert applied_migrations(db) == names
    assert schema_version(db) == len(names) >= 1
    assert migrate_db(db) == []  # nothing pending the second time
    for table in (
        "documents",
        "passages",
        "questions",
        "answers",
        "judgments",
        "reviews",
        "disputes",
        "runs",
        "systems",
        "entities",
        "mentions",
    ):
        assert table in db.table_names()


@pytest.mark.sqlite_only("SQLite's connection pragmas (WAL, foreign_keys, busy_timeout)")
def test_pragmas(db):
    assert db.execute("pragma journal_mode").fetchone()[0] == "wal"
    assert db.execute("pragma foreign_keys").fetchone()[0] == 1
    assert db.execute("pragma busy_timeout").fetchone()[0] >= 1000


@contract_case(transaction, utcnow)
def test_transaction_rolls_back_everything(db):
    _question(db)
    with pytest.raises(RuntimeError):
        with transaction(db):
            db["systems"].insert(
                {"name": "s1", "model": "m", "context": "none", "created_at": utcnow()}
            )
            db["systems"].insert(
                {"name": "s2", "model": "m", "context": "none", "created_at": utcnow()}
            )
            raise RuntimeError("boom")
    assert db["systems"].count == 0


@contract_case(transaction)
def test_nested_transaction_is_a_savepoint(db):
    with transaction(db):
        db["settings"].insert({"key": "a", "value": "1"})
        with pytest.raises(ValueError):
            with transaction(db):
                db["settings"].insert({"key": "b", "value": "2"})
                raise ValueError
    assert [r["key"] for r in db["settings"].rows] == ["a"]


@contract_case(utcnow)
def test_judgments_are_append_only(db, refused):
    _question(db)
    db["judgments"].insert(
        {
            "kind": "absolute",
            "question_id": "q1",
            "rater": "human:ann",
            "rater_kind": "human",
            "verdict": "yes",
            "created_at": utcnow(),
        }
    )
    with pytest.raises(refused, match="append-only"):
        db.execute("update judgments set verdict = 'no'")
    with pytest.raises(refused, match="append-only"):
        db.execute("delete from judgments")
    assert db.execute("select verdict from judgments").fetchone()[0] == "yes"


def test_foreign_keys_enforced(db, refused):
    with pytest.raises(refused, match="(?i)foreign key"):
        db["questions"].insert(
            {
                "id": "q",
                "document_id": "missing",
                "question": "?",
                "origin": "imported",
                "created_at": "",
                "updated_at": "",
            }
        )


@contract_case(open_db, transaction)
def test_connections_work_across_threads(db_path):
    db = open_db(db_path)
    errors = []

    def worker(i):
        try:
            with transaction(db):
                db["settings"].insert({"key": f"k{i}", "value": str(i)})
            other = open_db(db_path)
            other["settings"].insert({"key": f"o{i}", "value": str(i)})
            other.close()
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert db["settings"].count == 8


@contract_case(append_only)
def test_append_only_helper_on_new_table(db, refused):
    db.execute("create table notes (id integer primary key, body text)")
    append_only(db, "notes")
    db["notes"].insert({"body": "a"})
    with pytest.raises(refused, match="append-only"):
        db.execute("delete from notes")


@contract_case(transaction)
def test_one_connection_shared_by_eight_threads_is_safe(db):
    """sqlite-utils reads run inside a SAVEPOINT and its writes commit an implicit transaction:
    on a shared connection another thread's BEGIN used to land inside them ("cannot start a
    transaction within a transaction") and a failing call could commit another's rows."""
    db.execute("create table t (id integer primary key, thread integer, n integer, kind text)")
    errors: list[BaseException] = []
    start = threading.Barrier(8)

    class Planned(Exception):
        pass

    def worker(k: int) -> None:
        start.wait()
        for n in range(40):
            try:
                if n % 4 == 0:
                    list(db.query("select count(*) from t where thread = ?", [k]))
                elif n % 4 == 1:
                    db["t"].insert({"thread": k, "n": n, "kind": "plain"})
                elif n % 4 == 2:
                    with transaction(db):
                        db["t"].insert({"thread": k, "n": n, "kind": "tx"})
                        db.execute("insert into t (thread, n, kind) values (?, ?, 'tx')", [k, n])
                else:
                    with pytest.raises(Planned), transaction(db):
                        db["t"].insert({"thread": k, "n": n, "kind": "rolled back"})
                        raise Planned
            except BaseException as exc:  # reported below
                errors.append(exc)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, f"{len(errors)} calls failed, first: {errors[0]!r}"
    counts = dict(db.execute("select kind, count(*) from t group by kind").fetchall())
    assert counts == {"plain": 8 * 10, "tx": 8 * 10 * 2}  # nothing of a failed call committed
    assert not db.conn.in_transaction


def test_dumps_of_empty_values_is_the_encoders():
    """dumps answers empty lists, dicts, tuples and None without the encoder (a bulk import
    encodes several per row): the same text the encoder gives, and anything else still encoded."""
    import json

    from core.store.connection import dumps

    for value in (None, [], {}, (), "", 0, False, 0.0, [None], {"b": 1, "a": "é"}, (1,)):
        assert dumps(value) == json.dumps(value, ensure_ascii=False, sort_keys=True), value
