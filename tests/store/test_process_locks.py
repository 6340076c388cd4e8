"""The server keeps its SQLite locks while other programs use the database (issue 38, item 1).

On Linux a process that closes *any* descriptor of a file loses *all* its POSIX locks on it, so
a Python ``open()``/``close()`` of the database beside a live connection unlocks that
connection; another process's closing connection then checkpoints and deletes the write-ahead
log under it ("disk I/O error", rows reported written and then missing). The database file
check read the header that way on every page run. Here a server-like writer (its own process:
a held connection and two threads opening one connection per write) runs beside what an admin
and a colleague do at the same time: ``python -m core`` style open/read/write/close in this
process, and a plain ``sqlite3`` reader opening and closing the file at a high rate.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from core.store import dbfile
from core.store.connection import transaction
from core.store.database import open_db
from core.store.open_files import connections_open_to

ROOT = Path(__file__).resolve().parents[2]
WRITES = 1000


def _new_db(path: Path) -> Path:
    db = open_db(path, create=True)
    db.execute("create table probe (id integer primary key, origin text not null)")
    db.conn.close()
    return path


def test_server_writer_beside_cli_and_sqlite3_loses_nothing(tmp_path):
    path = _new_db(tmp_path / "team.db")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    server = subprocess.Popen(
        [sys.executable, str(Path(__file__).with_name("server_writer.py")), str(path), str(WRITES)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    cli_rows, rounds = 0, 0
    while server.poll() is None or rounds < 3:
        # a colleague's sqlite3 shell / Datasette: open, read, close
        plain = sqlite3.connect(path)
        plain.execute("select count(*) from probe").fetchone()
        plain.close()
        # an admin's CLI command: the workbench's own open (file check, migrations), a write
        db = open_db(path)
        try:
            with transaction(db):
                db.execute("insert into probe (id, origin) values (?, 'cli')", [-1 - cli_rows])
            cli_rows += 1
        finally:
            db.conn.close()
        rounds += 1
    out, err = server.communicate()
    assert server.returncode == 0, err
    report = json.loads(out)
    assert report["n_errors"] == 0, report["errors"]
    assert report["written"] == WRITES
    check = sqlite3.connect(path)
    try:
        got = dict(check.execute("select origin, count(*) from probe group by origin").fetchall())
        assert check.execute("pragma integrity_check").fetchone()[0] == "ok"
    finally:
        check.close()
    assert got == {"server": WRITES, "cli": cli_rows}


def test_the_file_check_never_opens_a_file_this_process_has_open(tmp_path, monkeypatch):
    """With a connection open, the header is not read (closing that descriptor would drop the
    connection's locks); with none open it is, so a cut-short file is still refused."""
    path = _new_db(tmp_path / "one.db")
    reads: list[Path] = []
    real = dbfile._read_header
    monkeypatch.setattr(dbfile, "_read_header", lambda p: reads.append(p) or real(p))
    dbfile.check_db_file(path, create=False)
    assert len(reads) == 1
    held = open_db(path)  # its own check reads the header: no connection was open yet
    assert len(reads) == 2
    try:
        link = tmp_path / "link.db"
        link.symlink_to(path)  # another spelling of the same file is the same file
        assert connections_open_to(link) == 1
        dbfile.check_db_file(path, create=False)
        dbfile.check_db_file(link, create=False)
        second = open_db(link)
        assert connections_open_to(path) == 2
        second.conn.close()
        assert len(reads) == 2
    finally:
        held.conn.close()
    assert connections_open_to(path) == 0
    dbfile.check_db_file(path, create=False)
    assert len(reads) == 3


def test_a_connection_left_to_the_collector_leaves_the_register(tmp_path):
    import gc

    path = _new_db(tmp_path / "gc.db")
    db = open_db(path)
    assert connections_open_to(path) == 1
    del db
    gc.collect()
    assert connections_open_to(path) == 0


def _spy_on_open(monkeypatch, db_file: Path, opened: list[str]) -> None:
    """Record every ``open()`` (builtins, io, ``Path.open``) of ``db_file``, its log or its index
    (by device and inode) made while a connection of this process has ``db_file`` open."""
    import builtins
    import io

    def held(file: object) -> bool:
        if not isinstance(file, (str, os.PathLike)) or not os.path.exists(file):
            return False
        if connections_open_to(db_file) == 0:
            return False
        mine = os.stat(file)
        for suffix in ("", "-wal", "-shm"):
            other = Path(f"{db_file}{suffix}")
            if other.exists() and os.path.samestat(mine, os.stat(other)):
                return True
        return False

    real_open, real_path_open = builtins.open, Path.open

    def spy(file, *args, **kwargs):
        if held(file):
            opened.append(str(file))
        return real_open(file, *args, **kwargs)

    def path_open(self, *args, **kwargs):
        if held(self):
            opened.append(str(self))
        return real_path_open(self, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", spy)
    monkeypatch.setattr(io, "open", spy)
    monkeypatch.setattr(Path, "open", path_open)


INPUT_CASES = [
    ("import-book", ["import-book", "{input}"]),
    ("import-questions", ["import-questions", "{input}"]),
    ("import-answers", ["import-answers", "{input}"]),
    ("exam-import-bank", ["exam", "import-bank", "{input}"]),
    ("xrag-import-articles", ["xrag", "import-articles", "{input}"]),
]


@pytest.mark.parametrize("name", ["wb.db", "book.csv", "log.csv", "index.csv"])
@pytest.mark.parametrize("argv", [c[1] for c in INPUT_CASES], ids=[c[0] for c in INPUT_CASES])
def test_an_input_file_that_is_the_open_database_is_refused_unread(
    tmp_path, monkeypatch, argv, name
):
    """An importer given the database itself (or a hard link to it, its log or its index) as its
    input refuses it (one line) and never reads it while its connection is open."""
    from cli_run import run_cli

    db_file = tmp_path / "wb.db"
    assert run_cli(["--db", str(db_file), "init"])[0] == 0
    keep = sqlite3.connect(db_file)  # another connection keeps the log and index in place
    keep.execute("pragma journal_mode=wal")
    keep.execute("create table if not exists keep_log (x)")
    keep.execute("insert into keep_log values (1)")
    targets = {"book.csv": "wb.db", "log.csv": "wb.db-wal", "index.csv": "wb.db-shm"}
    if name in targets:
        os.link(tmp_path / targets[name], tmp_path / name)  # the same file by another name
    opened: list[str] = []
    _spy_on_open(monkeypatch, db_file, opened)
    try:
        code, out, err = run_cli(
            ["--db", str(db_file), *[a.format(input=tmp_path / name) for a in argv]]
        )
    finally:
        keep.close()
    assert code == 2, (code, out, err)
    assert err.count("error:") == 1 and "Traceback" not in err, err
    assert opened == []
