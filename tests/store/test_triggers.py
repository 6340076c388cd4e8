"""The label tables' triggers are SQLAlchemy ``DDL`` defined once (:mod:`core.store.triggers`,
issue 33): a database made by Alembic (``upgrade head``: the baseline revision runs them) and one
made from the MetaData (``metadata.create_all``: the tables carry them) hold the same triggers,
definition for definition, on both databases; and the triggers do their job on the latter."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from contract_registry import contract_case

import core.store.tables_exam
import core.store.tables_more
import core.store.tables_people
import core.store.tables_reads  # noqa: F401  (each adds its tables to the MetaData)
from core.store import sql_functions, triggers
from core.store.database import open_db
from core.store.pool import dispose
from core.store.tables import metadata
from core.store.triggers import TRIGGERS


def _url(target: Path | str) -> str:
    text = str(target)
    if "://" in text:
        return text.replace("postgresql://", "postgresql+psycopg://", 1)
    return f"sqlite:///{text}"


def triggers_of(target: Path | str) -> list[tuple[Any, ...]]:
    """Every trigger of the database: name, table and definition (on PostgreSQL also its
    function's definition), sorted."""
    engine = sa.create_engine(_url(target), poolclass=sa.pool.NullPool)
    try:
        with engine.connect() as conn:
            if engine.dialect.name == "sqlite":
                query = "select name, tbl_name, sql from sqlite_master where type = 'trigger'"
            else:
                query = (
                    "select t.tgname, t.tgrelid::regclass::text, pg_get_triggerdef(t.oid), "
                    "pg_get_functiondef(t.tgfoid) from pg_trigger t where not t.tgisinternal"
                )
            return sorted(tuple(r) for r in conn.exec_driver_sql(query))
    finally:
        engine.dispose()


def _from_metadata(target: Path | str) -> None:
    """``metadata.create_all``: every table of the MetaData, on an empty database (on PostgreSQL
    after the functions ``llm_calls``' generated columns call, :mod:`core.store.sql_functions`)."""
    engine = sa.create_engine(_url(target), poolclass=sa.pool.NullPool)
    try:
        metadata.create_all(engine)
    finally:
        engine.dispose()


@contract_case(triggers.create_all, triggers.attach)
def test_alembic_and_the_metadata_make_the_same_triggers(
    new_db_location: Callable[[str], Path | str],
) -> None:
    by_alembic, by_metadata = new_db_location("alembic"), new_db_location("metadata")
    open_db(by_alembic, create=True).close()  # alembic upgrade head
    dispose()
    _from_metadata(by_metadata)
    made = triggers_of(by_alembic)
    names = {t.name for table in TRIGGERS.values() for t in table}
    assert {row[0] for row in made} == names and len(names) == 22
    assert triggers_of(by_metadata) == made


def test_the_metadata_s_triggers_refuse_an_update_a_replace_and_another_owner(
    new_db_location: Callable[[str], Path | str],
) -> None:
    target = new_db_location("metadata")
    _from_metadata(target)
    engine = sa.create_engine(_url(target), poolclass=sa.pool.NullPool)
    review = (
        "insert into reviews (id, question_id, annotator, decision, supersedes, created_at) "
        "values ({id}, 'q1', '{who}', 'ok', {sup}, 't')"
    )
    refused = {
        "update reviews set decision = 'no'": "reviews is append-only: add a superseding row",
        "delete from reviews": "reviews is append-only: add a superseding row",
        review.format(id=1, who="alice", sup="null"): "that id exists",
        review.format(id=2, who="bob", sup=1): "superseded by its own annotator",
    }
    try:
        with engine.begin() as conn:
            conn.exec_driver_sql(review.format(id=1, who="alice", sup="null"))
        for statement, message in refused.items():
            with pytest.raises(sa.exc.DatabaseError, match=message), engine.begin() as conn:
                conn.exec_driver_sql(statement)
        with engine.begin() as conn:
            conn.exec_driver_sql(review.format(id=2, who="alice", sup=1))  # her own: fine
            assert conn.exec_driver_sql("select count(*) from reviews").scalar() == 2
    finally:
        engine.dispose()


@contract_case(triggers.append_only, triggers.no_replace, triggers.same_owner)
def test_the_three_rules_on_a_new_table(new_db_location: Callable[[str], Path | str]) -> None:
    """What a revision adding a label table does: its rules' ``DDL`` on the table."""
    engine = sa.create_engine(_url(new_db_location("rules")), poolclass=sa.pool.NullPool)
    rules = [
        *triggers.append_only("notes"),
        triggers.no_replace("notes"),
        triggers.same_owner("notes", "owner", "notes: only its owner supersedes a note"),
    ]
    note = "insert into notes (id, owner, supersedes) values ({id}, '{who}', {sup})"
    refused = {
        "update notes set owner = 'bob'": "notes is append-only: add a superseding row",
        "delete from notes": "notes is append-only: add a superseding row",
        note.format(id=1, who="alice", sup="null"): "notes is append-only: that id exists",
        note.format(id=2, who="bob", sup=1): "notes: only its owner supersedes a note",
    }
    try:
        with engine.begin() as conn:
            conn.exec_driver_sql(
                "create table notes (id bigint primary key, owner text, supersedes bigint)"
            )
            for rule in rules:
                for ddl in rule.ddl(conn.dialect.name):
                    conn.execute(ddl)
            conn.exec_driver_sql(note.format(id=1, who="alice", sup="null"))
        for statement, message in refused.items():
            with pytest.raises(sa.exc.DatabaseError, match=message), engine.begin() as conn:
                conn.exec_driver_sql(statement)
        with engine.begin() as conn:
            conn.exec_driver_sql(note.format(id=2, who="alice", sup=1))
            assert conn.exec_driver_sql("select count(*) from notes").scalar() == 2
    finally:
        engine.dispose()


@contract_case(sql_functions.attach, sql_functions.ddl, sql_functions.create_all)
def test_the_metadata_alone_makes_a_schema_whose_functions_work(
    new_db_location: Callable[[str], Path | str],
) -> None:
    """``metadata.create_all`` on an empty database makes every table (on PostgreSQL after its
    functions: it failed there before they were attached), and what they compute is SQLite's:
    ``llm_calls``' generated columns read the JSON tags, ``sum`` of booleans counts the true
    ones, ``json_valid`` tells JSON from other text. ``create_all`` again changes nothing."""
    target = new_db_location("metadata")
    _from_metadata(target)
    engine = sa.create_engine(_url(target), poolclass=sa.pool.NullPool)
    try:
        with engine.begin() as conn:
            sql_functions.create_all(conn)  # ``create or replace``: a second time is harmless
            conn.execute(
                sa.text(
                    "insert into llm_calls (model, provider, tags, status, created_at) "
                    "values ('m', 'p', :tags, 'ok', 'now')"
                ),
                {"tags": '{"system": "gpt-4o \'q\'", "judge": "autoais"}'},
            )
            row = conn.execute(sa.text("select system_name, judge_name from llm_calls")).one()
            assert tuple(row) == ("gpt-4o 'q'", "autoais")
            counted = conn.execute(
                sa.text(
                    "select sum(b) from (select 1 = 1 as b union all select 1 = 0 union all "
                    "select 2 = 2) as t"
                )
            ).scalar_one()
            assert counted == 2
            valid = conn.execute(
                sa.text("select json_valid('{\"a\": 1}'), json_valid('not json')")
            ).one()
            assert [bool(v) for v in valid] == [True, False]
    finally:
        engine.dispose()
