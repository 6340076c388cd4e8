"""core.store.engine: the stdlib layer behaves as sqlite-utils did on every call the code makes.

sqlite-utils (a dev requirement now) is the independent reference: each case runs the same calls
through both layers on two fresh databases and compares what is stored and what comes back.
"""

from __future__ import annotations

import datetime
import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from contract_registry import contract_case

from core.store.connection import connect, transaction
from core.store.engine import SQLITE, Database, NotFoundError, unique_keys

sqlite_utils = pytest.importorskip("sqlite_utils")

DDL = (
    "create table t (id integer primary key, name text unique, n integer, data text, "
    "day text, kept text default 'd')",
    "create table kv (key text primary key, value text, note text)",
    "create table pair (a text, b integer, v text, primary key (a, b))",
)


def both(tmp_path: Path) -> list[Any]:
    """The same schema behind an engine Database and a sqlite_utils.Database."""
    out: list[Any] = []
    for name, make in (("engine", Database), ("reference", sqlite_utils.Database)):
        db = make(connect(tmp_path / f"{name}.db"))
        for sql in DDL:
            db.execute(sql)
        out.append(db)
    return out


def dump(db: Any) -> dict[str, list[tuple[Any, ...]]]:
    return {
        t: db.execute(f"select * from {t} order by rowid").fetchall() for t in ("t", "kv", "pair")
    }


CASES: dict[str, Callable[[Any], Any]] = {
    "insert returns the new id": lambda db: [
        db["t"].insert({"name": n, "n": i}).last_pk for i, n in enumerate("abc")
    ],
    "insert encodes dicts, lists and dates": lambda db: (
        db["t"]
        .insert(
            {
                "name": "x",
                "data": {"b": [1, "é"], "a": (2, 3)},
                "day": datetime.date(2026, 12, 1),
            }
        )
        .last_pk
    ),
    "insert ignore keeps the old row": lambda db: (
        (
            db["t"].insert({"name": "a", "n": 1}),
            db["t"].insert({"name": "a", "n": 2}, ignore=True),
        )
        and None
    ),
    "insert replace overwrites": lambda db: (
        (
            db["kv"].insert({"key": "k", "value": "1", "note": "n"}),
            db["kv"].insert({"key": "k", "value": "2"}, replace=True),
        )
        and None
    ),
    "insert_all unions keys in a batch": lambda db: (
        db["t"]
        .insert_all(
            [
                {"name": f"r{i}", "n": i} if i % 2 else {"name": f"r{i}", "data": [i]}
                for i in range(7)
            ],
            batch_size=3,
        )
        .count
    ),
    "upsert updates only the given columns": lambda db: (
        db["kv"].upsert({"key": "k", "value": "1", "note": "keep"}, pk="key").last_pk,
        db["kv"].upsert({"key": "k", "value": "2"}, pk="key").last_pk,
        db["pair"].upsert({"a": "x", "b": 1, "v": "1"}, pk=("a", "b")).last_pk,
        db["pair"].upsert({"a": "x", "b": 1, "v": "2"}, pk=("a", "b")).last_pk,
    ),
    "update by key": lambda db: (
        db["kv"].insert({"key": "k", "value": "1"}),
        db["kv"].update("k", {"value": {"x": 1}}).last_pk,
    )[1],
    "get by single and compound key": lambda db: (
        db["kv"].insert({"key": "k", "value": "1"}),
        db["pair"].insert({"a": "x", "b": 2, "v": "w"}),
        db["kv"].get("k"),
        db["pair"].get(("x", 2)),
    )[2:],
    "count, rows, names": lambda db: (
        db["t"].insert_all([{"name": str(i)} for i in range(5)]),
        db["t"].count,
        [r["name"] for r in db["t"].rows],
        sorted(db.table_names()),
        db.view_names(),
    )[1:],
    "query gives dict rows with repeated names kept": lambda db: (
        db["t"].insert({"name": "a", "n": 1}),
        list(db.query("select t.id, t.name, t.id, :x as x from t", {"x": 5})),
        next(db.query("select count(*) as n from t where n = ?", [1])),
    )[1:],
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_engine_matches_sqlite_utils(tmp_path: Path, case: str) -> None:
    engine, reference = both(tmp_path)
    assert CASES[case](engine) == CASES[case](reference)
    assert dump(engine) == dump(reference)


def test_missing_rows_and_bad_calls_fail_loudly(db: Database, backend: str) -> None:
    engine = db
    for sql in DDL:
        engine.execute(sql)
    with pytest.raises(NotFoundError):
        engine["kv"].get("nope")
    with pytest.raises(NotFoundError):
        engine["kv"].update("nope", {"value": "1"})
    with pytest.raises(ValueError, match="upsert"):
        engine["kv"].upsert({"value": "1"}, pk="key")
    with pytest.raises(ValueError, match="either"):
        engine["t"].insert({"name": "a"}, ignore=True, replace=True)
    with pytest.raises(ValueError, match="alter"):
        engine["t"].insert({"name": "a"}, alter=True)
    with pytest.raises(ValueError, match="execute"):
        engine.query("update t set n = 1")
    missing, taken = (sqlite3.OperationalError, sqlite3.IntegrityError)
    if backend == "postgresql":
        import psycopg

        missing, taken = (psycopg.errors.UndefinedTable, psycopg.errors.UniqueViolation)
    with pytest.raises(missing):
        engine["no_such"].insert({"a": 1})
    with pytest.raises(taken):
        engine["t"].insert_all([{"name": "z"}, {"name": "z"}])
    assert engine["t"].count == 0  # the failed batch rolled back as a whole


@contract_case(transaction)
def test_insert_all_inside_a_transaction_rolls_back_with_it(db: Database) -> None:
    with pytest.raises(RuntimeError), transaction(db):
        db["settings"].insert_all([{"key": f"k{i}", "value": "v"} for i in range(250)])
        raise RuntimeError
    assert db["settings"].count == 0 and not db.conn.in_transaction
    db["settings"].insert_all([{"key": f"k{i}", "value": "v"} for i in range(250)], batch_size=7)
    assert db["settings"].count == 250 and not db.conn.in_transaction


def test_threads_sharing_a_connection_batch_insert_safely(db: Database) -> None:
    errors: list[BaseException] = []

    def work(k: int) -> None:
        try:
            for n in range(10):
                rows = [{"key": f"{k}-{n}-{i}", "value": "v"} for i in range(20)]
                db["settings"].insert_all(rows, batch_size=6)
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and db["settings"].count == 6 * 10 * 20


def test_dialect_spelling() -> None:
    assert SQLITE.quote('a"b') == '"a""b"'
    assert SQLITE.insert_sql("t", ["a", "b"], "ignore") == (
        'insert or ignore into "t" ("a", "b") values (?, ?)'
    )
    assert SQLITE.upsert_sql("kv", ["key", "value"], ["key"]) == (
        'insert into "kv" ("key", "value") values (?, ?) '
        'on conflict ("key") do update set "value" = excluded."value"'
    )
    assert unique_keys(["id", "id", "id_2", "id"]) == ["id", "id_3", "id_2", "id_4"]


def test_the_cli_start_up_path_does_not_import_pandas() -> None:
    """open_db no longer loads sqlite-utils, which imported pandas and numpy."""
    import subprocess
    import sys

    code = (
        "import sys; from core.store.database import open_db; open_db(':memory:'); "
        "print('pandas' in sys.modules, 'sqlite_utils' in sys.modules)"
    )
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True
    )
    assert out.stdout.split() == ["False", "False"]
