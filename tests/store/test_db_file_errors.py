"""A broken database file is one ``error:`` line and exit 2 for every command, and stays
byte-identical: missing, a folder, /dev/null, random bytes, truncated, empty, locked, read-only,
disk full. Only ``init`` and ``demo`` create a database; a valid one is accepted (on SQLite and
on PostgreSQL), and a PostgreSQL server that cannot be reached is one error line too.

The broken-file cases are about SQLite's file itself: they take no backend fixture and run once."""

from __future__ import annotations

import hashlib
import os
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

import core.store.pool as pool
from core.__main__ import main
from core.errors import DatabaseFileError
from core.store.database import open_db

ROOT = Path(__file__).resolve().parents[2]
BOOK = ROOT / "demo" / "books" / "pg135_les_miserables_hugo_hapgood.txt"
COMMANDS = (["status"], ["documents"], ["import-book", str(BOOK)])


def _real_db(path: Path) -> Path:
    """A valid, checkpointed workbench database (no -wal/-shm left beside it)."""
    open_db(path, create=True).conn.close()
    return path


def _missing(tmp: Path) -> Path:
    return tmp / "typo.db"


def _folder(tmp: Path) -> Path:
    (tmp / "folder.db").mkdir()
    return tmp / "folder.db"


def _dev_null(tmp: Path) -> Path:
    return Path("/dev/null")


def _random_bytes(tmp: Path) -> Path:
    path = tmp / "random.db"
    path.write_bytes(bytes((i * 7919 + 13) % 256 for i in range(16384)))
    return path


def _truncated(tmp: Path) -> Path:
    data = _real_db(tmp / "real.db").read_bytes()
    path = tmp / "half.db"
    path.write_bytes(data[: len(data) // 2])
    return path


def _empty(tmp: Path) -> Path:
    path = tmp / "empty.db"
    path.touch()
    return path


#: (case, make the path, what the one error line says)
BROKEN: list[tuple[str, Callable[[Path], Path], str]] = [
    ("missing", _missing, "no database at"),
    ("folder", _folder, "is a folder"),
    ("dev-null", _dev_null, "not a regular file"),
    ("random-bytes", _random_bytes, "not a SQLite database"),
    ("truncated", _truncated, "truncated"),
    ("empty", _empty, "empty file"),
]


def _state(path: Path) -> object:
    """What must not change: the bytes of a file, or that a folder/device/nothing is there."""
    if path.is_file():
        return hashlib.sha256(path.read_bytes()).hexdigest()
    return ("dir" if path.is_dir() else "other") if path.exists() else None


def _one_error(code: int, err: str, expected: str) -> None:
    lines = err.strip().splitlines()
    assert code == 2, err
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert expected in lines[0], err
    assert "Traceback" not in err


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
@pytest.mark.parametrize(("case", "make", "expected"), BROKEN, ids=[b[0] for b in BROKEN])
def test_a_broken_database_file_is_one_error_line(tmp_path, capsys, case, make, expected, command):
    path = make(tmp_path)
    before = _state(path)
    code = main(["--db", str(path), *command])
    _one_error(code, capsys.readouterr().err, expected)
    assert _state(path) == before
    assert not Path(f"{path}-wal").exists() or path == Path("/dev/null")


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
def test_a_locked_database_is_one_error_line(tmp_path, capsys, monkeypatch, command):
    """Another program holds the file locked longer than the busy timeout (0.2 s here)."""
    path = _real_db(tmp_path / "locked.db")
    monkeypatch.setenv("WORKBENCH_BUSY_TIMEOUT", "0.2")
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("pragma locking_mode = exclusive")
    holder.execute("begin exclusive")
    try:
        code = main(["--db", str(path), *command])
    finally:
        holder.rollback()
        holder.close()
    _one_error(code, capsys.readouterr().err, "is locked")


def test_a_full_disk_is_one_error_line(tmp_path, capsys, monkeypatch):
    """SQLITE_FULL, made by capping the file at its current size (``max_page_count``): the same
    error SQLite raises when the disk is full."""
    path = _real_db(tmp_path / "full.db")
    before = _state(path)
    real_connect = pool.connect

    def capped(p, **options):
        conn = real_connect(p, **options)
        pages = conn.execute("pragma page_count").fetchone()[0]
        conn.execute(f"pragma max_page_count = {pages + 2}")
        return conn

    monkeypatch.setattr(pool, "connect", capped)  # the engine's creator opens through it
    code = main(["--db", str(path), "import-book", str(BOOK)])
    _one_error(code, capsys.readouterr().err, "is full")
    assert _state(path) == before


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes a chmod 444 file: see the mount test")
def test_a_read_only_file_is_one_error_line(tmp_path, capsys):
    path = _real_db(tmp_path / "ro.db")
    path.chmod(0o444)
    before = _state(path)
    for command in COMMANDS:
        _one_error(main(["--db", str(path), *command]), capsys.readouterr().err, "read-only")
    assert _state(path) == before


def _mount_namespace_works() -> bool:
    if os.geteuid() != 0 or not shutil.which("unshare"):
        return False
    probe = subprocess.run(
        ["unshare", "-m", "sh", "-c", "mount -t tmpfs -o size=64k tmpfs /mnt"],
        capture_output=True,
    )
    return probe.returncode == 0


SCRIPT = """
set -e
mount -t tmpfs -o size={size} tmpfs {mnt}
cp {src} {mnt}/w.db
{remount}
sha256sum {mnt}/w.db
set +e
{python} -m core --db {mnt}/w.db {command} 2>{mnt}.err
echo "rc=$?"
sha256sum {mnt}/w.db
"""


@pytest.mark.skipif(not _mount_namespace_works(), reason="needs root and mount namespaces")
@pytest.mark.parametrize(
    ("case", "size", "remount", "command", "expected"),
    [
        ("read-only-disk", "2m", "mount -o remount,ro {mnt}", "status", "read-only"),
        ("read-only-disk", "2m", "mount -o remount,ro {mnt}", f"import-book {BOOK}", "read-only"),
        ("full-disk", "600k", "", f"import-book {BOOK}", "is full"),
    ],
)
def test_a_real_read_only_or_full_disk_is_one_error_line(
    tmp_path, case, size, remount, command, expected
):
    """A real tmpfs in a private mount namespace: remounted read-only, or too small."""
    src = _real_db(tmp_path / "src.db")
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    script = SCRIPT.format(
        size=size,
        mnt=mnt,
        src=src,
        remount=remount.format(mnt=mnt),
        python=sys.executable,
        command=command,
    )
    out = subprocess.run(
        ["unshare", "-m", "sh", "-c", script],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=300,
    )
    lines = out.stdout.split()
    assert "rc=2" in lines, (out.stdout, out.stderr)
    hashes = [w for w in lines if len(w) == 64]
    assert len(hashes) == 2 and hashes[0] == hashes[1]  # byte-identical
    err = Path(f"{mnt}.err").read_text()
    _one_error(2, err, expected)


def test_only_init_and_demo_create_a_database(tmp_path, capsys):
    path = tmp_path / "sub" / "new.db"
    _one_error(main(["--db", str(path), "status"]), capsys.readouterr().err, "no database at")
    assert not path.exists() and not path.parent.exists()
    assert main(["--db", str(path), "init"]) == 0
    assert "created database" in capsys.readouterr().out
    assert main(["--db", str(path), "init"]) == 0  # idempotent
    assert "database exists" in capsys.readouterr().out


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
def test_a_valid_database_is_accepted(db_path, capsys, command):
    assert main(["--db", str(db_path), *command]) == 0
    assert "error" not in capsys.readouterr().err


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
def test_an_unreachable_postgresql_server_is_one_error_line(capsys, command):
    """PostgreSQL's counterpart of a missing file: nothing listens there (password masked)."""
    code = main(["--db", "postgresql://u:secret@127.0.0.1:1/workbench", *command])
    err = capsys.readouterr().err
    _one_error(code, err, "cannot connect to PostgreSQL at postgresql://u:***@127.0.0.1:1/")
    assert "secret" not in err


@pytest.mark.parametrize(
    ("exc", "about_the_file"),
    [
        (sqlite3.OperationalError("database is locked"), True),
        (sqlite3.OperationalError("database or disk is full"), True),
        (sqlite3.OperationalError("attempt to write a readonly database"), True),
        (sqlite3.DatabaseError("database disk image is malformed"), True),
        (sqlite3.DatabaseError("file is not a database"), True),
        (sqlite3.OperationalError("no such table: judgmentz"), False),
        (sqlite3.OperationalError('near "selec": syntax error'), False),
        (sqlite3.IntegrityError("UNIQUE constraint failed: answers.id"), False),
    ],
)
def test_only_file_errors_become_one_line(exc, about_the_file):
    """A mistake of the code (a constraint, a missing table) keeps its traceback."""
    from core.store.dbfile import is_file_error

    assert is_file_error(exc) is about_the_file


def _grown_in_the_log(path: Path) -> sqlite3.Connection:
    """A valid database whose newest pages are only in its write-ahead log, held by an open
    connection (closing it checkpoints them into the file and deletes the log)."""
    _real_db(path)
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("pragma journal_mode=wal")
    conn.execute("create table grown (text)")
    conn.executemany("insert into grown values (?)", [("x" * 2000,)] * 400)
    return conn


def test_a_checkpoint_while_the_file_is_checked_is_not_a_cut_short_file(tmp_path, monkeypatch):
    """The app opens a connection per page run while another session's connection closes: its
    checkpoint rewrites the header's page count, grows the file and deletes the log between the
    check's first look at the size and its reading of the header (found by benchmarks/app_pages
    with four annotators: "cut short", and a FileNotFoundError on the deleted log). The check
    looks again when the file changed while it looked; a valid database is accepted."""
    from core.store import dbfile

    path = tmp_path / "busy.db"
    writer = _grown_in_the_log(path)
    size_before = path.stat().st_size
    read_header = dbfile._read_header
    calls = []

    def checkpoint_meanwhile(p: Path) -> bytes:
        calls.append(p)
        if len(calls) == 1:
            writer.close()  # the last connection: checkpoint, then the log is deleted
            assert not Path(f"{path}-wal").exists() and path.stat().st_size > size_before
        return read_header(p)

    monkeypatch.setattr(dbfile, "_read_header", checkpoint_meanwhile)
    dbfile.check_db_file(path, create=False)  # was: "is cut short (truncated ...)"
    assert len(calls) == 2  # the changed first look was repeated
    open_db(path).conn.close()


def test_a_file_written_all_the_while_gets_no_length_verdict_but_a_cut_file_still_does(
    tmp_path, monkeypatch
):
    """With no consistent look at a file (written throughout every look), the page count is not
    judged (SQLite's own "malformed" error remains); a file nobody writes that is shorter than
    its header says is still called cut short."""
    from core.store import dbfile

    half = _truncated(tmp_path)
    with pytest.raises(DatabaseFileError, match="cut short"):
        dbfile.check_db_file(half, create=False)
    ticks = iter(range(10**6))
    real_state = dbfile._file_state
    monkeypatch.setattr(dbfile, "_file_state", lambda p: (real_state(p)[0], next(ticks)))
    monkeypatch.setattr(dbfile.time, "sleep", lambda s: None)
    dbfile.check_db_file(half, create=False)  # no stable look: no verdict on its length
