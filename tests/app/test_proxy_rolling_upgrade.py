"""A rolling upgrade behind the proxy (issue 37; docs/deploy.md, "Upgrades"): one server of a
newer release migrates the shared database while servers of the old release still run. The old
code must not go on reading and writing a schema it does not know: on both databases ``open_db``
refuses a database at an Alembic revision this code does not know with one line, also in a
process that had opened it before (each open checks the recorded revision against the one it
knows: one query), so an old server refuses at its next page run; the old CLI refuses too, and
so does the old app's start (``serve``). Nothing is changed by a refusal.

A newer release's migration is stood in for by recording a revision this code does not have
(``alembic_version``), which is what such a database looks like to the old code.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest
from bound_sql import run_sql
from browser_server import WAIT_S, streamlit_app
from browser_support import build_fixture_db

from core.errors import DatabaseFileError
from core.store.database import open_db, schema_version

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

from team_bench import protocol  # noqa: E402  (benchmarks/ is on the path above)

NEWER = "f0f0f0f0newer"


def _newer_release_migrated(location: Path | str) -> None:
    """What a newer release's migration leaves behind, as far as this code can tell."""
    db = open_db(location)
    try:
        run_sql(db, "update alembic_version set version_num = :v", v=NEWER)
    finally:
        db.close()


def _cli(location: Path | str, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "core", "--db", str(location), *argv],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.mark.postgresql  # on both databases
def test_the_old_code_refuses_a_database_a_newer_release_migrated(init_location) -> None:
    location = init_location("shared")
    open_db(location).close()  # the old server has opened it (its process knows the revision)
    judgments = _count(location)
    _newer_release_migrated(location)

    with pytest.raises(DatabaseFileError) as refused:  # the old server's next page run
        open_db(location)
    line = str(refused.value)
    assert "\n" not in line and "newer version" in line and NEWER in line
    assert "password" not in line

    for argv in (["status"], ["serve", "--dry-run"]):  # the old CLI, the old app's start
        done = _cli(location, *argv)
        lines = done.stderr.strip().splitlines()
        assert done.returncode == 2 and done.stdout == "", (argv, done.stderr)
        assert len(lines) == 1 and lines[0].startswith("error: ") and "newer version" in lines[0]

    db = open_db(location, migrate=False)  # refused untouched
    try:
        assert schema_version(db) == NEWER
    finally:
        db.close()
    assert _count(location) == judgments


def _count(location: Path | str) -> int:
    db = open_db(location, migrate=False)
    try:
        return int(db.execute("select count(*) from judgments").fetchone()[0])
    finally:
        db.close()


@pytest.fixture
def old_server(tmp_path: Path):
    """A running server (this code) over a fixture database: ``(path, base URL)``."""
    path = tmp_path / "team.db"
    build_fixture_db(path)
    with streamlit_app(path, tmp_path / "streamlit.log") as base:
        yield path, base


def _alerts(tab: protocol.Tab) -> str:
    """The page's alert boxes' text, Markdown escapes removed."""
    return " ".join(a.body for a in tab._of("alert")).replace("\\", "")


def test_an_old_server_refuses_at_its_next_page_run(old_server) -> None:
    """The page that ran fine says, at its next run, the one line instead of the page."""
    path, base = old_server

    async def visit() -> tuple[str, str]:
        tab = await protocol.Tab.open(base, "", "", WAIT_S)
        try:
            before = _alerts(tab)
            _newer_release_migrated(path)
            await tab.rerun(timeout_s=WAIT_S)
            return before, _alerts(tab)
        finally:
            await tab.close()

    before, after = asyncio.run(visit())
    assert "newer version" not in before
    assert "newer version" in after and NEWER in after, after
