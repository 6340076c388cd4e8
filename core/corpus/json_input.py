"""Bounded JSON parsing for every JSON and JSONL input (the one reader's JSON step).

A document is refused, as an ``InputError`` naming the file and line, when it is not valid JSON,
uses ``NaN``/``Infinity``, nests deeper than :data:`MAX_DEPTH`, writes a number longer than
:data:`MAX_NUMBER_CHARS` characters or escapes a lone UTF-16 surrogate (``"\\ud800"``: JSON
accepts it, but it is no character and UTF-8 cannot store it; a high and low pair is one
character and fine). The bounds are checked by a flat scan of the tokens before
``json.loads`` runs, so no input reaches Python's recursion limit or its integer-size limit.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from core.errors import InputError

MAX_DEPTH = 64
MAX_NUMBER_CHARS = 100
#: An escaped backslash (skipped), a surrogate pair (fine) or a lone surrogate escape (refused).
_ESCAPES = re.compile(
    r"\\\\|\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}|(\\u[dD][89a-fA-F][0-9a-fA-F]{2})"
)
#: A run of characters long enough to be an over-long number (strings may hold one too).
_LONG_RUN = re.compile(rf"[0-9.eE+\-]{{{MAX_NUMBER_CHARS + 1}}}")
_TOKENS = re.compile(r'"(?:[^"\\]+|\\.)*"|[\[{]|[\]}]|-?[0-9][0-9.eE+\-]*')


def _refuse_constant(name: str) -> float:
    raise ValueError(f"{name} is not allowed")


def check_bounds(text: str, path: str | Path, line: int | None = None) -> None:
    """Refuse nesting deeper than :data:`MAX_DEPTH` and numbers longer than
    :data:`MAX_NUMBER_CHARS` (``line``: the line of ``text`` in its file, for JSONL).

    Without more opening brackets than :data:`MAX_DEPTH` (inside strings or not) and without a
    run of number characters longer than :data:`MAX_NUMBER_CHARS`, no bound can be broken: such
    a text (every line of an ordinary JSONL file) skips the token scan."""
    if text.count("{") + text.count("[") <= MAX_DEPTH and not _LONG_RUN.search(text):
        return
    depth = 0
    for m in _TOKENS.finditer(text):
        token = m.group()
        first = token[0]
        if first == '"':
            continue
        if first in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                where = line or text.count("\n", 0, m.start()) + 1
                raise InputError(
                    f"JSON nested deeper than {MAX_DEPTH} levels", path=str(path), line=where
                )
        elif first in "]}":
            depth -= 1
        elif len(token) > MAX_NUMBER_CHARS:
            where = line or text.count("\n", 0, m.start()) + 1
            raise InputError(
                f"JSON number of {len(token)} characters (at most {MAX_NUMBER_CHARS})",
                path=str(path),
                line=where,
            )


def check_surrogates(text: str, path: str | Path, line: int | None = None) -> None:
    """Refuse a lone surrogate escape (``\\ud800`` without its low half, or a low half alone)."""
    if "\\u" not in text:
        return
    for m in _ESCAPES.finditer(text):
        if m.group(1):
            where = line or text.count("\n", 0, m.start()) + 1
            raise InputError(
                f"JSON escape {m.group(1)} is a lone UTF-16 surrogate, not a character "
                "(write the character itself, or a high and low surrogate pair)",
                path=str(path),
                line=where,
            )


def loads_bounded(text: str, path: str | Path, line: int | None = None) -> Any:
    """``json.loads(text)`` within the bounds above; every failure an ``InputError``."""
    check_bounds(text, path, line)
    check_surrogates(text, path, line)
    try:
        return json.loads(text, parse_constant=_refuse_constant)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"not valid JSON: {exc.msg}",
            path=str(path),
            line=line or exc.lineno,
            column=exc.colno if line is None or exc.lineno == 1 else None,
        ) from None
    except (ValueError, RecursionError) as exc:
        message = str(exc) if isinstance(exc, ValueError) else "nested too deeply"
        raise InputError(f"not valid JSON: {message}", path=str(path), line=line) from None


def nesting_depth(value: Any) -> int:
    """How deeply lists and dicts nest in a parsed ``value`` (a walk with its own stack, so a
    value of any depth is measured without recursion)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (dict, list)):
            deepest = max(deepest, depth)
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
    return deepest
