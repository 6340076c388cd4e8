"""Exception types. Every user-facing failure is a ``WorkbenchError`` with a one-line message."""

from __future__ import annotations


class WorkbenchError(Exception):
    """Base class: the CLI prints ``error: <message>`` and exits non-zero."""


class InputError(WorkbenchError):
    """A bad input file or value. The message names the file and the line or column."""

    def __init__(
        self,
        message: str,
        *,
        path: str | None = None,
        line: int | None = None,
        column: str | int | None = None,
    ) -> None:
        where = []
        if path:
            where.append(str(path))
        if line is not None:
            where.append(f"line {line}")
        if isinstance(column, int):
            where.append(f"column {column}")
        elif column:
            where.append(f"column {column!r}")
        prefix = ", ".join(where)
        super().__init__(f"{prefix}: {message}" if prefix else message)
        self.path, self.line, self.column = path, line, column


class ConfigError(WorkbenchError):
    """An invalid experiment file, unknown system/judge/model, or missing key."""


class ContextTooLongError(WorkbenchError):
    """A context does not fit a model's window and no fallback was configured."""


class AccessError(WorkbenchError):
    """Not signed in, a wrong or revoked token, or a role that may not do this."""


class StoreError(WorkbenchError):
    """The database holds a value the code cannot read (e.g. bad JSON in a JSON column)."""


class DatabaseFileError(WorkbenchError):
    """The database file is missing, unreadable, read-only, damaged, locked or its disk is full."""


class DatabaseBusyError(WorkbenchError):
    """A label write still met another writer's lock after its bounded retries (nothing stored)."""


class DatabaseUnreachableError(Exception):
    """The PostgreSQL server could not be reached: the connection was refused, its connect
    timeout passed, or it broke during a run (nothing of the statement in progress was stored).

    The message is for operators (address, reason). Not a :class:`WorkbenchError`, on purpose:
    the pages show a ``WorkbenchError``'s message to the visitor, while for this one the app
    shows its own plain line and logs the message (``app_support/frame.py``); the CLI prints
    it as one ``error:`` line (exit 2)."""
