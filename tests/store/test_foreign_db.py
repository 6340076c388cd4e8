"""Another application's database is refused before anything is written (issue 38, item 3).

A SQLite file of someone else's tables (a browser's ``moz_places``, a Rails ``schema_migrations``)
given as ``--db``, as ``migrate-db``'s DEST or as its SRC is one ``error:`` line and exit 2, with
the file byte-identical, its journal mode unchanged and no ``-wal`` left beside it. A file with no
tables is a new database only for ``init``. ``migrate-db`` reads its SRC read-only (``mode=ro``):
a workbench database in rollback-journal mode stays so, byte for byte. On PostgreSQL a database of
someone else's tables is refused before migrating, its rows and tables unchanged.
"""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest
from contract_registry import contract_case
from pg_server import pg_url  # noqa: F401  (a fixture; pg_server is conftest's, shared)

from core.__main__ import main
from core.store.database import open_db

ROOT = Path(__file__).resolve().parents[2]
BOOK = ROOT / "demo" / "books" / "pg135_les_miserables_hugo_hapgood.txt"


def _sqlite_file(path: Path, *statements: str) -> Path:
    """A SQLite file made by plain ``sqlite3`` (rollback journal, as most applications keep it)."""
    conn = sqlite3.connect(path)
    for statement in statements:
        conn.execute(statement)
    conn.commit()
    conn.close()
    return path


def _places(tmp: Path) -> Path:
    return _sqlite_file(
        tmp / "places.sqlite",
        "create table moz_places (id integer primary key, url text, title text)",
        "insert into moz_places (url, title) values ('https://example.org/', 'Example')",
    )


def _rails(tmp: Path) -> Path:
    return _sqlite_file(
        tmp / "rails.sqlite3",
        "create table schema_migrations (version varchar primary key)",
        "create table users (id integer primary key, email text)",
        "insert into schema_migrations values ('20240101000000')",
    )


def _state(path: Path) -> tuple[str, str, bool]:
    """(SHA-256 of the bytes, journal mode, whether a -wal file is beside it)."""
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        mode = conn.execute("pragma journal_mode").fetchone()[0]
    finally:
        conn.close()
    return digest, mode, Path(f"{path}-wal").exists()


def _one_error(capsys: pytest.CaptureFixture[str], code: int, expected: str) -> str:
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert code == 2, (out, err)
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert expected in lines[0], err
    assert "Traceback" not in err
    return lines[0]


COMMANDS = (["status"], ["documents"], ["import-book", str(BOOK)], ["init"])


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
@pytest.mark.parametrize("make", [_places, _rails], ids=["moz_places", "rails"])
def test_another_applications_file_is_refused_untouched(tmp_path, capsys, make, command):
    path = make(tmp_path)
    before = _state(path)
    assert before[1] == "delete" and not before[2]
    line = _one_error(capsys, main(["--db", str(path), *command]), "is not a workbench database")
    assert str(path) in line and ("moz_places" in line or "users" in line)
    assert _state(path) == before


def test_a_table_name_with_a_line_break_stays_on_the_one_line(tmp_path, capsys):
    path = _sqlite_file(tmp_path / "odd.sqlite", 'create table "evil\nerror: forged" (x)')
    before = _state(path)
    line = _one_error(capsys, main(["--db", str(path), "status"]), "is not a workbench database")
    assert "evil\\nerror: forged" in line
    assert _state(path) == before


def test_migrate_db_into_another_applications_file_is_refused_untouched(tmp_path, capsys):
    src = tmp_path / "wb.db"
    open_db(src, create=True).close()
    dest = _places(tmp_path)
    before = _state(dest)
    _one_error(capsys, main(["migrate-db", str(src), str(dest)]), "is not a workbench database")
    assert _state(dest) == before


def test_migrate_db_from_another_applications_file_is_refused_untouched(tmp_path, capsys):
    src = _places(tmp_path)
    before = _state(src)
    dest = tmp_path / "new.db"
    _one_error(capsys, main(["migrate-db", str(src), str(dest)]), "is not a workbench database")
    assert _state(src) == before
    assert not dest.exists()


def test_migrate_db_reads_its_source_read_only(tmp_path, capsys):
    """A workbench database in rollback-journal mode is copied and stays as it was, byte for byte
    (opening it for writing would switch it to WAL)."""
    src = tmp_path / "wb.db"
    db = open_db(src, create=True)
    db["settings"].insert({"key": "base_url", "value": "https://x.example"})
    db.close()
    _sqlite_file(src, "pragma journal_mode = delete")
    before = _state(src)
    assert before[1] == "delete"
    assert main(["migrate-db", str(src), str(tmp_path / "copy.db")]) == 0
    assert "copied 1 rows" in capsys.readouterr().out
    assert _state(src) == before


def test_a_file_without_tables_is_a_database_only_for_init(tmp_path, capsys):
    path = _sqlite_file(tmp_path / "blank.db", "pragma user_version = 7", "vacuum")
    assert path.stat().st_size > 0
    before = _state(path)
    _one_error(capsys, main(["--db", str(path), "status"]), "holds no tables")
    assert _state(path) == before
    assert main(["--db", str(path), "init"]) == 0
    assert "database exists" in capsys.readouterr().out
    assert main(["--db", str(path), "status"]) == 0


@contract_case(open_db)
def test_a_workbench_database_with_a_table_of_its_users_is_still_accepted(db_path, capsys):
    """A table someone added beside the workbench's does not make the database foreign."""
    db = open_db(db_path)
    db.execute("create table my_notes (id integer primary key, note text)")
    db.close()
    assert main(["--db", str(db_path), "status"]) == 0
    assert "error" not in capsys.readouterr().err


def test_a_postgresql_database_of_other_tables_is_refused_before_migrating(
    pg_url,  # noqa: F811  (the fixture imported above)
    tmp_path,
    capsys,
):
    import psycopg

    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("create table moz_places (id integer primary key, url text)")
        conn.execute("insert into moz_places values (1, 'https://example.org/')")

    def tables() -> list[tuple[str, int]]:
        with psycopg.connect(pg_url, autocommit=True) as conn:
            names = [
                r[0]
                for r in conn.execute(
                    "select table_name from information_schema.tables "
                    "where table_schema = current_schema() order by table_name"
                )
            ]
            return [(n, conn.execute(f"select count(*) from {n}").fetchone()[0]) for n in names]

    before = tables()
    assert before == [("moz_places", 1)]
    _one_error(capsys, main(["--db", pg_url, "status"]), "is not a workbench database")
    assert tables() == before
    src = tmp_path / "wb.db"
    open_db(src, create=True).close()
    _one_error(capsys, main(["migrate-db", str(src), pg_url]), "is not a workbench database")
    assert tables() == before


# A file whose only schema is a view, or whose header names another application
# (``application_id``), is foreign even for ``init``.
FOREIGN_WITHOUT_TABLES = [
    ("a-view", ["create view v as select 1 as one"]),
    ("an-application-id", ["pragma application_id = 1196444487"]),  # a GeoPackage's ('GPKG')
]


@pytest.mark.parametrize("command", [["init"], ["status"]], ids=lambda c: c[0])
@pytest.mark.parametrize(
    "statements", [c[1] for c in FOREIGN_WITHOUT_TABLES], ids=[c[0] for c in FOREIGN_WITHOUT_TABLES]
)
def test_a_file_of_another_application_without_tables_is_refused(
    tmp_path, capsys, statements, command
):
    path = _sqlite_file(tmp_path / "other.sqlite", *statements)
    before = _state(path)
    _one_error(capsys, main(["--db", str(path), *command]), "not a workbench database")
    assert _state(path) == before


def test_a_database_of_a_newer_workbench_is_refused_untouched(tmp_path, capsys):
    """A migration this copy does not know: its code cannot read that schema safely."""
    db_path = tmp_path / "wb.db"
    db = open_db(db_path, create=True)
    db.execute("insert into schema_migrations (name) values ('m9999_from_the_future')")
    db.close()
    before = hashlib.sha256(db_path.read_bytes()).hexdigest()
    for command in (["status"], ["import-book", str(BOOK)], ["init"]):
        line = _one_error(capsys, main(["--db", str(db_path), *command]), "newer")
        assert "m9999_from_the_future" in line
    assert hashlib.sha256(db_path.read_bytes()).hexdigest() == before
