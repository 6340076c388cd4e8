"""The retrieval context's markup for the offline baselines: ``[Passage N]`` headers masked out
of answers, and the passages an answer cites; the characters a question chooses between
(``fields['candidates']``) that an answer names."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from core.corpus.sentences import split_sentences

# The retrieval context's own markup: "[Passage N]" headers and "-----" separators.
_MARKUP = re.compile(r"\[Passage \d+\][ \t]*\n?|\n-----\n")
_PASSAGE_HEADER = re.compile(r"\[Passage (\d+)\]")


def mask_markup(context: str) -> str:
    """``context`` with passage headers and separators blanked out (same length, so offsets
    into the masked text are offsets into the context): answers never quote the markup."""
    return _MARKUP.sub(
        lambda m: "\n" * m.group(0).count("\n") + " " * (len(m.group(0)) - m.group(0).count("\n")),
        context,
    )


def _squash(text: str) -> str:
    return " ".join(text.split()).lower()


def cited_passages(context: str, answer: str) -> list[str]:
    """The passages of a ``[Passage N]`` context that ``answer`` cites: named by number in the
    answer, or holding one of its sentences verbatim (whitespace- and case-insensitive)."""
    parts = _PASSAGE_HEADER.split(context)
    passages = {int(n): text for n, text in zip(parts[1::2], parts[2::2])}
    named = {int(n) for n in re.findall(r"\bPassage (\d+)", answer)}
    sentences = [
        _squash(answer[s.start : s.end]) for s in split_sentences(_MARKUP.sub(" ", answer))
    ]
    sentences = [s for s in sentences if len(s) >= 20]
    out = []
    for n, text in passages.items():
        flat = _squash(text)
        if n in named or any(s in flat for s in sentences):
            out.append(text)
    return out


def named(text: str, candidates: Sequence[str]) -> list[str]:
    """The ``candidates`` that ``text`` names (whole words, case-insensitive)."""
    return [
        c
        for c in candidates
        if c.strip() and re.search(rf"(?<!\w){re.escape(c)}(?!\w)", text, re.I)
    ]


def names_several(answer: str, candidates: Sequence[str]) -> bool:
    """True when ``answer`` names (whole words, case-insensitive) two or more ``candidates``."""
    return len(named(answer, candidates)) >= 2


def wrong_candidate(answer: str, references: Sequence[str], candidates: Sequence[str]) -> bool:
    """True when ``answer`` names several ``candidates``, or one that no reference *is* (the
    reference that is a bare candidate name is the right one; the others are evidence)."""
    right = {c for c in candidates for r in references if r.strip().casefold() == c.casefold()}
    return names_several(answer, candidates) or bool(
        right and set(named(answer, candidates)) - right
    )


def reference_score(
    answer: str,
    references: Sequence[str],
    candidates: Sequence[str],
    score: Callable[[str, list[str]], float],
) -> float:
    """``score(answer, references)``, or 0 when the answer is a :func:`wrong_candidate` (the
    offline baselines' reference tasks share this rule)."""
    if wrong_candidate(answer, references, candidates):
        return 0.0
    return score(answer, list(references))
