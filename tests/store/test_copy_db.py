"""``migrate-db`` (core/store/copy_db.py): a demo database copied SQLite -> PostgreSQL -> SQLite
equal row for row, refusals that leave DEST untouched, and the checksum and row-order helpers.

The PostgreSQL half uses the throwaway server of ``tests/pg_server.py`` (skipped without its
binaries, except under ``CI=true``).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from contract_registry import contract_case
from pg_server import pg_url  # noqa: F401  (a fixture; pg_server is conftest's, shared)

from core.__main__ import main
from core.store import copy_db
from core.store.copy_db import TablePlan, table_checksum
from core.store.database import open_db
from core.store.engine import Database
from core.store.revisions import HEAD


@pytest.fixture(scope="module")
def demo_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A ``demo --quick`` database (about 9,000 rows in a dozen tables), built once."""
    path = tmp_path_factory.mktemp("demo") / "demo.db"
    assert main(["--db", str(path), "demo", "--quick"]) == 0
    return path


def sqlite_tables(path: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Every table's rows (``schema_migrations`` and SQLite's own aside), sorted (a text key's
    rowid is its insertion order, which a copy through PostgreSQL need not keep)."""
    conn = sqlite3.connect(path)
    try:
        names = [
            r[0]
            for r in conn.execute("select name from sqlite_master where type = 'table'")
            if r[0] not in copy_db.SKIPPED
        ]
        return {n: sorted(conn.execute(f'select * from "{n}"').fetchall(), key=repr) for n in names}
    finally:
        conn.close()


def contents(where: Path | str) -> dict[str, list[tuple[Any, ...]]]:
    """:func:`sqlite_tables` of a SQLite file, or the same of a PostgreSQL database (read with a
    plain, unmigrated connection: reading writes nothing)."""
    if isinstance(where, Path):
        return sqlite_tables(where)
    db = open_db(where, migrate=False)
    try:
        names = [n for n in db.table_names() if n not in copy_db.SKIPPED]
        return {n: sorted(db.execute(f'select * from "{n}"').fetchall(), key=repr) for n in names}
    finally:
        db.close()


def untouched(where: Path | str) -> bool:
    """Nothing copied to DEST: no SQLite file was left behind; a PostgreSQL database (which an
    operator made, so it stays) holds no row (its schema may have been migrated)."""
    if isinstance(where, Path):
        return not where.exists()
    return not any(contents(where).values())


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_sqlite_to_postgresql_and_back_is_equal_row_for_row(
    demo_db: Path,
    pg_url: str,  # noqa: F811  (the fixture imported above)
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(capsys, "migrate-db", str(demo_db), pg_url)
    assert (code, err) == (0, "")
    assert "verified row for row" in out
    back = tmp_path / "back.db"
    code, out, err = run(capsys, "migrate-db", pg_url, str(back))
    assert (code, err) == (0, "")
    before, after = sqlite_tables(demo_db), sqlite_tables(back)
    assert sum(map(len, before.values())) > 5000
    assert before == after
    # the identity sequences moved past the copied ids: a new judgment gets a fresh id
    pg = open_db(pg_url)
    try:
        # vacuumed and analysed (copy_database): statistics and every page all-visible
        pages, visible, tuples = pg.execute(
            "select relpages, relallvisible, reltuples from pg_class where relname = 'judgments'"
        ).fetchone()
        assert pages > 0 and visible == pages and tuples > 0
        biggest = pg.execute("select max(id) from judgments").fetchone()[0]
        next_id = pg.execute("select nextval(pg_get_serial_sequence('judgments', 'id'))")
        assert next_id.fetchone()[0] == biggest + 1
    finally:
        pg.close()


@contract_case(open_db)
def test_sqlite_to_either_prints_the_counts(
    demo_db: Path, new_db_location: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    dest = new_db_location("copy")
    code, out, _ = run(capsys, "migrate-db", str(demo_db), str(dest))
    assert code == 0
    counts = {line.split()[0]: line.split()[1:3] for line in out.splitlines()[1:-1]}
    assert counts["judgments"][0] == counts["judgments"][1] != "0"
    source, copied = sqlite_tables(demo_db), contents(dest)
    assert {t: len(r) for t, r in copied.items()} == {t: len(r) for t, r in source.items()}
    assert copied == source


@contract_case(open_db)
def test_a_non_empty_dest_is_refused_and_left_as_it_was(
    demo_db: Path, new_db_location: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    dest = new_db_location("full")
    db = open_db(dest)
    db["settings"].insert({"key": "base_url", "value": "https://x.example"})
    db.close()
    code, out, err = run(capsys, "migrate-db", str(demo_db), str(dest))
    assert code == 2 and out == ""
    assert err.startswith("error: DEST is not empty: settings (1)") and err.count("\n") == 1
    assert {k: len(v) for k, v in contents(dest).items() if v} == {"settings": 1}


@contract_case(open_db)
@pytest.mark.parametrize("case", ["same", "missing", "older-schema", "older-revision"])
def test_bad_arguments_are_one_error_line_and_write_nothing(
    case: str,
    demo_db: Path,
    tmp_path: Path,
    new_db_location: Any,
    capsys: pytest.CaptureFixture[str],
) -> None:
    dest: Path | str = new_db_location("dest")
    src = str(demo_db)
    if case == "same":
        dest = demo_db
    elif case == "missing":
        src = str(tmp_path / "nope.db")
    else:
        older = tmp_path / "older.db"
        db = open_db(older)
        if case == "older-schema":
            db.execute(
                "delete from schema_migrations where name = "
                "(select max(name) from schema_migrations)"
            )
        else:  # an Alembic revision DEST's copy of the workbench is past
            db.execute("update alembic_version set version_num = '0000'")
        db.close()
        src = str(older)
    before = sqlite_tables(demo_db)
    code, out, err = run(capsys, "migrate-db", src, str(dest))
    assert code == 2 and out == "" and err.startswith("error: ") and err.count("\n") == 1
    assert sqlite_tables(demo_db) == before
    if case != "same":
        assert untouched(dest)
    if case == "older-schema":
        assert "different schema versions" in err
    if case == "older-revision":
        assert f"different schema revisions (0000 and {HEAD})" in err


@contract_case(copy_db.copy_database, copy_db.read_rows, open_db)
def test_a_copy_that_does_not_verify_is_rolled_back(
    demo_db: Path,
    new_db_location: Any,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = copy_db.read_rows

    def drops_one_dest_row(db: Database, plan: TablePlan, chunk: int = 2000) -> Iterator[Any]:
        rows = list(real(db, plan, chunk))
        lose = plan.table == "judgments" and db.conn.in_transaction and db is not source[0]
        return iter(rows[1:] if lose else rows)

    source: list[Database] = []
    opener = copy_db.copy_database

    def remember(src: Database, dest: Database, applied: Any) -> Any:
        source.append(src)
        return opener(src, dest, applied)

    monkeypatch.setattr(copy_db, "read_rows", drops_one_dest_row)
    monkeypatch.setattr(copy_db, "copy_database", remember)
    dest = new_db_location("dest")
    code, _, err = run(capsys, "migrate-db", str(demo_db), str(dest))
    assert code == 2
    assert err.startswith("error: table judgments did not verify") and err.count("\n") == 1
    assert untouched(dest)


def test_checksum_ignores_row_order_and_sees_any_changed_value() -> None:
    rows = [(1, "a", 0.5, None), (2, "b", 1.0, b"\x00"), (3, "c", 2, "x")]
    assert table_checksum(iter(rows)) == table_checksum(iter(rows[::-1]))
    for changed in ([(1, "a", 0.5, "")], [(1, "a", 0.5000001, None)], [(1, "A", 0.5, None)]):
        assert table_checksum(iter(changed + rows[1:]))[1] != table_checksum(iter(rows))[1]
    assert table_checksum(iter([(1,)]))[1] != table_checksum(iter([(1.0,)]))[1]
    assert table_checksum(iter(rows + rows[:1]))[0] == 4


def test_a_row_waits_for_the_row_of_its_own_table_it_references() -> None:
    plan = TablePlan("documents", ("id", "parent_id"), ("id",), (("parent_id", "id"),))
    rows = [("a-summary", "z-story"), ("b", None), ("c", "a-summary"), ("z-story", None)]
    ordered = [r[0] for r in copy_db._parents_first(plan, iter(rows))]
    assert sorted(ordered) == sorted(r[0] for r in rows)
    assert ordered.index("z-story") < ordered.index("a-summary") < ordered.index("c")
    with pytest.raises(copy_db.CopyError, match="reference a missing row"):
        list(copy_db._parents_first(plan, iter([("a", "gone")])))


def test_the_quick_demo_runs_on_postgresql_with_the_same_counts(
    demo_db: Path,
    pg_url: str,  # noqa: F811  (the fixture imported above)
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["--db", pg_url, "demo", "--quick"]) == 0
    capsys.readouterr()
    code, _, err = run(capsys, "migrate-db", pg_url, str(tmp_path / "from_pg.db"))
    assert (code, err) == (0, "")
    on_pg = {t: len(r) for t, r in sqlite_tables(tmp_path / "from_pg.db").items()}
    assert on_pg == {t: len(r) for t, r in sqlite_tables(demo_db).items()}
    assert on_pg["judgments"] > 1000
