"""Parsing judge replies into verdicts, without ever guessing.

A reply is read, in this order, as

1. a JSON object (the whole reply, a fenced ```json block, or the first balanced ``{...}``);
2. a Python-style dict with single quotes (``ast.literal_eval``, literals only);
3. a verdict phrase anywhere in the text (``"A is better"``, ``"verdict: yes"``, ...), accepted
   only when exactly one verdict is named.

Anything else is *unparsed*: ``verdict`` is None and ``status`` is ``'unparsed'``; the caller
stores the raw text and counts it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from core.llm.reply_json import balanced_object, fenced_blocks, load_object
from core.store.judgments import JudgmentKind

ABSOLUTE = ("yes", "no")
PAIRWISE = ("A", "B", "None")
PAIRWISE_EQUAL = ("A", "B", "Equal", "None")

_SYNONYMS = {
    "yes": "yes",
    "y": "yes",
    "true": "yes",
    "supported": "yes",
    "correct": "yes",
    "matches": "yes",
    "match": "yes",
    "no": "no",
    "n": "no",
    "false": "no",
    "not supported": "no",
    "unsupported": "no",
    "incorrect": "no",
    "does not match": "no",
    "a": "A",
    "answer a": "A",
    "a is better": "A",
    "response a": "A",
    "b": "B",
    "answer b": "B",
    "b is better": "B",
    "response b": "B",
    "none": "None",
    "neither": "None",
    "both wrong": "None",
    "both contain errors": "None",
    "equal": "Equal",
    "tie": "Equal",
    "same": "Equal",
    "both": "Equal",
    "equally good": "Equal",
}

_PHRASES_PAIRWISE = [
    (re.compile(r"\b(?:answer|response|option)?\s*A\s+is\s+(?:clearly\s+|much\s+)?better\b"), "A"),
    (re.compile(r"\b(?:answer|response|option)?\s*B\s+is\s+(?:clearly\s+|much\s+)?better\b"), "B"),
    (re.compile(r"\b(?i:verdict)\W{0,3}\s*[\"']?A[\"']?(?![\w])"), "A"),
    (re.compile(r"\b(?i:verdict)\W{0,3}\s*[\"']?B[\"']?(?![\w])"), "B"),
    (re.compile(r"\bverdict\W{0,3}\s*[\"']?(?:None|neither)\b", re.I), "None"),
    (
        re.compile(
            r"\b(?:neither (?:answer|response) is better|both (?:answers |responses )?"
            r"contain errors)\b",
            re.I,
        ),
        "None",
    ),
    (re.compile(r"\bverdict\W{0,3}\s*[\"']?(?:Equal|tie)\b", re.I), "Equal"),
    (
        re.compile(
            r"\b(?:both (?:answers |responses )?are equally (?:good|correct)|"
            r"equally good)\b",
            re.I,
        ),
        "Equal",
    ),
]
_PHRASES_ABSOLUTE = [
    (re.compile(r"\bverdict\W{0,3}\s*[\"']?yes\b", re.I), "yes"),
    (re.compile(r"\bverdict\W{0,3}\s*[\"']?no\b", re.I), "no"),
    (re.compile(r"\b(?:is|are)\s+not\s+(?:fully\s+)?supported\b", re.I), "no"),
    (re.compile(r"\b(?:is|are)\s+(?:fully\s+)?supported\b", re.I), "yes"),
    (re.compile(r"\bdoes\s+not\s+match\b", re.I), "no"),
]
_NEITHER = re.compile(r"\bneither\b[^.\n]{0,60}?\bis\s+better\b", re.I)


@dataclass
class ParsedReply:
    """A parsed judge reply: ``verdict`` is None exactly when ``status == 'unparsed'``."""

    verdict: str | None
    status: str
    evidence: list[str] = field(default_factory=list)
    explanation: str = ""
    method: str = ""  # json | fenced | literal | phrase | ''


def allowed_verdicts(kind: str) -> tuple[str, ...]:
    """The verdicts a reply of ``kind`` may give (absolute / pairwise / pairwise_equal)."""
    return {"absolute": ABSOLUTE, "pairwise": PAIRWISE, "pairwise_equal": PAIRWISE_EQUAL}[kind]


def normalise_verdict(value: Any, allowed: tuple[str, ...]) -> str | None:
    """Map a verdict value (``'Yes'``, ``'A is better'``, ``'neither'``...) onto ``allowed``."""
    if isinstance(value, bool):
        value = "yes" if value else "no"
    if not isinstance(value, str):
        return None
    key = re.sub(r"[\s.!\"'*]+$", "", value.strip().strip("\"'*").strip()).lower()
    key = re.sub(r"\s+", " ", key)
    mapped = _SYNONYMS.get(key)
    return mapped if mapped in allowed else None


def _from_dict(obj: dict[Any, Any], allowed: tuple[str, ...], method: str) -> ParsedReply | None:
    lowered = {str(k).lower(): v for k, v in obj.items()}
    if "verdict" not in lowered:
        return None
    verdict = normalise_verdict(lowered["verdict"], allowed)
    if verdict is None:
        return None
    evidence = lowered.get("evidence") or []
    if isinstance(evidence, str):
        evidence = [evidence]
    quotes = [str(q) for q in evidence if isinstance(q, (str, int, float)) and str(q).strip()]
    quotes += [str(q.get("quote")) for q in evidence if isinstance(q, dict) and q.get("quote")]
    explanation = lowered.get("explanation") or lowered.get("rationale") or ""
    return ParsedReply(verdict, "ok", quotes, str(explanation), method)


def _from_phrases(text: str, kind: str, allowed: tuple[str, ...]) -> ParsedReply | None:
    patterns = _PHRASES_ABSOLUTE if kind == JudgmentKind.ABSOLUTE else _PHRASES_PAIRWISE
    found = set()
    if kind != JudgmentKind.ABSOLUTE:
        # "Neither A nor B is better" must not read as "B is better".
        text, n = _NEITHER.subn(" ", text)
        if n and "None" in allowed:
            found.add("None")
    for pattern, verdict in patterns:
        if verdict in allowed and pattern.search(text):
            found.add(verdict)
    # "is supported" also matches inside "is not supported": drop the weaker reading.
    if found == {"yes", "no"} and not re.search(r"\bverdict\W{0,3}\s*[\"']?yes\b", text, re.I):
        if re.search(r"\bnot\s+(?:fully\s+)?supported\b", text, re.I):
            found = {"no"}
    if len(found) != 1:
        return None
    quotes = re.findall(r"\"([^\"\n]{12,400})\"", text)
    return ParsedReply(found.pop(), "ok", quotes, text.strip()[:2000], "phrase")


def parse_reply(raw: str, kind: str) -> ParsedReply:
    """Parse a judge reply of ``kind`` (``absolute``, ``pairwise``, ``pairwise_equal``).

    Returns ``ParsedReply(verdict=None, status='unparsed')`` when no single verdict can be read.
    """
    allowed = allowed_verdicts(kind)
    text = (raw or "").strip()
    if not text:
        return ParsedReply(None, "unparsed")
    candidates: list[tuple[str, str]] = [(text, "")]
    candidates += [(body, "fenced") for body in fenced_blocks(text)]
    obj_text = balanced_object(text)
    if obj_text:
        candidates.append((obj_text, ""))
    for candidate, label in candidates:
        obj, method = load_object(candidate)
        if obj is not None:
            parsed = _from_dict(obj, allowed, label or method)
            if parsed is not None:
                return parsed
    parsed = _from_phrases(text, kind, allowed)
    return parsed if parsed is not None else ParsedReply(None, "unparsed")
