"""The database file before and while SQLite uses it: each failure as one plain line.

:func:`check_db_file` looks at the path before SQLite opens it (missing, a directory, a device,
read-only, not SQLite, cut short) and :func:`explain_sqlite_error` turns SQLite's own errors
(locked, full disk, malformed) into :class:`core.errors.DatabaseFileError`. Neither writes
anything, so a refused file stays byte-identical.
"""

from __future__ import annotations

import os
import sqlite3
import stat
import time
from pathlib import Path

from core.errors import DatabaseFileError
from core.store.connection import busy_timeout_ms
from core.store.open_files import file_unopened

SQLITE_MAGIC = b"SQLite format 3\x00"
INIT_HINT = "create one with `python -m core init` (or `make run` for the demo)"


def _is_memory(path: str | Path) -> bool:
    return str(path) == ":memory:"


def check_db_file(path: str | Path, *, create: bool) -> None:
    """Refuse a path SQLite should not open, with what is wrong and what to do.

    A missing file is fine only with ``create``. Otherwise the file must be a regular file that
    this process may write, in a folder it may write (SQLite keeps ``-wal``/``-shm`` beside it),
    starting with the SQLite header, and at least as long as the header's page count says
    (unless a write-ahead log holds the rest).

    The header is read only while no connection of this process has the file open
    (:func:`core.store.open_files.file_unopened`): closing the descriptor that read it would drop
    their locks. Once one is open, SQLite has read the header itself, and its own errors
    (:func:`explain_sqlite_error`) speak for the file.
    """
    if _is_memory(path):
        return
    p = Path(path)
    try:
        info = p.stat()
    except FileNotFoundError:
        if create:
            return
        raise DatabaseFileError(
            f"no database at {p}; check --db (or $WORKBENCH_DB), or {INIT_HINT}"
        ) from None
    except OSError as exc:
        raise DatabaseFileError(f"cannot read {p} ({exc.strerror}); check --db") from None
    if stat.S_ISDIR(info.st_mode):
        raise DatabaseFileError(f"{p} is a folder, not a database file; give a file path to --db")
    if not stat.S_ISREG(info.st_mode):
        raise DatabaseFileError(
            f"{p} is not a regular file (a device or pipe); give a database file path to --db"
        )
    if not os.access(p, os.R_OK):
        raise DatabaseFileError(f"{p} is not readable by this user; fix its permissions")
    if not os.access(p, os.W_OK):
        raise DatabaseFileError(
            f"{p} is read-only; make it writable (chmod u+w, or a writable disk) or copy it "
            "to a writable place"
        )
    folder = p.resolve().parent
    if not os.access(folder, os.W_OK):
        raise DatabaseFileError(
            f"the folder {folder} is read-only; SQLite writes its journal beside {p.name}: "
            "make the folder writable or copy the database elsewhere"
        )
    with file_unopened(p) as unopened:
        if unopened:  # never open() a file this process's connections hold (their locks go)
            _check_header(p, info.st_size, create)


#: How often :func:`_check_header` looks again when the file changed while it looked.
HEADER_LOOKS = 20


def _check_header(p: Path, size: int, create: bool) -> None:
    """The SQLite header (first 100 bytes): the magic string, and the page count versus size.

    Another process may be writing the file meanwhile: a checkpoint (when a connection closes,
    SQLite copies the write-ahead log into the file, rewriting the header's page count first,
    then deletes the log). Header, log and size are therefore read as one consistent look: the
    file's size and modification time before and after reading them must be equal, else the
    look is repeated (up to :data:`HEADER_LOOKS` times, then the page-count test is left to
    SQLite's own "malformed" error). Only a page count larger than a file nobody is writing,
    with no log holding the rest, is called cut short.
    """
    if size == 0:
        if create:
            return
        raise DatabaseFileError(f"{p} is an empty file, not a workbench database; {INIT_HINT}")
    for _ in range(HEADER_LOOKS):
        before = _file_state(p)
        header = _read_header(p)
        wal_size = _file_state(Path(f"{p}-wal"))[0]
        if _file_state(p) == before:
            break
        time.sleep(0.005)  # a checkpoint takes milliseconds: look again when it is done
    else:
        before = None  # written all the while: no consistent look, so no verdict on length
    if not header.startswith(SQLITE_MAGIC):
        raise DatabaseFileError(
            f"{p} is not a SQLite database (damaged, or another kind of file); restore it from a "
            "backup or point --db at the right file"
        )
    if len(header) < 100:
        raise _truncated(p)
    if before is None:
        return
    page_size = int.from_bytes(header[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    n_pages = int.from_bytes(header[28:32], "big")
    counter_valid = header[24:28] == header[92:96]  # the page count is trusted only then
    if counter_valid and n_pages and before[0] < page_size * n_pages and not wal_size:
        raise _truncated(p)


def _file_state(p: Path) -> tuple[int, int]:
    """(size, modification time in ns) of ``p``; (0, 0) when it does not exist (a log that a
    closing connection just deleted)."""
    try:
        info = p.stat()
    except FileNotFoundError:
        return (0, 0)
    return (info.st_size, info.st_mtime_ns)


def _read_header(p: Path) -> bytes:
    """The file's first 100 bytes (fewer when it is shorter)."""
    with p.open("rb") as f:
        return f.read(100)


def _truncated(p: Path) -> DatabaseFileError:
    return DatabaseFileError(
        f"{p} is cut short (truncated: smaller than its header says); restore it from a backup"
    )


FILE_ERROR_WORDS = (
    "locked",
    "busy",
    "full",
    "readonly",
    "read-only",
    "unable to open",
    "disk i/o",
    "malformed",
    "not a database",
    "corrupt",
)


def is_file_error(exc: BaseException) -> bool:
    """Whether ``exc`` is about the database file or its lock (locked, full, read-only, cannot
    open, malformed, not a database), not a mistake of the code (a constraint, ``no such
    table``, a syntax error: those keep their traceback)."""
    text = str(exc).lower()
    return type(exc) in (sqlite3.OperationalError, sqlite3.DatabaseError) and any(
        word in text for word in FILE_ERROR_WORDS
    )


def explain_sqlite_error(exc: sqlite3.Error, path: str | Path) -> DatabaseFileError:
    """SQLite's error on the database at ``path`` as one line saying what happened and what to do."""
    text = str(exc)
    low = text.lower()
    if "locked" in low or "busy" in low:
        return DatabaseFileError(
            f"the database {path} is locked: another program kept it locked for more than "
            f"{busy_timeout_ms() / 1000:g} s; wait for it to finish (or stop it) and run this again"
        )
    if "full" in low:
        return DatabaseFileError(
            f"the disk holding {path} is full; free space and run the command again (its "
            "unfinished writes were rolled back)"
        )
    if "readonly" in low or "read-only" in low:
        return DatabaseFileError(
            f"the database {path} is read-only; make it and its folder writable and run this again"
        )
    if "malformed" in low or "not a database" in low or "corrupt" in low:
        return DatabaseFileError(
            f"the database {path} is damaged ({text}); restore it from a backup"
        )
    if "unable to open" in low or "disk i/o" in low:
        return DatabaseFileError(
            f"cannot open or write the database {path} ({text}); check the path, permissions "
            "and disk"
        )
    return DatabaseFileError(f"database {path}: {text}")
