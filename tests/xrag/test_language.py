"""lingua response-language detection on all five study languages (XQuAD demo questions)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.xrag.language import STUDY_LANGUAGES, detect_language, language_matches

QAS = Path(__file__).resolve().parents[2] / "demo" / "xrag" / "qas.jsonl"


@pytest.fixture(scope="module")
def questions():
    out: dict[str, list[str]] = {}
    with open(QAS, encoding="utf-8") as fh:
        for line in fh:
            r = json.loads(line)
            out.setdefault(r["language"], []).append(r["question"])
    return out


@pytest.mark.parametrize("lang", STUDY_LANGUAGES)
def test_detects_each_language_on_real_questions(questions, lang):
    sample = [q for q in questions[lang] if len(q) > (10 if lang == "zh" else 25)][:40]
    detected = [detect_language(q) for q in sample]
    hits = sum(d == lang for d in detected)
    wrong = [d for d in detected if d not in (lang, None)]
    assert len(sample) == 40
    assert hits >= 36, (lang, detected)
    assert len(wrong) <= 2


def test_short_answers_are_undetermined():
    for text in ("308", "Denver Broncos", "", "1990 - 2000"):
        assert detect_language(text) is None
    assert language_matches("Denver Broncos", "de") == (None, None)


def test_wrong_language_is_flagged():
    assert language_matches("The Broncos defeated the Panthers in the final.", "de") == (
        "en",
        False,
    )
    assert language_matches("Die Broncos besiegten im Finale die Panthers.", "de") == ("de", True)
