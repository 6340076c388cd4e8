"""The files commands write (``export -o``, ``xrag verify-export``, ``rater-report --out``): one
guarded way for all of them, so that an output path can never destroy the database.

:func:`checked_output_path` runs before the command opens the database. It refuses a path that
is the database (``--db``: also through ``..``, a symbolic link or a hard link), its ``-wal``,
``-shm`` or ``-journal`` file, or any other SQLite database or log, and a folder, a missing
folder, a read-only one or a name ending in a slash (a folder's name), each as one
:class:`~core.errors.InputError` line. The database is recognised by name and by ``os.stat``
(device and inode) only: its bytes are never read here, since closing any descriptor of a file
drops every POSIX lock this process holds on it (SQLite's "How To Corrupt An SQLite Database
File", 2.2). Only a target that is not the database is
sniffed for the SQLite header.

:func:`atomic_output` writes a temporary file in the target's folder and renames it into place
(``os.replace``) only when everything was written, so a failure (a full disk, Ctrl-C) leaves the
old file as it was and no half file. A device or pipe (``/dev/stdout``) is written in place.
"""

from __future__ import annotations

import errno
import os
import secrets
import shutil
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO

from core.errors import InputError
from core.store.database import postgres_url
from core.store.dbfile import SQLITE_MAGIC
from core.store.open_files import SIDE_SUFFIXES, same_file

#: The files SQLite keeps beside a database (write-ahead log, its index, rollback journal).
SIDE_FILES = SIDE_SUFFIXES
#: How a SQLite write-ahead log (either checksum byte order) and a rollback journal begin.
LOG_MAGICS = (b"\x37\x7f\x06\x82", b"\x37\x7f\x06\x83", b"\xd9\xd5\x05\xf9\x20\xa1\x63\xd7")
_KIND = {
    "": "the database",
    "-wal": "the database's write-ahead log",
    "-shm": "the database's shared-memory index",
    "-journal": "the database's rollback journal",
}
_HINT = "writing it would destroy the data; choose another file name"


def checked_output_path(path: str | Path, db: str | Path) -> Path:
    """The file to write for ``path`` (symbolic links followed), once it is safe to write.

    Refused, as one :class:`InputError` line and before anything is read or written: the
    database ``db`` or its side files, any SQLite database or log (by its first 16 bytes, read
    only from a file that is not ``db``), a folder, a path in a missing folder or under a file,
    a folder this user may not write. A device or pipe is returned as given (written in place).
    """
    text = str(path)
    if not text.strip():
        raise InputError("the output file name is empty; give a file name to write")
    given = Path(text)
    try:
        info: os.stat_result | None = os.stat(given)
    except FileNotFoundError:
        info = None
    except NotADirectoryError:
        raise InputError(f"{text}: a folder in the path is a file, not a folder") from None
    except OSError as exc:
        raise InputError(f"cannot use {text} ({exc.strerror or exc})") from None
    refuse_database_path(given, db)
    if info is not None and stat.S_ISDIR(info.st_mode):
        raise InputError(f"{text} is a directory; give a file name to write")
    if os.path.basename(text) in ("", ".", ".."):  # "out/": never the file "out" instead
        raise InputError(f"{text} names a folder, not a file; give a file name to write")
    if info is not None and not stat.S_ISREG(info.st_mode):
        return given  # a device or pipe (/dev/null, /dev/stdout): nothing to sniff or rename
    target = Path(os.path.realpath(given))
    if info is not None:
        _refuse_sqlite_file(target, text)
    _refuse_sibling_of_sqlite(target, text, db)
    folder = target.parent
    if not folder.is_dir():
        what = "is not a folder" if folder.exists() else "does not exist; create it first"
        raise InputError(f"the folder {folder} {what}", path=text)
    if not os.access(folder, os.W_OK | os.X_OK):
        raise InputError(f"the folder {folder} is read-only for this user", path=text)
    return target


@contextmanager
def atomic_output(target: Path, db: str | Path, *, newline: str | None = "") -> Iterator[TextIO]:
    """A UTF-8 text file to write ``target`` (from :func:`checked_output_path`) whole or not at
    all: a temporary file beside it, renamed over it once written and synced (the target is
    checked again just before). Any ``OSError`` (a full disk, a read-only folder) is one
    :class:`InputError` line, with the temporary file removed and the old ``target`` unchanged."""
    if target.exists() and not target.is_file():  # a device or pipe: in place, nothing to rename
        with _as_input_error(target), _open_in_place(target, newline) as f:
            yield f
        return
    tmp = target.parent / f".{target.name[:100]}.{secrets.token_hex(4)}.tmp"  # a long name fits
    with _as_input_error(target):
        # 0o666 minus the umask, as open() makes a file (mkstemp would make it private)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        try:
            with os.fdopen(fd, "w", encoding="utf-8", newline=newline) as f:
                yield f
                f.flush()
                os.fsync(f.fileno())
            checked_output_path(target, db)  # still not the database, nor any SQLite file
            if target.is_file():
                os.chmod(tmp, stat.S_IMODE(target.stat().st_mode))  # as writing in place keeps
            os.replace(tmp, target)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise


def _open_in_place(target: Path, newline: str | None) -> TextIO:
    """``target``, a device or a named pipe, open for writing. A pipe that no process reads would
    block the command for ever: its write end is opened without waiting, which fails with ENXIO
    exactly then (POSIX ``open(O_WRONLY | O_NONBLOCK)``); once open, writes wait for the reader
    as usual. (Probing earlier and closing would end a reader such as ``cat`` at once.)"""
    if not stat.S_ISFIFO(os.stat(target).st_mode):
        return open(target, "w", encoding="utf-8", newline=newline)
    try:
        fd = os.open(target, os.O_WRONLY | os.O_NONBLOCK)
    except OSError as exc:
        if exc.errno != errno.ENXIO:
            raise
        raise InputError(
            f"{target} is a named pipe that no process reads; start its reader first "
            "(nothing was written)"
        ) from None
    os.set_blocking(fd, True)
    return os.fdopen(fd, "w", encoding="utf-8", newline=newline)


@contextmanager
def _as_input_error(target: Path) -> Iterator[None]:
    """An ``OSError`` inside as one line naming ``target`` and saying nothing was written."""
    try:
        yield
    except OSError as exc:
        if exc.errno in (errno.ENOSPC, errno.EDQUOT):
            raise InputError(
                f"the disk holding {target} is full; nothing was written (free space and run "
                "the command again)"
            ) from None
        raise InputError(
            f"cannot write {target} ({exc.strerror or exc}); nothing was written"
        ) from None


def _sqlite_path(db: str | Path) -> str | None:
    """``db`` as a file path, or ``None`` when it names no file (PostgreSQL, ``:memory:``)."""
    text = str(db)
    return None if postgres_url(text) is not None or text in ("", ":memory:") else text


def refuse_database_path(path: str | Path, db: str | Path, *, name: str = "--db") -> None:
    """Refuse ``path`` when it names the database ``db`` (given as ``name``) or one of its side
    files: the same path once resolved (also before the file exists), or the same file (device
    and inode, :func:`core.store.open_files.same_file`) by any name. Nothing is read."""
    db_file = _sqlite_path(db)
    if db_file is None:
        return
    given = Path(path)
    names = {os.path.realpath(given).casefold(), os.path.abspath(given).casefold()}
    for suffix in ("", *SIDE_FILES):
        spellings = {os.path.realpath(db_file) + suffix, os.path.abspath(db_file) + suffix}
        same_name = names & {s.casefold() for s in spellings}
        if same_name or any(same_file(given, s) for s in spellings):
            raise InputError(f"{path} is {_KIND[suffix]} ({name} {db_file}); {_HINT}")


def _head(path: Path) -> bytes:
    """The first 16 bytes of ``path`` (a file known not to be the open database)."""
    with path.open("rb") as f:
        return f.read(len(SQLITE_MAGIC))


def _refuse_sqlite_file(target: Path, text: str) -> None:
    """Refuse an existing ``target`` (not the open database) that is a SQLite database or log."""
    try:
        head = _head(target)
    except OSError as exc:
        raise InputError(
            f"cannot read {text} to check that it is no database ({exc.strerror or exc})"
        ) from None
    if head.startswith(SQLITE_MAGIC):
        raise InputError(f"{text} is a SQLite database; {_HINT}")
    if head.startswith(LOG_MAGICS):
        raise InputError(f"{text} is a SQLite write-ahead log or journal; {_HINT}")


def _refuse_sibling_of_sqlite(target: Path, text: str, db: str | Path) -> None:
    """Refuse ``X-wal``, ``X-shm`` or ``X-journal`` beside a SQLite database ``X``: SQLite would
    take the output for that database's log. ``X`` is read only when it is not ``db``."""
    for suffix in SIDE_FILES:
        if len(target.name) <= len(suffix) or target.name[-len(suffix) :].lower() != suffix:
            continue
        owner = target.with_name(target.name[: -len(suffix)])
        try:
            info = os.stat(owner)
        except OSError:
            continue
        db_file = _sqlite_path(db)
        if db_file is not None and same_file(owner, db_file):
            raise InputError(f"{text} is {_KIND[suffix]} (--db {db_file}); {_HINT}")
        if db_file is not None and any(same_file(owner, db_file + s) for s in SIDE_FILES):
            continue  # beside the database's own log: never read it outside SQLite
        if stat.S_ISREG(info.st_mode):
            try:
                is_sqlite = _head(owner) == SQLITE_MAGIC
            except OSError:
                continue
            if is_sqlite:
                raise InputError(
                    f"{text} would be taken for the log of the database {owner}; {_HINT}"
                )


def checked_output_folder(path: str | Path, db: str | Path, *, force: bool = False) -> Path:
    """The folder to write for ``path`` (symbolic links followed), once it is safe to write:
    refused, as one :class:`InputError` line, the database or its side files, a file, a folder
    that is not empty (unless ``force``; never one holding the database), a missing parent or
    a read-only one. Nothing is read or written."""
    text = str(path)
    if not text.strip():
        raise InputError("the output folder name is empty; give a folder to write")
    refuse_database_path(path, db)
    target = Path(os.path.realpath(text))
    if target.exists() and not target.is_dir():
        raise InputError(f"{text} is a file, not a folder; give a new folder to write")
    full = target.is_dir() and any(target.iterdir())
    if full and not force:
        raise InputError(f"{text} is a folder that is not empty; choose a new one or give --force")
    db_file = _sqlite_path(db)
    if full and db_file is not None:
        if os.path.realpath(db_file).startswith(str(target) + os.sep):
            raise InputError(f"{text} holds the database {db_file}; {_HINT}")
    if not target.parent.is_dir():
        raise InputError(f"the folder {target.parent} does not exist; create it first", path=text)
    if not os.access(target.parent, os.W_OK | os.X_OK):
        raise InputError(f"the folder {target.parent} is read-only for this user", path=text)
    return target


@contextmanager
def atomic_folder(path: str | Path, db: str | Path, *, force: bool = False) -> Iterator[Path]:
    """A new empty folder to fill, renamed to ``path`` (:func:`checked_output_folder`) once
    everything was written: a failure leaves no half folder and an old ``path`` as it was;
    under ``force`` the old folder is replaced whole."""
    target = checked_output_folder(path, db, force=force)
    tmp = target.parent / f".{target.name[:100]}.{secrets.token_hex(4)}.tmp"
    old = target.parent / f".{target.name[:100]}.{secrets.token_hex(4)}.old"
    with _as_input_error(target):
        tmp.mkdir()
        try:
            yield tmp
            checked_output_folder(path, db, force=force)  # nothing changed meanwhile
            if target.exists():
                os.replace(target, old)  # an empty folder, or a full one under --force
            os.replace(tmp, target)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            if old.exists() and not target.exists():
                os.replace(old, target)
            raise
        shutil.rmtree(old, ignore_errors=True)
