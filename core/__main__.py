"""The command-line interface: ``python -m core [--db PATH] COMMAND ...``.

Commands are discovered from the modules of :mod:`core.cli`; each defines
``register(subparsers)`` and attaches ``func(args) -> int`` to its parsers. Only a parser that
sets ``creates_db=True`` (``init``, ``demo``) may create a missing database; every other
command says "no database at PATH". A SQLite failure of the database file during any command
(locked, disk full, damaged) is one ``error:`` line and exit 2, like a ``WorkbenchError``.
"""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import sqlite3
import sys

from core.cli.support import not_utf8
from core.errors import DatabaseUnreachableError, WorkbenchError
from core.store.connection import default_db_path


def build_parser() -> argparse.ArgumentParser:
    """The top-level parser with every registered command."""
    parser = argparse.ArgumentParser(
        prog="python -m core",
        description="Long-Span QA Workbench: build, run and validate long-text QA benchmarks.",
    )
    parser.add_argument(
        "--db",
        default=str(default_db_path()),
        help="SQLite database file or postgresql:// URL (default: $WORKBENCH_DB or "
        "data/workbench.db)",
    )
    cache = parser.add_mutually_exclusive_group()
    cache.add_argument(
        "--no-cache",
        dest="cache_mode",
        action="store_const",
        const="off",
        help="LLM calls neither read nor write the reply cache",
    )
    cache.add_argument(
        "--refresh",
        dest="cache_mode",
        action="store_const",
        const="refresh",
        help="LLM calls ignore stored replies and store the new ones",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    import core.cli as cli_pkg

    for info in sorted(pkgutil.iter_modules(cli_pkg.__path__), key=lambda i: i.name):
        if not info.name.endswith("_commands"):
            continue
        module = importlib.import_module(f"core.cli.{info.name}")
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Parse ``argv``, run the command, turn a ``WorkbenchError`` into a one-line error."""
    argv = sys.argv[1:] if argv is None else list(argv)
    problem = not_utf8(argv, os.environ)
    if problem:  # before argparse, which would echo the value back in a usage line
        print(f"error: {problem}", file=sys.stderr)
        return 2
    parser = build_parser()
    args = parser.parse_args(argv)
    args.opened_dbs = []
    try:
        return _run(args)
    finally:
        from core.cli.support import close_opened

        close_opened(args)


def _run(args: argparse.Namespace) -> int:
    """Run the parsed command; each failure the user can act on is one ``error:`` line."""
    try:
        if args.cache_mode:  # process-wide default for every command that calls a model
            from core.llm.engine import (
                set_cache_mode,
            )

            set_cache_mode(args.cache_mode)
        from core.store.database import creating

        with creating(getattr(args, "creates_db", False)):
            return int(args.func(args) or 0)
    except (WorkbenchError, DatabaseUnreachableError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except sqlite3.DatabaseError as exc:  # the database file failed (locked, full, damaged)
        from core.store.dbfile import explain_sqlite_error, is_file_error

        if not is_file_error(exc):  # a constraint or SQL mistake is a bug: keep its traceback
            raise

        print(f"error: {explain_sqlite_error(exc, args.db)}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # output piped into `head` and closed early: not an error
        sys.stderr.close()
        return 0
    except Exception as exc:  # noqa: BLE001  (re-raised unless the PostgreSQL server failed)
        if not is_server_error(exc):
            raise
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        print(
            f"error: the PostgreSQL server failed during the command ({first}); the transaction "
            "in progress was rolled back, everything committed before it is kept; check that "
            "the server runs (and what holds a lock, if it says so) and rerun",
            file=sys.stderr,
        )
        return 2
    except KeyboardInterrupt:
        print("interrupted: everything committed so far is kept; rerun to resume", file=sys.stderr)
        return 130


def is_server_error(exc: BaseException) -> bool:
    """Whether ``exc`` is PostgreSQL's operational failure (the server went away, a lock wait
    timed out after the retries, the server's disk is full): what SQLite's file errors are there.
    A SQL mistake (``ProgrammingError``) or a constraint is a bug and keeps its traceback."""
    psycopg = sys.modules.get("psycopg")  # loaded only when a database URL was opened
    return psycopg is not None and isinstance(exc, psycopg.OperationalError)


if __name__ == "__main__":
    sys.exit(main())
