"""Store contract (issue 33), the schema and the statement helpers: ``schema_upgrade``,
``schema``, ``sql_text``, ``statements.many_sender``, ``stored_enums``, the engine's value
helpers and ``text()`` statements sent as written, each case run on SQLite and on PostgreSQL (``db`` / ``seeded`` / ``new_db_location`` run on both)."""

from __future__ import annotations

import datetime
import decimal
import sqlite3
import uuid
from enum import StrEnum

import psycopg
import pytest
import sqlalchemy as sa
from contract_registry import contract_case

from core.errors import DatabaseFileError, StoreError
from core.store import engine, prepared, schema, schema_upgrade, sql_text, statements
from core.store.connection import transaction
from core.store.database import open_db
from core.store.questions import QuestionStatus, get_question
from core.store.revisions import HEAD
from core.store.stored_enums import stored_enum
from core.store.tables import questions
from core.store.tables_more import settings


@contract_case(
    schema_upgrade.alembic_revision,
    schema_upgrade.schema_revision,
    schema_upgrade.upgrade_schema,
    open_db,
)
def test_a_new_database_gets_the_schema_once_and_a_newer_one_is_refused(db, new_db_location):
    assert schema_upgrade.alembic_revision(db) == HEAD == schema_upgrade.schema_revision(db)
    assert schema_upgrade.upgrade_schema(db, "here") is None  # at the head: nothing to do
    fresh = open_db(new_db_location("fresh"), migrate=False, create=True)
    try:
        assert schema_upgrade.alembic_revision(fresh) is None
        assert schema_upgrade.schema_revision(fresh) is None
        done = schema_upgrade.upgrade_schema(fresh, "the new one")
        assert done == schema_upgrade.Upgrade(None, HEAD)
        assert done.line("the new one") == f"created the schema of the new one at revision {HEAD}"
        assert schema_upgrade.alembic_revision(fresh) == HEAD
        assert "judgments" in fresh.table_names()
        assert schema_upgrade.upgrade_schema(fresh, "the new one") is None  # once
        fresh.execute("update alembic_version set version_num = 'ffff'")
        assert schema_upgrade.schema_revision(fresh) == "ffff"
        with pytest.raises(DatabaseFileError, match="made by a newer version"):
            schema_upgrade.upgrade_schema(fresh, "the new one")
        assert schema_upgrade.alembic_revision(fresh) == "ffff"  # refused untouched
    finally:
        fresh.close()


#: A numbered migration's script (SQLite's spelling, as ``core/store/migrations/`` write them):
#: ``;``, ``--`` and a type name inside quoted text, comments holding ``;``.
SCRIPT = """
-- the planted table; its defaults are quoted text
create table planted_script (
    id integer primary key,
    k text default 'integer',  -- a type name; not a type
    semi text default 'a;b',
    dash text default '--',
    both_ text default 'it''s; -- not a comment',
    "odd;name" text default 'x'
);
insert into planted_script (id) values (1);;
insert into planted_script (id, dash) values (2, '-- two; ');
"""


@contract_case(schema.execute_script, sql_text.split_statements, sql_text.segments, transaction)
def test_a_script_is_cut_at_its_own_semicolons_and_stores_quoted_text_as_written(db):
    pieces = list(sql_text.segments('select \'a;b\' -- c;\n, "x""y" from t; \'open'))
    assert pieces == [
        (True, "select "),
        (False, "'a;b'"),
        (True, " "),
        (False, "-- c;"),
        (True, "\n, "),
        (False, '"x""y"'),
        (True, " from t; "),
        (False, "'open"),  # unterminated: to the end
    ]
    assert "".join(text for _, text in pieces).endswith("'open")
    found = sql_text.split_statements(SCRIPT)
    assert len(found) == 3 and found[1].strip() == "insert into planted_script (id) values (1)"
    assert "the planted table" not in found[0] and "a type name" not in found[0]  # comments
    assert "'it''s; -- not a comment'" in found[0] and '"odd;name"' in found[0]
    with transaction(db):
        schema.execute_script(db, SCRIPT)
    rows = db.query('select id, k, semi, dash, both_, "odd;name" as odd from planted_script')
    expected = {"k": "integer", "semi": "a;b", "both_": "it's; -- not a comment", "odd": "x"}
    assert sorted(rows, key=lambda r: r["id"]) == [
        {"id": 1, "dash": "--", **expected},
        {"id": 2, "dash": "-- two; ", **expected},
    ]
    with pytest.raises((sqlite3.OperationalError, psycopg.errors.SyntaxError)), transaction(db):
        schema.execute_script(db, "insert into planted_script (id) values (3); nonsense;")
    assert db.execute("select count(*) from planted_script").fetchone()[0] == 2  # rolled back


@contract_case(statements.many_sender, prepared.run_bound)
def test_one_compiled_statement_is_run_for_many_rows_given_in_any_column_order(db):
    insert = sa.insert(settings).values(key=sa.bindparam("key"), value=sa.bindparam("value"))
    in_order = statements.many_sender(db, insert, ["key", "value"])
    in_order([("a", "1"), ("b", "2")])
    swapped = statements.many_sender(db, insert, ["value", "key"])
    swapped(iter([("3", "c"), ("it's; 4", "d")]))  # a generator of tuples, values first
    swapped([])
    found = prepared.run_bound(db, sa.select(settings).order_by(settings.c.key)).fetchall()
    assert [tuple(r) for r in found] == [("a", "1"), ("b", "2"), ("c", "3"), ("d", "it's; 4")]
    with pytest.raises(ValueError):
        statements.many_sender(db, insert, ["key"])([("e", "5")])  # a value without a name


class Colour(StrEnum):
    RED = "red"
    BLUE = "blue"


@contract_case(stored_enum, get_question, prepared.scalar)
def test_stored_text_is_its_enum_member_and_an_unknown_one_names_its_column(seeded):
    db = seeded  # q1 pending
    text = prepared.scalar(db, sa.select(questions.c.status).where(questions.c.id == "q1"))
    assert stored_enum(QuestionStatus, text, "status", "q1") is QuestionStatus.PENDING
    assert stored_enum(Colour, "blue", "colour") is Colour.BLUE
    with pytest.raises(StoreError, match=r"column 'colour' holds 'green', not one of: red, blue"):
        stored_enum(Colour, "green", "colour")
    db.execute("update questions set status = 'paused' where id = 'q1'")
    with pytest.raises(StoreError, match=r"column 'status' of row 'q1' holds 'paused'"):
        get_question(db, "q1")


@contract_case(engine.storable, engine.unique_keys, statements.all_rows)
def test_values_are_stored_as_text_alike_and_repeated_column_names_kept_apart(seeded):
    db = seeded
    when = datetime.datetime(2030, 1, 2, 3, 4, 5, tzinfo=datetime.UTC)
    values = {
        "json": {"b": [1, (2, 3)], "a": "é"},
        "date": when,
        "day": datetime.date(2030, 1, 2),
        "money": decimal.Decimal("2.50"),
        "key": uuid.UUID(int=1),
        "wait": datetime.timedelta(seconds=90),
        "plain": "text",
        "none": None,
    }
    stored = {k: engine.storable(v) for k, v in values.items()}
    assert stored == {
        "json": '{"b": [1, [2, 3]], "a": "é"}',
        "date": "2030-01-02T03:04:05+00:00",
        "day": "2030-01-02",
        "money": 2.5,
        "key": "00000000-0000-0000-0000-000000000001",
        "wait": "0:01:30",
        "plain": "text",
        "none": None,
    }
    for name, value in values.items():  # each as the engine stores it, read back alike
        if name in ("money", "none"):
            continue
        db["settings"].insert({"key": name, "value": value})
    got = dict(db.execute("select key, value from settings").fetchall())
    assert got == {k: v for k, v in stored.items() if k not in ("money", "none")}
    assert [repr(engine.storable(v)) for v in (True, False)] == ["1", "0"]  # as SQLite stores it
    db["settings"].insert({"key": "flag", "value": True})  # PostgreSQL stored 'true'
    assert db.execute("select value from settings where key = 'flag'").fetchone()[0] == "1"
    flags = sa.Table(
        "t_flags",
        sa.MetaData(),
        sa.Column("k", sa.Integer, primary_key=True),
        sa.Column("flag", sa.Integer),
        prefixes=["TEMPORARY"],
    )
    prepared.run_ddl(db, sa.schema.CreateTable(flags))
    db["t_flags"].insert_all([{"k": 1, "flag": True}, {"k": 2, "flag": False}])  # PostgreSQL
    db["t_flags"].insert({"k": 3, "flag": True})  # refused a bool for an integer column
    assert db.execute("select k, flag from t_flags order by k").fetchall() == [
        (1, 1),
        (2, 0),
        (3, 1),
    ]
    prepared.run_ddl(db, sa.schema.DropTable(flags))
    assert engine.unique_keys(["id", "id", "id_2", "id"]) == ["id", "id_3", "id_2", "id_4"]
    assert engine.unique_keys(["a", "b"]) == ["a", "b"]
    both = sa.text(  # two columns named id: the second is id_2 on both databases
        "select q.id, a.id, a.system from questions q join answers a on a.question_id = q.id "
        "order by a.id"
    )
    rows = statements.all_rows(db, both)
    assert rows == [
        {"id": "q1", "id_2": 1, "system": "s1"},
        {"id": "q1", "id_2": 2, "system": "s2"},
    ]


@contract_case(engine.plain)
def test_a_plain_statement_is_sent_as_written_inside_and_outside_a_transaction(db):
    """``engine.plain`` sends a parameterless statement as it is on both databases: a ``%`` and
    a ``?`` inside a literal stay, and a savepoint rolled back undoes its write."""
    assert tuple(engine.plain(db.conn, "select 'a%b', '?', 1").fetchone()) == ("a%b", "?", 1)
    engine.plain(db.conn, "BEGIN")
    engine.plain(db.conn, "insert into settings (key, value) values ('kept', '1')")
    engine.plain(db.conn, "SAVEPOINT p")
    engine.plain(db.conn, "insert into settings (key, value) values ('undone', '2')")
    engine.plain(db.conn, "ROLLBACK TO p")
    engine.plain(db.conn, "RELEASE p")
    engine.plain(db.conn, "COMMIT")
    found = engine.plain(db.conn, "select key from settings where key in ('kept', 'undone')")
    assert [r[0] for r in found.fetchall()] == ["kept"]
    assert not db.conn.in_transaction


@contract_case(engine.plain, transaction, schema_upgrade.alembic_revision)
def test_the_engine_helpers_and_transactions_send_sql_as_written(db):
    """The engine's table helpers, ``transaction()`` (with a savepoint) and the schema
    bookkeeping send SQLAlchemy-compiled or plain statements (the PostgreSQL connection refuses
    a SQLite-spelled one): they work, and give the same rows on both databases."""
    table = db["settings"]
    with transaction(db):
        table.insert({"key": "a", "value": "1"})
        table.insert({"key": "a", "value": "x"}, ignore=True)
        with transaction(db):
            table.insert_all([{"key": "b", "value": "2"}, {"key": "c", "value": "3"}])
        table.insert({"key": "c", "value": "30"}, replace=True)
    table.update("b", {"value": "20"})
    table.upsert({"key": "d", "value": "4"}, pk="key")
    table.upsert({"key": "d", "value": "40"}, pk="key")
    assert table.get("a")["value"] == "1"
    assert table.count == 4
    assert sorted((r["key"], r["value"]) for r in table.rows) == [
        ("a", "1"), ("b", "20"), ("c", "30"), ("d", "40")
    ]  # fmt: skip
    with pytest.raises(engine.NotFoundError):
        table.update("zz", {"value": "0"})
    assert "settings" in db.table_names()
    assert schema_upgrade.alembic_revision(db) == HEAD


@contract_case(statements.run)
def test_text_with_bound_values_gives_the_same_rows_on_both(db):
    """One statement text for both databases (``text()`` with ``:name`` values, compiled per
    dialect, nothing rewritten): ``%`` and ``?`` inside literals stay text, a quoted name stays
    a name, ``on conflict do nothing`` skips a taken key, ``\\:`` is a literal colon."""
    insert = sa.text("insert into settings (key, value) values (:k, :v) on conflict do nothing")
    statements.run(db, insert.bindparams(k="k", v="50% ? done"))
    statements.run(db, insert.bindparams(k="k", v="ignored: the key is taken"))
    like = sa.text(
        "select \"key\", value from settings where value like '50%' || :tail and key = :k"
    )
    assert statements.run(db, like.bindparams(tail="%", k="k")).fetchall() == [("k", "50% ? done")]
    named = sa.text("select value from settings where key = :key and value <> '?\\:no'")
    assert statements.run(db, named.bindparams(key="k")).fetchall() == [("50% ? done",)]
    assert statements.run(db, sa.text("select '?\\:no'")).fetchall() == [("?:no",)]
