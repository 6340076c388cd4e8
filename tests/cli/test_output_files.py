"""Files the commands write (issue 38, item 2): an output path that is the database, its side
files or any SQLite database is refused (one line, exit 2, nothing touched), and so are a folder,
a missing or read-only folder and a full disk; a normal output is written whole or not at all."""

from __future__ import annotations

import errno
import os
import sqlite3
import stat
from pathlib import Path

import pytest
from cli_run import run_cli
from db_content import database_digest
from rater_report_fixture import build_report_db

from core.cli import output_files

BOOK = "The Lighthouse\n\nAnsel Brand kept the lighthouse. His telescope was named Orion.\n" * 20
QUESTIONS = (
    "question,document_id,answers,id\n"
    "Who kept it?,book:b,Ansel Brand,q1\nWhat was it called?,book:b,Orion,q2\n"
)


@pytest.fixture(scope="module")
def template(tmp_path_factory) -> Path:
    """A SQLite database with a book and two questions."""
    folder = tmp_path_factory.mktemp("template")
    (folder / "b.txt").write_text(BOOK, encoding="utf-8")
    (folder / "q.csv").write_text(QUESTIONS, encoding="utf-8")
    db = folder / "wb.db"
    assert run_cli(["--db", str(db), "init"])[0] == 0
    assert run_cli(["--db", str(db), "import-book", str(folder / "b.txt")])[0] == 0
    assert run_cli(["--db", str(db), "import-questions", str(folder / "q.csv")])[0] == 0
    return db


@pytest.fixture
def db_file(template, tmp_path) -> Path:
    """This test's copy of the template, ``wb.db`` in ``tmp_path``."""
    path = tmp_path / "wb.db"
    path.write_bytes(template.read_bytes())
    return path


def _other_sqlite(path: Path) -> None:
    con = sqlite3.connect(path)
    con.execute("create table moz_places (url text)")
    con.execute("insert into moz_places values ('https://example.org')")
    con.commit()
    con.close()


def _refused(argv: list[str], db: Path | str, message: str) -> None:
    """``argv`` ends with exit 2, one ``error:`` line containing ``message``, no traceback."""
    code, out, err = run_cli(["--db", str(db), *argv])
    assert code == 2, (code, out, err)
    assert "Traceback" not in out + err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:"), err
    assert message in lines[0], lines[0]


def _files(folder: Path) -> dict[str, bytes]:
    """Every file below ``folder`` (symbolic links as their target text) with its bytes."""
    found: dict[str, bytes] = {}
    for p in sorted(folder.rglob("*")):
        if p.is_symlink():
            found[str(p)] = os.readlink(p).encode()
        elif p.is_file():
            found[str(p)] = p.read_bytes()
    return found


# (id, set-up of tmp_path t given the database path, argv with {db} and {t}, message)
DB_CASES = [
    ("verify-export-db", None, ["xrag", "verify-export", "{db}"], "is the database"),
    ("export-db", None, ["export", "questions", "-o", "{db}"], "is the database"),
    (
        "export-jsonl-db",
        None,
        ["export", "judgments", "--format", "jsonl", "-o", "{db}"],
        "the database",
    ),
    ("export-dotdot", "sub", ["export", "questions", "-o", "{t}/sub/../wb.db"], "is the database"),
    ("export-symlink", "link", ["export", "questions", "-o", "{t}/link.csv"], "is the database"),
    ("export-hardlink", "hardlink", ["export", "questions", "-o", "{t}/hard.csv"], "the database"),
    ("export-wal", None, ["export", "questions", "-o", "{db}-wal"], "write-ahead log"),
    ("export-shm", None, ["export", "questions", "-o", "{db}-shm"], "shared-memory"),
    ("export-journal", None, ["export", "questions", "-o", "{db}-journal"], "journal"),
    ("export-wal-link", "wal-link", ["export", "questions", "-o", "{t}/w.csv"], "write-ahead"),
    ("verify-export-wal", None, ["xrag", "verify-export", "{db}-wal"], "write-ahead log"),
    ("export-other-db", "other", ["export", "questions", "-o", "{t}/other.db"], "SQLite database"),
    ("verify-export-other", "other", ["xrag", "verify-export", "{t}/other.db"], "SQLite database"),
    ("export-other-wal", "other", ["export", "questions", "-o", "{t}/other.db-wal"], "log of"),
    ("export-a-log", "log", ["export", "questions", "-o", "{t}/old-wal"], "write-ahead log"),
    ("export-folder", "sub", ["export", "questions", "-o", "{t}/sub"], "is a directory"),
    ("verify-export-folder", "sub", ["xrag", "verify-export", "{t}/sub"], "is a directory"),
    ("export-no-folder", None, ["export", "questions", "-o", "{t}/nope/q.csv"], "does not exist"),
    ("verify-no-folder", None, ["xrag", "verify-export", "{t}/nope/v.csv"], "does not exist"),
    # CSV under a workbook's name (Excel then refuses the file)
    ("verify-export-xlsx", None, ["xrag", "verify-export", "{t}/v.xlsx"], ".xlsx is not CSV"),
    ("export-under-file", "file", ["export", "questions", "-o", "{t}/f.txt/q.csv"], "is a file"),
    ("verify-under-file", "file", ["xrag", "verify-export", "{t}/f.txt/v.csv"], "is a file"),
    ("export-empty-name", None, ["export", "questions", "-o", " "], "empty"),
    ("export-dev-full", None, ["export", "questions", "-o", "/dev/full"], "is full"),
    # a name ending in a slash means a folder: never a file written under its bare name
    ("export-new-folder-slash", None, ["export", "questions", "-o", "{t}/new/"], "a folder"),
    ("verify-new-folder-slash", None, ["xrag", "verify-export", "new/"], "a folder"),
    ("export-dot-slash", None, ["export", "questions", "-o", "{t}/new/."], "a folder"),
    ("export-db-slash", None, ["export", "questions", "-o", "{db}/"], "wb.db"),
    ("export-relative-db", None, ["export", "questions", "-o", "./sub/../wb.db"], "the database"),
]


def _set_up(kind: str | None, t: Path, db: Path) -> None:
    if kind == "sub":
        (t / "sub").mkdir()
    elif kind == "link":
        (t / "link.csv").symlink_to(db)
    elif kind == "hardlink":
        os.link(db, t / "hard.csv")
    elif kind == "wal-link":
        (t / "w.csv").symlink_to(f"{db}-wal")  # dangling: SQLite made no log yet
    elif kind == "other":
        _other_sqlite(t / "other.db")
    elif kind == "log":
        (t / "old-wal").write_bytes(b"\x37\x7f\x06\x82" + bytes(28))
    elif kind == "file":
        (t / "f.txt").write_text("x", encoding="utf-8")


@pytest.mark.parametrize(
    ("kind", "argv", "message"), [c[1:] for c in DB_CASES], ids=[c[0] for c in DB_CASES]
)
def test_an_output_that_would_destroy_data_is_refused(
    db_file, tmp_path, monkeypatch, kind, argv, message
):
    monkeypatch.chdir(tmp_path)  # a relative name (" ") lands here
    _set_up(kind, tmp_path, db_file)
    before, files = database_digest(db_file), _files(tmp_path)
    _refused([a.format(db=db_file, t=tmp_path) for a in argv], db_file, message)
    assert database_digest(db_file) == before
    assert _files(tmp_path) == files  # nothing created, replaced or left behind


def test_rater_report_refuses_a_database_named_like_its_output(tmp_path, monkeypatch):
    db = tmp_path / "wb.html"
    build_report_db(db)
    before = database_digest(db)
    monkeypatch.chdir(tmp_path)
    _refused(["rater-report", "--all", "--simulations", "5", "--out", "wb.html"], db, "database")
    _refused(["rater-report", "--all", "--out", str(tmp_path / "no" / "r.html")], db, "not exist")
    (tmp_path / "d.html").mkdir()
    _refused(["rater-report", "--all", "--out", "d.html"], db, "is a directory")
    assert database_digest(db) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d.html", "wb.html"]


def test_any_sqlite_file_is_refused_with_a_postgresql_database(tmp_path):
    """No file to protect for a PostgreSQL --db, but another SQLite database still is one; the
    check runs before the server is even reached (this URL has no server)."""
    other = tmp_path / "other.db"
    _other_sqlite(other)
    before = other.read_bytes()
    url = "postgresql://127.0.0.1:1/nowhere"
    _refused(["export", "questions", "-o", str(other)], url, "SQLite database")
    _refused(["xrag", "verify-export", str(other)], url, "SQLite database")
    assert other.read_bytes() == before


def test_a_read_only_folder_is_one_line(db_file, tmp_path, monkeypatch):
    """Tests run as root, whom chmod does not stop: the folder's answers are stood in for."""
    out = tmp_path / "ro"
    out.mkdir()
    real_access = os.access
    monkeypatch.setattr(
        os, "access", lambda p, mode, **kw: False if Path(p) == out else real_access(p, mode, **kw)
    )
    before = database_digest(db_file)
    _refused(["export", "questions", "-o", str(out / "q.csv")], db_file, "read-only")
    _refused(["xrag", "verify-export", str(out / "v.csv")], db_file, "read-only")
    assert database_digest(db_file) == before and list(out.iterdir()) == []


def test_a_folder_refusing_the_temporary_file_is_one_line(db_file, tmp_path, monkeypatch):
    real_open = os.open

    def refuse(path, flags, mode=0o777, **kw):
        if Path(path).parent == tmp_path:
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real_open(path, flags, mode, **kw)

    monkeypatch.setattr(os, "open", refuse)
    _refused(["export", "questions", "-o", str(tmp_path / "q.csv")], db_file, "Permission denied")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["wb.db"]


def test_a_full_disk_leaves_the_old_file_and_no_half_file(db_file, tmp_path, monkeypatch):
    old = tmp_path / "q.csv"
    old.write_text("keep me\n", encoding="utf-8")

    def full(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    before = database_digest(db_file)
    _refused(["export", "questions", "-o", str(old)], db_file, "is full")
    _refused(["xrag", "verify-export", str(old)], db_file, "is full")
    assert old.read_text(encoding="utf-8") == "keep me\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["q.csv", "wb.db"]
    assert database_digest(db_file) == before


def test_a_normal_export_is_written_whole(db_file, tmp_path):
    out = tmp_path / "q.csv"
    out.write_text("old\n", encoding="utf-8")
    out.chmod(0o640)
    code, _, err = run_cli(["--db", str(db_file), "export", "questions", "-o", str(out)])
    assert code == 0, err
    lines = out.read_text(encoding="utf-8").splitlines()
    assert lines[0].startswith("id,") and len(lines) == 3
    assert stat.S_IMODE(out.stat().st_mode) == 0o640  # kept, as writing in place keeps it
    link = tmp_path / "latest"  # no extension: --format decides (a .csv name would refuse jsonl)
    link.symlink_to(out)
    code, _, err = run_cli(
        ["--db", str(db_file), "export", "questions", "--format", "jsonl", "-o", str(link)]
    )
    assert code == 0, err
    assert link.is_symlink() and out.read_text(encoding="utf-8").startswith("{")  # through the link
    code, out_text, err = run_cli(
        ["--db", str(db_file), "xrag", "verify-export", str(tmp_path / "v.csv")]
    )
    assert code == 0, err
    assert (tmp_path / "v.csv").read_text(encoding="utf-8").startswith("result_id")
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_an_interrupted_write_leaves_the_old_file(tmp_path):
    out = tmp_path / "r.html"
    out.write_text("old", encoding="utf-8")
    target = output_files.checked_output_path(out, tmp_path / "wb.db")
    with (
        pytest.raises(KeyboardInterrupt),
        output_files.atomic_output(target, tmp_path / "wb.db") as f,
    ):
        f.write("half")
        raise KeyboardInterrupt
    assert out.read_text(encoding="utf-8") == "old" and [p.name for p in tmp_path.iterdir()] == [
        "r.html"
    ]


@pytest.mark.parametrize(
    "dest", ["{t}/./wb.db", "{db}-wal", "{db}-shm", "{db}-journal", "{t}/l.db"]
)
def test_migrate_db_refuses_its_source_by_another_name(db_file, tmp_path, dest):
    """migrate-db's DEST is a database by design, but never SRC itself or SRC's side files."""
    (tmp_path / "l.db").symlink_to(db_file)
    before, files = database_digest(db_file), _files(tmp_path)
    code, out, err = run_cli(["migrate-db", str(db_file), dest.format(t=tmp_path, db=db_file)])
    assert code == 2, (code, out, err)
    assert err.count("error:") == 1 and "SRC" in err and "Traceback" not in err
    assert database_digest(db_file) == before and _files(tmp_path) == files


def test_names_that_only_look_like_a_log_are_written(db_file, tmp_path):
    (tmp_path / "notes.txt").write_text("plain text", encoding="utf-8")
    for name in ("-wal", "notes.txt-journal", "x" * 240 + ".csv"):
        code, _, err = run_cli(
            ["--db", str(db_file), "export", "questions", "-o", str(tmp_path / name)]
        )
        assert code == 0, (name, err)
        assert (tmp_path / name).read_text(encoding="utf-8").startswith("id,")


def test_the_database_is_never_opened_outside_sqlite(db_file, tmp_path, monkeypatch):
    """Closing any descriptor of the database drops this process's SQLite locks on it, so the
    refusal must come from names and os.stat alone, with a connection open (its log exists)."""
    import builtins
    import io

    con = sqlite3.connect(db_file)
    con.execute("pragma journal_mode=wal")
    con.execute("select count(*) from questions").fetchone()
    os.link(db_file, tmp_path / "hard.csv")
    ours = {(s.st_dev, s.st_ino) for s in (os.stat(db_file), os.stat(f"{db_file}-wal"))}
    opened_ours: list[str] = []
    real_open = builtins.open

    def spy(file, *args, **kwargs):
        if isinstance(file, (str, os.PathLike)) and os.path.exists(file):
            st = os.stat(file)
            if (st.st_dev, st.st_ino) in ours:
                opened_ours.append(str(file))
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", spy)
    monkeypatch.setattr(io, "open", spy)
    try:
        for target in (db_file, tmp_path / "hard.csv", f"{db_file}-wal", f"{db_file}-shm"):
            code, _, err = run_cli(["--db", str(db_file), "export", "questions", "-o", str(target)])
            assert code == 2 and "error:" in err, (target, err)
        beside_log = f"{db_file}-wal-journal"  # no SQLite name: allowed, the log left unread
        output_files.checked_output_path(beside_log, db_file)
    finally:
        con.close()
    assert opened_ours == []


def test_a_named_pipe_without_a_reader_is_refused_not_waited_on(db_file, tmp_path):
    """``-o`` a FIFO no process reads used to block the command for ever (open() waits for a
    reader); now one line. With a reader, the export goes through the pipe whole."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    _refused(["export", "questions", "-o", str(fifo)], db_file, "no process reads")
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # a reader, before the command runs
    try:
        code, _, err = run_cli(["--db", str(db_file), "export", "questions", "-o", str(fifo)])
        assert code == 0, err
        got = os.read(reader, 1 << 16)  # a small export fits the pipe's buffer
    finally:
        os.close(reader)
    assert got.decode("utf-8").startswith("id,") and len(got.splitlines()) == 3
