"""Text order on a PostgreSQL database whose collation is not ``C`` (found writing the store
contract, issue 33): SQLite orders text by its bytes; PostgreSQL by the column's collation, which
is the database's (fixed when an operator creates it) unless the column names one. A database
made under a language's locale (ICU ``en``, like Debian's usual ``en_US.UTF-8``) sorts ``B2``
after ``a3``. Revision 0002 gives every text column ``COLLATE "C"`` (byte order), so store reads
ordered by text come back as on SQLite whatever the database's collation; a database made
before it upgrades in place, its rows kept."""

from __future__ import annotations

import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
import sqlalchemy as sa
from contract_registry import contract_case

from core.store import schema_upgrade
from core.store.database import open_db
from core.store.documents import Document, document_ids, write_document
from core.store.pool import dispose, engine_for
from core.store.revisions import HERE
from core.store.statements import sa_dialect
from core.store.tables import metadata

#: The one text column left with the database's collation (a JSON document; revision 0002).
KEPT = {("llm_calls", "tags")}
#: Document ids in SQLite's (byte) order, and in an English collation's.
BYTES, ENGLISH = ["B2", "a3", "b1"], ["a3", "b1", "B2"]


@pytest.fixture
def english_db(pg_server: str) -> Iterator[str]:
    """The URL of a new, empty database whose collation is ICU English (not byte order)."""
    name = f"t_collation_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(pg_server, autocommit=True) as admin:
        admin.execute(
            f"create database {name} template template0 "
            "locale_provider icu icu_locale 'en' locale 'C.UTF-8'"
        )
    yield pg_server.rsplit("/", 1)[0] + "/" + name
    dispose(name)
    with psycopg.connect(pg_server, autocommit=True) as admin:
        admin.execute(f"drop database if exists {name} with (force)")


def _not_c(url: str) -> set[tuple[str, str]]:
    """The text columns of ``url``'s tables whose collation is not ``"C"``."""
    with psycopg.connect(url) as conn:
        found = conn.execute(
            "select c.table_name, c.column_name from information_schema.columns c "
            "join information_schema.tables t using (table_schema, table_name) "
            "where c.table_schema = current_schema() and t.table_type = 'BASE TABLE' "
            "and c.data_type = 'text' and c.collation_name is distinct from 'C'"
        ).fetchall()
    return {(str(t), str(c)) for t, c in found}


def _rows(url: str) -> dict[str, list[str]]:
    """Every table's rows (as text, sorted in Python: no collation involved)."""
    with psycopg.connect(url) as conn:
        names = [
            r[0]
            for r in conn.execute(
                "select table_name from information_schema.tables "
                "where table_schema = current_schema() and table_type = 'BASE TABLE' "
                "and table_name <> 'alembic_version'"
            )
        ]
        return {n: sorted(repr(r) for r in conn.execute(f'select * from "{n}"')) for n in names}


def test_text_keys_sort_as_on_sqlite_whatever_the_database_s_collation(english_db):
    db = open_db(english_db)
    try:
        for doc_id in ("b1", "B2", "a3"):
            write_document(db, Document(id=doc_id, text="x", kind="book", source="test"))
        assert document_ids(db) == BYTES  # SQLite's order (bytes)
    finally:
        db.close()
    assert _not_c(english_db) == KEPT


def test_a_database_made_before_the_revision_upgrades_in_place_with_its_rows(
    english_db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    """A database the previous code made (revision 0001, the database's collation on every
    column) with rows in it: opened by this code it is upgraded to 0002 in place, every row
    kept, and its text keys sort by bytes."""
    before_revision = tmp_path / "revisions"
    shutil.copytree(HERE, before_revision)
    for later in (before_revision / "versions").glob("r0002_*.py"):
        later.unlink()
    with monkeypatch.context() as previous:  # the code as it was before revision 0002
        previous.setattr(schema_upgrade, "HERE", before_revision)
        previous.setattr(schema_upgrade, "HEAD", "0001")
        db = open_db(english_db)
        try:
            for doc_id in ("b1", "B2", "a3"):
                write_document(db, Document(id=doc_id, text="x", kind="book", source="test"))
            db["settings"].insert({"key": "Zeta", "value": "1"})
            db["settings"].insert({"key": "alpha", "value": "2"})
            assert document_ids(db) == ENGLISH  # what the previous code gave here
        finally:
            db.close()
        dispose()
        engine_for(english_db, postgres=True).revision = None  # a new process: nothing known
    assert ("documents", "id") in _not_c(english_db)
    kept = _rows(english_db)
    capsys.readouterr()
    db = open_db(english_db)
    try:
        assert "from revision 0001 to revision 0002" in capsys.readouterr().err
        assert document_ids(db) == BYTES
        ordered = db.execute("select key from settings order by key").fetchall()
        assert [r[0] for r in ordered] == ["Zeta", "alpha"]
    finally:
        db.close()
    assert _rows(english_db) == kept
    assert _not_c(english_db) == KEPT


@contract_case(open_db)
def test_the_declared_text_columns_are_byte_ordered_as_the_migrated_ones(db):
    """On PostgreSQL every declared text column is ``COLLATE "C"`` (but :data:`KEPT`), and so is
    the migrated database's; on SQLite the declaration is plain ``TEXT`` (bytes already)."""
    dialect = sa_dialect(db.dialect.name)
    declared = {
        (table.name, column.name): column.type.compile(dialect=dialect)
        for table in metadata.tables.values()
        for column in table.columns
        if isinstance(column.type, sa.Text)
    }
    if db.dialect.name == "sqlite":
        assert set(declared.values()) == {"TEXT"}
        return
    assert {k for k, v in declared.items() if v != 'TEXT COLLATE "C"'} == KEPT
    url = db.conn.raw.info.dsn  # type: ignore[attr-defined]
    assert _not_c(url) == KEPT
