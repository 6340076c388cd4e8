"""TOML input files (an experiment config, the model catalogue): parsed with every failure as
one :class:`core.errors.InputError` naming the file, line and column."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

from core.corpus.json_input import MAX_DEPTH, nesting_depth
from core.corpus.tabular import read_input_text
from core.errors import InputError


def read_toml_file(path: str | Path) -> dict[str, Any]:
    """A TOML file parsed; encoding and syntax errors name the file, line and column; arrays and
    tables nested deeper than :data:`MAX_DEPTH` (the JSON bound) are refused."""
    text = read_input_text(path)
    try:
        data = tomllib.loads(text)
    except RecursionError:
        raise InputError(f"TOML nested deeper than {MAX_DEPTH} levels", path=str(path)) from None
    except tomllib.TOMLDecodeError as exc:
        msg = str(exc)
        m = re.search(r"\(at line (\d+), column (\d+)\)", msg)
        if m:
            raise InputError(
                f"TOML syntax error: {msg[: m.start()].strip()}",
                path=str(path),
                line=int(m.group(1)),
                column=int(m.group(2)),
            ) from None
        raise InputError(f"TOML syntax error: {msg}", path=str(path)) from None
    if nesting_depth(data) > MAX_DEPTH:
        raise InputError(f"TOML nested deeper than {MAX_DEPTH} levels", path=str(path))
    return data
