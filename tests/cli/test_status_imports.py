"""Start-up (issue 33): ``python -m core status`` on a SQLite database loads nothing of
PostgreSQL (SQLAlchemy's PostgreSQL dialect, psycopg); only a ``postgresql://`` URL imports them
(docs/storage.md, "Start-up")."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from core.store.database import open_db

ROOT = Path(__file__).resolve().parents[2]
#: Modules only a PostgreSQL URL needs.
POSTGRES_ONLY = ("sqlalchemy.dialects.postgresql", "psycopg", "asyncpg")

#: ``python -m core <args>`` in this process, then the loaded PostgreSQL-only modules.
_RUN = """
import runpy, sys
sys.argv = ["core", *sys.argv[1:]]
try:
    runpy.run_module("core", run_name="__main__", alter_sys=True)
except SystemExit as done:
    assert not done.code, done.code
print(sorted(m for m in sys.modules if m.startswith(PREFIXES)))
"""


def test_status_on_sqlite_imports_nothing_of_postgresql(tmp_path: Path) -> None:
    path = tmp_path / "status.db"
    open_db(path, create=True).close()
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            f"PREFIXES = {POSTGRES_ONLY!r}\n{_RUN}",
            "--db",
            str(path),
            "status",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "judgments" in done.stdout  # the status table was printed
    assert done.stdout.splitlines()[-1] == "[]", done.stdout.splitlines()[-1]
