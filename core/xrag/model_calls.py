"""Model calls of the XRAG builder: the real-model guard, JSON replies, language names."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sqlite_utils

from core.errors import ConfigError
from core.llm.engine import complete_many
from core.llm.reply_json import first_object

LANGUAGE_NAMES = {"en": "English", "de": "German", "es": "Spanish", "zh": "Chinese", "ar": "Arabic"}
TARGET_LANGUAGES = ("de", "es", "zh", "ar")


def language_name(code: str) -> str:
    """English name of an ISO 639-1 code of the study (ConfigError for others)."""
    try:
        return LANGUAGE_NAMES[code]
    except KeyError:
        raise ConfigError(
            f"unsupported language {code!r}; use one of {', '.join(LANGUAGE_NAMES)}"
        ) from None


def require_real_model(model: str, step: str) -> None:
    """Raise ConfigError when ``model`` is an offline baseline: ``step`` needs an LLM."""
    if model.startswith("offline:"):
        raise ConfigError(
            f"{step} needs a real model (an LLM), not the offline baseline "
            f"{model!r}: pass e.g. --model openai:gpt-4o-mini"
        )


def parse_json_object(text: str) -> dict[str, Any] | None:
    """The JSON object in a reply: the whole text, a fenced block, or the first ``{...}``."""
    return first_object(text)


def ask_json(
    db: sqlite_utils.Database,
    requests: Sequence[Any],
    *,
    run_id: str | None = None,
    progress: bool = False,
) -> list[tuple[dict[str, Any] | None, Any]]:
    """Send ``requests``; return ``(parsed JSON object or None, response)`` per request.

    A provider failure (``response.error``) and an unreadable reply both give None; the caller
    counts them and writes nothing for that request.
    """

    responses = complete_many(db, list(requests), run_id=run_id, progress=progress)
    return [(None if r.error else parse_json_object(r.text), r) for r in responses]
