"""Schema migrations with Alembic (issue 33): a new database is made by the baseline revision, and
one made by an earlier version of the workbench is upgraded in place with nothing lost.

The earlier version is the previous release's code itself (``git archive`` of
:data:`~core.store.schema_upgrade.LEGACY_RELEASE` into a temporary folder; skipped when this
clone's history lacks it): its ``demo --quick`` builds a SQLite database (about 20 s: documents,
passages, questions, answers, 3,784 judgments), and its ``migrate-db`` copies that into an empty
PostgreSQL database, migrated there by its own numbered migrations and DDL translation.
"""

from __future__ import annotations

import hashlib
import io
import os
import shutil
import subprocess
import sys
import tarfile
import textwrap
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from core.errors import DatabaseFileError
from core.store import schema_upgrade
from core.store.database import migrate_db, open_db
from core.store.pool import dispose
from core.store.revisions import HEAD, HERE, LEGACY_LAST
from core.store.schema_upgrade import LEGACY_RELEASE, applied_migrations, registered_migrations

ROOT = Path(__file__).resolve().parents[2]
#: Where the schema stood before each upgrade test: every table of that database.
BOOKKEEPING = {"alembic_version", "sqlite_sequence", "sqlite_stat1", "sqlite_stat4"}


def _url(target: Path | str) -> str:
    return (
        str(target).replace("postgresql://", "postgresql+psycopg://", 1)
        if "://" in str(target)
        else f"sqlite:///{target}"
    )


def rows_digest(target: Path | str) -> dict[str, tuple[int, str]]:
    """Per table (Alembic's and SQLite's bookkeeping aside): its row count and a checksum of its
    rows (SHA-256 of the sorted rows' text)."""
    engine = sa.create_engine(_url(target), poolclass=sa.pool.NullPool)
    try:
        with engine.connect() as conn:
            names = [n for n in sa.inspect(conn).get_table_names() if n not in BOOKKEEPING]
            out = {}
            for name in names:
                found = sorted(
                    repr(tuple(r)) for r in conn.exec_driver_sql(f'select * from "{name}"')
                )
                out[name] = (len(found), hashlib.sha256("\n".join(found).encode()).hexdigest())
            return out
    finally:
        engine.dispose()


def _plain(value: Any) -> Any:
    """An inspector's value with SQL expressions as their text (comparable, unlike the objects)."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in sorted(value.items())}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, sa.sql.ClauseElement):
        return str(value)
    return value


def schema_of(target: Path | str) -> dict[str, Any]:
    """Every table's columns (name, type, nullable, default), key, foreign keys, indexes and
    unique constraints, as SQLAlchemy's inspector reads them; and the triggers."""
    engine = sa.create_engine(_url(target), poolclass=sa.pool.NullPool)
    try:
        with engine.connect() as conn:
            seen = sa.inspect(conn)
            out: dict[str, Any] = {}
            for name in sorted(seen.get_table_names()):
                columns = [
                    (c["name"], str(c["type"]), c["nullable"], c.get("default"))
                    for c in seen.get_columns(name)
                ]
                out[name] = (
                    columns,
                    seen.get_pk_constraint(name)["constrained_columns"],
                    sorted(repr(_plain(x)) for x in seen.get_foreign_keys(name)),
                    sorted(repr(_plain(x)) for x in seen.get_indexes(name)),
                    sorted(repr(_plain(x)) for x in seen.get_unique_constraints(name)),
                )
            if engine.dialect.name == "sqlite":
                query = "select name, sql from sqlite_master where type = 'trigger'"
            else:
                query = (
                    "select t.tgname, pg_get_functiondef(t.tgfoid) from pg_trigger t "
                    "where not t.tgisinternal"
                )
            out["(triggers)"] = sorted(tuple(r) for r in conn.exec_driver_sql(query))
            return out
    finally:
        engine.dispose()


@pytest.fixture(scope="module")
def old_release(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The previous release's code, unpacked from this clone's history."""
    found = subprocess.run(
        ["git", "-C", str(ROOT), "archive", LEGACY_RELEASE], capture_output=True, check=False
    )
    if found.returncode != 0:
        pytest.skip(f"commit {LEGACY_RELEASE} is not in this clone: {found.stderr.decode()[:200]}")
    out = tmp_path_factory.mktemp("release")
    with tarfile.open(fileobj=io.BytesIO(found.stdout)) as archive:
        archive.extractall(out, filter="data")
    return out


def old_cli(release: Path, *args: str) -> None:
    """Run the previous release's ``python -m core`` (its own folder, none of this one's)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("WORKBENCH_", "PYTHON"))}
    done = subprocess.run(
        [sys.executable, "-m", "core", *args], cwd=release, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-2000:]


@pytest.fixture(scope="module")
def old_demo(old_release: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite database the previous release's ``demo --quick`` built."""
    path = tmp_path_factory.mktemp("old") / "old.db"
    old_cli(old_release, "--db", str(path), "demo", "--quick")
    return path


def _fresh(tmp_path: Path) -> Path:
    path = tmp_path / "fresh.db"
    open_db(path, create=True).close()
    return path


def test_head_is_alembic_s_one_head() -> None:
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    config = Config()
    config.set_main_option("script_location", str(HERE))
    config.set_main_option("path_separator", "os")
    assert ScriptDirectory.from_config(config).get_heads() == [HEAD]


def test_a_new_database_is_the_numbered_migrations_schema(tmp_path: Path) -> None:
    """The baseline's SQLite DDL is what the numbered migrations made, statement for statement."""
    legacy = open_db(":memory:", migrate=False)
    legacy.execute("create table schema_migrations (name text primary key, applied_at text)")
    for name, module in registered_migrations():
        module.apply(legacy)
        legacy.execute("insert into schema_migrations (name) values (?)", [name])
    query = "select type, name, sql from sqlite_master where name not like 'sqlite_%' order by 2"
    expected = legacy.execute(query).fetchall()
    fresh = open_db(_fresh(tmp_path))
    try:
        found = [r for r in fresh.execute(query).fetchall() if r[1] != "alembic_version"]
        assert found == expected
        assert applied_migrations(fresh) == [name for name, _ in registered_migrations()]
    finally:
        fresh.close()


def test_the_previous_release_s_sqlite_database_upgrades_with_nothing_lost(
    old_demo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "old.db"
    shutil.copy(old_demo, path)
    before = rows_digest(path)
    assert before["judgments"][0] > 1000 and before["passages"][0] > 1000
    open_db(path, create=False).close()
    assert capsys.readouterr().err == (
        f"upgraded the schema of {path} from {LEGACY_LAST} to revision {HEAD}\n"
    )
    assert rows_digest(path) == before
    assert schema_of(path) == schema_of(_fresh(tmp_path))
    open_db(path).close()  # a second open says nothing
    assert capsys.readouterr().err == ""


def test_the_previous_release_s_postgresql_database_upgrades_with_nothing_lost(
    old_release: Path, old_demo: Path, pg_template_copy: Any, capsys: Any
) -> None:
    pg_url = pg_template_copy(None)
    old_cli(old_release, "migrate-db", str(old_demo), pg_url)  # its own numbered migrations
    before = rows_digest(pg_url)
    assert before == rows_digest(old_demo) | {"schema_migrations": before["schema_migrations"]}
    assert "alembic_version" not in schema_of(pg_url)
    open_db(pg_url).close()
    assert f"from {LEGACY_LAST} to revision {HEAD}" in capsys.readouterr().err
    assert rows_digest(pg_url) == before
    fresh = pg_template_copy(None)
    open_db(fresh).close()
    dispose()
    assert schema_of(pg_url) == schema_of(fresh)


def test_an_older_sqlite_database_gets_its_numbered_migrations_then_the_baseline(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "older.db"
    older = open_db(path, create=True, migrate=False)
    older.execute("create table schema_migrations (name text primary key, applied_at text)")
    steps = registered_migrations()
    for name, module in steps[:-3]:  # stopped at m0773: as a release of that time left it
        module.apply(older)
        older.execute("insert into schema_migrations (name) values (?)", [name])
    older.execute("insert into settings (key, value) values ('base_url', 'http://x')")
    older.close()
    open_db(path).close()
    assert capsys.readouterr().err == (
        f"upgraded the schema of {path} from {steps[-4][0]} to revision {HEAD}\n"
    )
    assert schema_of(path) == schema_of(_fresh(tmp_path))
    assert rows_digest(path)["settings"][0] == 1


def test_an_older_postgresql_database_is_refused_with_the_release_to_upgrade_through(
    pg_template_copy: Any,
) -> None:
    pg_url = pg_template_copy(None)
    open_db(pg_url).close()
    import psycopg

    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("drop table alembic_version")
        conn.execute(f"delete from schema_migrations where name = '{LEGACY_LAST}'")
    dispose()  # a new process: nothing known of the database
    with pytest.raises(DatabaseFileError, match=f"commit {LEGACY_RELEASE} first") as caught:
        open_db(pg_url)
    assert "\n" not in str(caught.value)
    assert "alembic_version" not in schema_of(pg_url)  # nothing written


def test_a_revision_from_a_newer_workbench_is_refused(tmp_path: Path) -> None:
    path = _fresh(tmp_path)
    db = open_db(path)
    db.execute("update alembic_version set version_num = 'f9999'")
    db.close()
    with pytest.raises(DatabaseFileError, match="made by a newer version"):
        open_db(path)


def test_migrate_and_the_app_s_start_say_what_they_upgrade(old_demo: Path, tmp_path: Path) -> None:
    from cli_run import run_cli

    path = tmp_path / "old.db"
    shutil.copy(old_demo, path)
    assert run_cli(["--db", str(path), "migrate"]) == (
        0,
        f"upgraded the schema of {path} from {LEGACY_LAST} to revision {HEAD}\n",
        "",
    )
    assert run_cli(["--db", str(path), "migrate"]) == (
        0,
        f"{path} is at revision {HEAD}: nothing to upgrade\n",
        "",
    )
    served = tmp_path / "served.db"
    shutil.copy(old_demo, served)
    code, out, err = run_cli(["--db", str(served), "serve", "--dry-run"])
    assert code == 0 and f"WORKBENCH_DB={served}" in out
    assert err == f"upgraded the schema of {served} from {LEGACY_LAST} to revision {HEAD}\n"


def _recipe() -> str:
    """The revision of docs/storage.md's "Adding a table" recipe (its Python block)."""
    text = (ROOT / "docs" / "storage.md").read_text(encoding="utf-8")
    start = text.index("```python", text.index("### Adding a table")) + len("```python")
    return textwrap.dedent(text[start : text.index("```", start)])


def test_the_docs_recipe_revision_upgrades_a_database(
    db_path: Path | str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, refused: Any
) -> None:
    """A newcomer's revision (docs/storage.md, verbatim) runs on both databases: the table, its
    index, a column on ``judgments`` and the append-only triggers."""
    here = tmp_path / "revisions"
    shutil.copytree(HERE, here)
    (here / "versions" / "r0003_notes.py").write_text(_recipe(), encoding="utf-8")
    monkeypatch.setattr(schema_upgrade, "HERE", here)
    monkeypatch.setattr(schema_upgrade, "HEAD", "0003")
    db = open_db(db_path, migrate=False)
    try:
        assert migrate_db(db, "the test database") == schema_upgrade.Upgrade(HEAD, "0003")
        assert not db.conn.in_transaction  # the connection is back in autocommit, as it came
        db.execute("insert into notes (body, created_at) values ('integer; --', 't')")
        assert not db.conn.in_transaction  # committed by itself: autocommit kept
        assert [r["body"] for r in db.query("select body from notes")] == ["integer; --"]
        assert "note_id" in [r[0] for r in db.execute("select * from judgments").description]
        with pytest.raises(refused, match="notes is append-only"):
            db.execute("delete from notes")
    finally:
        db.close()


def test_the_baseline_refuses_a_downgrade_and_says_why():
    """Below the baseline there is no schema: a downgrade would drop every label, so it is
    refused with a clear error, before any statement runs (no migration context is needed)."""
    from core.errors import StoreError
    from core.store.revisions.versions import r0001_baseline

    with pytest.raises(StoreError, match="would drop every table and every label"):
        r0001_baseline.downgrade()
