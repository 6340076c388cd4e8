"""Reading JSON values out of LLM replies (pure: no I/O, no project imports).

Models wrap JSON in prose, in fenced blocks (```json, ```python, bare ```), or write Python
dicts with single quotes. The helpers here find the candidates; each caller decides which value
it accepts and what counts as unparsed.

- :func:`json_values` / :func:`iter_json_values`: every JSON value that starts at a ``{`` or
  ``[``, fenced bodies first, then the whole text (nested values included, in order).
- :func:`first_value`: the first of those (or None).
- :func:`first_object`: the JSON object of a reply: the whole text, a fenced block, or the
  first ``{`` that decodes to an object.
- :func:`balanced_object`, :func:`load_object`, :func:`fenced_blocks`: the pieces the judge
  reply parser (:mod:`core.judging.verdicts`) combines, with single-quoted dicts read literally.
- :func:`outer_object`: the span from the first ``{`` to the last ``}`` decoded as JSON.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterator
from typing import Any

FENCE = re.compile(r"```(?:json|JSON|python)?\s*\n?(.*?)```", re.S)
_OPENER = re.compile(r"[\[{]")
_OUTER = re.compile(r"\{.*\}", re.S)
_DECODER = json.JSONDecoder()


def fenced_blocks(text: str) -> list[str]:
    """The stripped bodies of the fenced blocks of ``text``, in order."""
    return [m.group(1).strip() for m in FENCE.finditer(text or "")]


def _values_in(body: str, openers: re.Pattern[str] = _OPENER) -> Iterator[Any]:
    for match in openers.finditer(body):
        try:
            yield _DECODER.raw_decode(body[match.start() :])[0]
        except json.JSONDecodeError:
            continue


def iter_json_values(text: str) -> Iterator[Any]:
    """Lazily, every JSON value starting at a ``{`` or ``[``: fenced bodies first, then the text."""
    text = text or ""
    for body in [m.group(1) for m in FENCE.finditer(text)] + [text]:
        yield from _values_in(body)


def json_values(text: str) -> list[Any]:
    """Every JSON value starting at a ``{`` or ``[`` of ``text``, in order of appearance
    (fenced bodies first, then the whole text; nested values included)."""
    return list(iter_json_values(text))


def first_value(text: str) -> Any | None:
    """The first of :func:`json_values` (a dict or a list), or None."""
    return next(iter_json_values(text), None)


def first_object(text: str) -> dict[str, Any] | None:
    """The JSON object in a reply: the whole text, a fenced block, or the first ``{...}``."""
    text = (text or "").strip()
    for candidate in [text] + fenced_blocks(text):
        try:
            obj = json.loads(candidate)
        except json.JSONDecodeError:
            continue
        if isinstance(obj, dict):
            return obj
    return next((v for v in _values_in(text, re.compile(r"\{")) if isinstance(v, dict)), None)


def balanced_object(text: str) -> str | None:
    """The first balanced ``{...}`` substring (string-aware, either quote), or None."""
    start = text.find("{")
    while start != -1:
        depth, quote, escape = 0, "", False
        for i in range(start, len(text)):
            ch = text[i]
            if quote:
                if escape:
                    escape = False
                elif ch == "\\":
                    escape = True
                elif ch == quote:
                    quote = ""
            elif ch in "\"'":
                quote = ch
            elif ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
                if depth == 0:
                    return text[start : i + 1]
        start = text.find("{", start + 1)
    return None


def load_object(text: str) -> tuple[dict[Any, Any] | None, str]:
    """Decode ``text`` as JSON, else as a Python literal dict; return (dict, method).

    ``method`` is ``'json'`` or ``'literal'``; ``(None, '')`` when ``text`` is neither.
    """
    try:
        value = json.loads(text)
        if isinstance(value, dict):
            return value, "json"
    except (json.JSONDecodeError, ValueError):
        pass
    try:
        value = ast.literal_eval(text)
        if isinstance(value, dict):
            return value, "literal"
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        pass
    return None, ""


def outer_object(text: str) -> dict[str, Any] | None:
    """The span from the first ``{`` to the last ``}`` of ``text`` as a JSON object, or None."""
    m = _OUTER.search(text or "")
    if not m:
        return None
    try:
        value = json.loads(m.group(0))
    except json.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None
