"""Helpers shared by the command modules in ``core/cli/`` (kept outside that package, whose
modules are auto-discovered and must each define ``register``)."""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable, Mapping, Sequence
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


#: Upper bound of every count option (items, limits, days, tokens): far above any real use,
#: far below what would overflow a 64-bit database integer or run for days.
MAX_COUNT = 1_000_000_000
#: Upper bound of bootstrap and simulation counts (each replicate refits a model).
MAX_REPLICATES = 100_000


def whole_arg(minimum: int = 0, maximum: int = MAX_COUNT) -> Callable[[str], int]:
    """argparse type of a count option: a whole number in ASCII digits (an optional leading
    ``-``) from ``minimum`` to ``maximum``; anything else is argparse's one usage error."""

    def parse(text: str) -> int:
        digits = text.removeprefix("-")
        if digits.isascii() and digits.isdigit() and len(digits) <= 18:
            value = int(text)
            if minimum <= value <= maximum:
                return value
        raise argparse.ArgumentTypeError(
            f"{text[:40]!r} is not a whole number >= {minimum} (at most {maximum:,})"
        )

    parse.__name__ = "whole_number"
    return parse


def number_arg(minimum: float = 0.0, maximum: float = math.inf) -> Callable[[str], float]:
    """argparse type of a real-valued option: a finite number from ``minimum`` to ``maximum``."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if math.isfinite(value) and minimum <= value <= maximum:
            return value
        top = f" to {maximum:g}" if math.isfinite(maximum) else ""
        raise argparse.ArgumentTypeError(
            f"{text[:40]!r} is not a finite number from {minimum:g}{top}"
        )

    parse.__name__ = "number"
    return parse


#: ``--bootstrap``, ``--simulations``, ``--sims``: 0 to :data:`MAX_REPLICATES`.
replicates_arg = whole_arg(0, MAX_REPLICATES)
#: ``--limit``, ``--top`` and other "how many": 0 to :data:`MAX_COUNT`.
size_arg = whole_arg(0)
#: counts that must be at least 1 (``--max-tokens``, ``--repeats``, ``--entities``).
positive_arg = whole_arg(1)


def port_arg(text: str) -> int:
    """argparse type of ``--port``: a whole number from 1 to 65535."""
    value = count_arg(text)
    if not 1 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port (1-65535)")
    return value


def finite_arg(text: str) -> float:
    """argparse type of ``--temperature``: a finite number >= 0."""
    return alpha_arg(text)


def not_utf8(argv: Sequence[str], environ: Mapping[str, str]) -> str | None:
    """What is wrong when a command-line argument or a ``WORKBENCH_*`` variable holds bytes that
    are not UTF-8 (Python passes them on as lone surrogates, which no file, database or terminal
    can store): the first such value, shown with its bytes escaped; None when all are text."""
    values = [(f"argument {i} ", a) for i, a in enumerate(argv, start=1)]
    values += [(f"${k} ", v) for k, v in sorted(environ.items()) if k.startswith("WORKBENCH_")]
    for where, value in values:
        if not any("\ud800" <= ch <= "\udfff" for ch in value):
            continue
        try:
            raw = value.encode("utf-8", "surrogateescape")
        except UnicodeEncodeError:
            raw = value.encode("utf-8", "surrogatepass")
        shown = raw.decode("ascii", "backslashreplace") if len(raw) <= 200 else "(long value)"
        return (
            f"{where}'{shown}' is not valid UTF-8; give names, titles and file names as UTF-8 "
            "text (rename the file, or set the terminal to UTF-8)"
        )
    return None


def add_max_failure_share(parser: argparse.ArgumentParser, what: str) -> None:
    """``--max-failure-share`` (0 to 1, default 0.2, an experiment's ``max_failure_share``):
    exit 3, the run failed, when the share of ``what`` passes it."""
    parser.add_argument(
        "--max-failure-share",
        type=number_arg(maximum=1.0),
        default=0.2,
        help=f"exit 3 (run failed) when the share of {what} passes this (default 0.2, as an "
        "experiment's max_failure_share)",
    )
