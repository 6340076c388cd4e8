"""Model calls of the XRAG builder: JSON replies, language names."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sqlite_utils

from core.errors import ConfigError
from core.llm.engine import complete_many
from core.llm.reply_json import first_object
from core.llm.types import LLMResponse

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


def json_reply(response: LLMResponse) -> dict[str, Any] | None:
    """The JSON object of a reply (the whole text, a fenced block, or the first ``{...}``);
    None for a failed call or an unreadable reply."""
    return None if response.error else first_object(response.text)


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
    return [(json_reply(r), r) for r in responses]
