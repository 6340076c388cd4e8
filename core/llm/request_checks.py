"""Checks of one model request's values, wherever it comes from (a batch file's line, an
experiment's ``request_params``, code): the one place that says what a request may hold.

Text fields are strings; ``messages`` is a list of ``{"role", "content"}`` objects whose role is
``user``, ``assistant`` or ``system`` and whose content is a string; ``temperature`` a finite
number >= 0; ``max_tokens`` a whole number from 1 to :data:`MAX_OUTPUT_TOKENS`; ``fields``,
``tags`` and ``params`` are objects. Provider ``params`` (and an experiment's ``request_params``)
hold no non-finite number and no control character at any depth, and the well-known sampling
settings in them (:data:`NUMERIC_PARAMS`) have their type and range wherever they appear. Every
failure is one ``ConfigError`` naming the field.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

from core.errors import ConfigError

MAX_OUTPUT_TOKENS = 10_000_000
ROLES = ("user", "assistant", "system")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
#: name -> (whole number only, minimum, maximum) of sampling settings, at any depth of params.
NUMERIC_PARAMS: dict[str, tuple[bool, float, float]] = {
    "temperature": (False, 0.0, 100.0),
    "top_p": (False, 0.0, 1.0),
    "top_k": (True, 1, MAX_OUTPUT_TOKENS),
    "max_tokens": (True, 1, MAX_OUTPUT_TOKENS),
    "max_output_tokens": (True, 1, MAX_OUTPUT_TOKENS),
    "max_completion_tokens": (True, 1, MAX_OUTPUT_TOKENS),
    "frequency_penalty": (False, -100.0, 100.0),
    "presence_penalty": (False, -100.0, 100.0),
    "n": (True, 1, 1000),
    "seed": (True, -(2**63), 2**63 - 1),
    "sentences": (True, 1, 1000),
}


def _kind(value: Any) -> str:
    return "true/false" if isinstance(value, bool) else type(value).__name__


def _number(name: str, value: Any, whole: bool, low: float, high: float) -> None:
    ok = isinstance(value, int) if whole else isinstance(value, (int, float))
    if isinstance(value, bool) or not ok or not (low <= value <= high):  # nan fails the range
        kind = "a whole number" if whole else "a finite number"
        raise ConfigError(f"{name} = {value!r:.60}: expected {kind} from {low:g} to {high:g}")


def check_params(value: Any, where: str = "params") -> None:
    """Refuse non-finite numbers, control characters and ill-typed sampling settings anywhere in
    ``value`` (provider parameters, an experiment's ``request_params``)."""
    stack: list[tuple[str, Any]] = [(where, value)]
    while stack:
        name, item = stack.pop()
        if isinstance(item, str):
            if m := _CONTROL.search(item):
                raise ConfigError(f"{name}: control character U+{ord(m.group()):04X} in the text")
        elif isinstance(item, float) and not math.isfinite(item):
            raise ConfigError(f"{name} = {item!r}: numbers must be finite (no nan or inf)")
        elif isinstance(item, Mapping):
            for key, child in item.items():
                if not isinstance(key, str) or _CONTROL.search(key):
                    raise ConfigError(f"{name}: key {key!r:.60} is not plain text")
                if key in NUMERIC_PARAMS:
                    _number(f"{name}.{key}", child, *NUMERIC_PARAMS[key])
                stack.append((f"{name}.{key}", child))
        elif isinstance(item, (list, tuple)):
            stack.extend((f"{name}[{i}]", child) for i, child in enumerate(item))


def check_request_values(
    texts: Mapping[str, Any],
    messages: Any,
    temperature: Any,
    max_tokens: Any,
    objects: Mapping[str, Any],
) -> None:
    """The checks of :class:`core.llm.types.LLMRequest` (see the module docstring)."""
    for name, value in texts.items():
        if not isinstance(value, str):
            raise ConfigError(f"{name} must be text, found {_kind(value)}")
    if not isinstance(messages, (list, tuple)):
        raise ConfigError(f"messages must be a list of objects, found {_kind(messages)}")
    for i, message in enumerate(messages):
        if not isinstance(message, Mapping):
            raise ConfigError(f"messages[{i}] must be an object with role and content")
        for key in ("role", "content"):
            if not isinstance(message.get(key), str):
                found = "nothing" if key not in message else _kind(message[key])
                raise ConfigError(f"messages[{i}].{key} must be text, found {found}")
        if message["role"] not in ROLES:
            raise ConfigError(f"messages[{i}].role {message['role']!r:.40} is not one of {ROLES}")
    _number("temperature", temperature, False, 0.0, NUMERIC_PARAMS["temperature"][2])
    _number("max_tokens", max_tokens, True, 1, MAX_OUTPUT_TOKENS)
    for name, value in objects.items():
        if not isinstance(value, Mapping):
            raise ConfigError(f"{name} must be an object, found {_kind(value)}")
    check_params(objects.get("params", {}))
