"""Response-language detection with lingua (``lingua-language-detector``).

An answer's language is the detector's choice among the study languages (English, German,
Spanish, Chinese, Arabic by default), or *undetermined* (None) when the text is too short to
tell (fewer than ``MIN_WORDS`` alphabetic words, or fewer than ``MIN_CJK`` CJK characters/Arabic
letters) or lingua's top two candidates are closer than ``MIN_RELATIVE_DISTANCE``. Short answers
such as a number or a name ("Denver Broncos") carry no language, so they are never counted
as being in the wrong language.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING

from core.errors import ConfigError

if TYPE_CHECKING:  # lingua is optional and imported when first needed
    from lingua import LanguageDetector

STUDY_LANGUAGES = ("en", "de", "es", "zh", "ar")
MIN_WORDS = 3
MIN_CJK = 2
MIN_RELATIVE_DISTANCE = 0.1

_WORD = re.compile(r"[^\W\d_]{2,}", re.U)
_CJK_OR_ARABIC = re.compile(r"[\u4e00-\u9fff\u3400-\u4dbf\u0600-\u06ff\u0750-\u077f]")


@lru_cache(maxsize=8)
def _detector(languages: tuple[str, ...]) -> LanguageDetector:
    from lingua import (
        IsoCode639_1,
        LanguageDetectorBuilder,
    )

    try:
        codes = [getattr(IsoCode639_1, code.upper()) for code in languages]
    except AttributeError as exc:
        raise ConfigError(f"unknown ISO 639-1 language code in {languages}: {exc}") from None
    return (
        LanguageDetectorBuilder.from_iso_codes_639_1(*codes)
        .with_minimum_relative_distance(MIN_RELATIVE_DISTANCE)
        .build()
    )


def has_enough_text(text: str) -> bool:
    """Whether ``text`` is long enough for a language verdict (see module docstring)."""
    if len(_CJK_OR_ARABIC.findall(text)) >= MIN_CJK:
        return True
    return len(_WORD.findall(text)) >= MIN_WORDS


def detect_language(text: str, languages: tuple[str, ...] = STUDY_LANGUAGES) -> str | None:
    """The ISO 639-1 code lingua detects for ``text`` among ``languages``, or None."""
    if not text or not has_enough_text(text):
        return None
    found = _detector(tuple(languages)).detect_language_of(text)
    return found.iso_code_639_1.name.lower() if found is not None else None


def language_matches(
    text: str, expected: str, languages: tuple[str, ...] = STUDY_LANGUAGES
) -> tuple[str | None, bool | None]:
    """``(detected, ok)``: ok is True/False when a language was detected, None otherwise."""
    detected = detect_language(text, languages)
    return detected, (None if detected is None else detected == expected)
