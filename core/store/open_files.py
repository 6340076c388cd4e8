"""The files this process has open through SQLite (issue 38, item 1).

SQLite locks its files with POSIX advisory locks, and on Linux closing ANY descriptor of a file
drops ALL of the process's locks on it ("How To Corrupt An SQLite Database File", 2.2). A
Python ``open()``/``close()`` of the database while one of this process's connections is open
therefore silently unlocks that connection: another process's closing connection then
checkpoints and deletes the write-ahead log under it ("disk I/O error", labels lost). So the
process keeps a register of the files its connections have open (by device and inode, which a
symlink or another spelling of the path cannot hide), and code that must read the file itself
(the header check, :mod:`core.store.dbfile`) does so only inside :func:`file_unopened`.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
import weakref
from collections.abc import Iterator
from pathlib import Path

#: Re-entrant: a collected connection's finalizer may run inside a holder's block.
_open_files_lock = threading.RLock()
#: (st_dev, st_ino) -> how many of this process's connections have that file open
_open_files: dict[tuple[int, int], int] = {}
#: (st_dev, st_ino) -> the path SQLite opened that file by (while it is in :data:`_open_files`)
_open_paths: dict[tuple[int, int], str] = {}
#: The files SQLite keeps beside a database (write-ahead log, its index, rollback journal).
SIDE_SUFFIXES = ("-wal", "-shm", "-journal")


def _file_key(path: str | Path) -> tuple[int, int] | None:
    """(device, inode) of the file at ``path``, or ``None`` (in memory, or no such file)."""
    if str(path) == ":memory:":
        return None
    try:
        info = os.stat(path)
    except OSError:
        return None
    return (info.st_dev, info.st_ino)


@contextlib.contextmanager
def registering() -> Iterator[None]:
    """Hold the register while a connection is opened and :func:`register`-ed."""
    with _open_files_lock:
        yield


def register(conn: sqlite3.Connection, path: str) -> None:
    """Count ``conn`` as open on its file until it is closed or collected (caller holds the lock).

    The file is the one SQLite opened (``pragma database_list``), so a ``file:`` URI counts too."""
    if path == ":memory:":
        return
    row = conn.execute("pragma database_list").fetchone()
    key = _file_key(row[2]) if row and row[2] else None
    if key is None or not hasattr(conn, "leave_register"):
        return
    _open_files[key] = _open_files.get(key, 0) + 1
    _open_paths[key] = row[2]
    conn.leave_register = weakref.finalize(conn, _unregister, key)


def _unregister(key: tuple[int, int]) -> None:
    with _open_files_lock:
        left = _open_files.get(key, 0) - 1
        if left > 0:
            _open_files[key] = left
        else:
            _open_files.pop(key, None)
            _open_paths.pop(key, None)


def connections_open_to(path: str | Path) -> int:
    """How many of this process's connections (made by :func:`core.store.connection.connect`)
    have ``path``'s file open."""
    key = _file_key(path)
    with _open_files_lock:
        return 0 if key is None else _open_files.get(key, 0)


def same_file(path: str | Path, other: str | Path) -> bool:
    """Whether both paths exist and are one file (device and inode: a symlink, a hard link or
    another spelling of the path is the same file); nothing is opened."""
    key = _file_key(path)
    return key is not None and key == _file_key(other)


def held_database_of(path: str | Path) -> str | None:
    """The database file of this process's connections that ``path`` is (by device and inode,
    whatever its name), or whose ``-wal``, ``-shm`` or ``-journal`` file it is; ``None`` when it is
    none of those. Code that reads a file a user named (an importer's input) asks this first:
    reading, and so closing, such a file would drop the connections' locks."""
    key = _file_key(path)
    if key is None:
        return None
    with _open_files_lock:
        held = dict(_open_paths)
    for db_key, db_path in held.items():
        if key == db_key or any(_file_key(db_path + s) == key for s in SIDE_SUFFIXES):
            return db_path
    return None


@contextlib.contextmanager
def file_unopened(path: str | Path) -> Iterator[bool]:
    """Hold the register of open files; yield whether no connection of this process has
    ``path``'s file open. Only then may the block open the file outside SQLite (and no
    :func:`core.store.connection.connect` starts until the block ends): when it yields
    ``False``, do not open it."""
    key = _file_key(path)
    with _open_files_lock:
        yield key is None or _open_files.get(key, 0) == 0
