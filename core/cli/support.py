"""Helpers shared by the command modules in ``core/cli/`` (kept outside that package, whose
modules are auto-discovered and must each define ``register``)."""

from __future__ import annotations

import argparse
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the CLI imports its modules lazily, to start fast
    from core.store.engine import Database


def open_args_db(args: argparse.Namespace) -> "Database":
    """The database at ``args.db`` (``--db``), opened and migrated; :func:`core.__main__.main`
    closes it when the command ends, however it ends (in a process that goes on, such as a test
    or a notebook, a connection left open would keep the file in use)."""
    from core.store.database import (
        open_db,
    )

    db = open_db(args.db)
    getattr(args, "opened_dbs", []).append(db)
    return db


def close_opened(args: argparse.Namespace) -> None:
    """Close every database :func:`open_args_db` opened for this command."""
    for db in getattr(args, "opened_dbs", []):
        try:
            db.close()
        except Exception:  # noqa: BLE001  (a connection the server already dropped)
            continue


def print_aligned(columns: Sequence[str], cells: Sequence[Sequence[str]]) -> None:
    """Print a plain text table: a header of ``columns``, then one line per row of already
    formatted ``cells``, each column left-justified to its widest entry, two spaces apart."""
    widths = [max([len(c), *(len(row[i]) for row in cells)]) for i, c in enumerate(columns)]
    print("  ".join(c.ljust(w) for c, w in zip(columns, widths)))
    for row in cells:
        print("  ".join(v.ljust(w) for v, w in zip(row, widths)))


def level_arg(text: str) -> float:
    """argparse type of ``--level``: a finite number strictly between 0 and 1."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} must be between 0 and 1 (exclusive)")
    return value


def alpha_arg(text: str) -> float:
    """argparse type of ``--alpha``: a finite number >= 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be a finite number >= 0")
    return value


def count_arg(text: str) -> int:
    """argparse type of ``--bootstrap`` and ``--seed``: a whole number >= 0 in ASCII digits
    (``int()`` alone would take ``1_0`` and other scripts' digits)."""
    if not (text.isascii() and text.isdigit()) or len(text) > 18:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number >= 0")
    return int(text)


def port_arg(text: str) -> int:
    """argparse type of ``--port``: a whole number from 1 to 65535."""
    value = count_arg(text)
    if not 1 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port (1-65535)")
    return value


def finite_arg(text: str) -> float:
    """argparse type of ``--temperature``: a finite number >= 0."""
    return alpha_arg(text)
