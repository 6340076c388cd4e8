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

import core.store.tables_exam
import core.store.tables_more
import core.store.tables_people
import core.store.tables_reads  # noqa: F401  (each adds its tables to the MetaData)
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
    """``metadata.create_all`` of the tables with triggers (the whole MetaData is no schema of its
    own on PostgreSQL: ``llm_calls``' generated columns call the baseline's ``json_extract``)."""
    engine = sa.create_engine(_url(target), poolclass=sa.pool.NullPool)
    try:
        metadata.create_all(engine, tables=[metadata.tables[name] for name in TRIGGERS])
    finally:
        engine.dispose()


def test_alembic_and_the_metadata_make_the_same_triggers(
    new_db_location: Callable[[str], Path | str],
) -> None:
    by_alembic, by_metadata = new_db_location("alembic"), new_db_location("metadata")
    open_db(by_alembic, create=True).close()  # alembic upgrade head
    dispose()
    _from_metadata(by_metadata)
    made = triggers_of(by_alembic)
    names = {t.name for triggers in TRIGGERS.values() for t in triggers}
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
