"""Run ``python -m core`` and capture what it prints: in-process (:func:`run_cli`) or as its own
process (:func:`cli_stdout`)."""

from __future__ import annotations

import contextlib
import io
import subprocess
import sys
from pathlib import Path

from core.__main__ import main

ROOT = Path(__file__).resolve().parent.parent


def run_cli(argv: list[str]) -> tuple[int, str, str]:
    """``(exit status, stdout, stderr)`` of ``main(argv)``; argparse's ``SystemExit`` (a value
    it rejects: exit 2 with a usage line) is an exit status like any other."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
    return code, out.getvalue(), err.getvalue()


def cli_stdout(db: Path | str, *argv: str) -> str:
    """What ``python -m core --db DB ARGV...`` prints, run as its own process (as an operator
    would, beside a running app); a non-zero exit fails the test."""
    done = subprocess.run(
        [sys.executable, "-m", "core", "--db", str(db), *argv],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout
