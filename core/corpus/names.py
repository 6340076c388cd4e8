"""The safe alphabet of names: system, judge and rater names, question and document ids.

A name is 1 to 128 characters: ASCII letters, digits and ``. _ - : / @ +``, starting with a
letter or digit. No spaces, no ``|`` (it separates names in queues and keys), no Markdown or HTML
punctuation, no control characters. Every place a name enters the workbench (experiment files,
imported files, CLI options) checks it here.
"""

from __future__ import annotations

import re

from core.errors import InputError

NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:/@+\-]{0,127}")
NAME_RULE = (
    "1-128 characters: ASCII letters, digits and . _ - : / @ +, starting with a letter or digit"
)


def name_problem(value: object) -> str | None:
    """Why ``value`` is not a safe name, or ``None`` when it is one."""
    if not isinstance(value, str):
        return f"expected text, found {type(value).__name__}"
    if NAME_PATTERN.fullmatch(value):
        return None
    bad = next((ch for ch in value if not re.fullmatch(r"[A-Za-z0-9._:/@+\-]", ch)), None)
    if not value:
        return "empty name"
    if len(value) > 128:
        return f"name longer than 128 characters ({NAME_RULE})"
    if bad is not None:
        return f"character {bad!r} (U+{ord(bad):04X}) not allowed in a name ({NAME_RULE})"
    return f"a name must start with a letter or digit ({NAME_RULE})"


def check_name(
    value: object,
    what: str,
    *,
    path: str | None = None,
    line: int | None = None,
    column: str | None = None,
) -> str:
    """``value`` when it is a safe name; an ``InputError`` naming ``what`` otherwise."""
    problem = name_problem(value)
    if problem:
        raise InputError(f"{what} {value!r}: {problem}", path=path, line=line, column=column)
    return str(value)
