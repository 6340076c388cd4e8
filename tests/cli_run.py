"""Run ``python -m core`` in-process and capture what it prints (the CLI tests' one helper)."""

from __future__ import annotations

import contextlib
import io

from core.__main__ import main


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
