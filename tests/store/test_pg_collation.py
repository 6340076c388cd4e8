"""Text order on a PostgreSQL database whose collation is not ``C`` (found writing the store
contract, issue 33): SQLite orders text by its bytes; PostgreSQL by the database's collation,
fixed when an operator creates the database. The test server is made under ``C.UTF-8`` (byte
order, like SQLite), so every contract case agrees; a server made under a language's locale
(``en_US.UTF-8``, Debian's usual default) sorts ``B2`` after ``a3``, and every store read ordered
by a text column (document ids, rater names, question ids before a seeded sample) comes back in
another order than on SQLite.

Strict xfail until the store sorts text keys bytewise on PostgreSQL too (``collate "C"`` on the
text key columns, or a check of ``datcollate`` when a database is opened): then it passes and
the mark must go."""

from __future__ import annotations

import uuid

import pytest

from core.store.database import open_db
from core.store.documents import Document, document_ids, write_document
from core.store.pool import dispose


@pytest.mark.xfail(
    strict=True, reason="PostgreSQL orders text by the database's collation, SQLite by bytes"
)
def test_text_keys_sort_as_on_sqlite_whatever_the_database_s_collation(pg_server):
    import psycopg

    name = f"t_collation_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(pg_server, autocommit=True) as admin:
        admin.execute(
            f"create database {name} template template0 "
            "locale_provider icu icu_locale 'en' locale 'C.UTF-8'"
        )
    try:
        db = open_db(pg_server.rsplit("/", 1)[0] + "/" + name)
        try:
            for doc_id in ("b1", "B2", "a3"):
                write_document(db, Document(id=doc_id, text="x", kind="book", source="test"))
            assert document_ids(db) == ["B2", "a3", "b1"]  # SQLite's order (bytes)
        finally:
            db.close()
    finally:
        dispose(name)
        with psycopg.connect(pg_server, autocommit=True) as admin:
            admin.execute(f"drop database if exists {name} with (force)")
