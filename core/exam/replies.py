"""Readers of the EXAM Q/A system's replies: one parser per reply kind, never a guess.

* multiple choice (prompt ``exam_answer_mc``): :func:`parse_choice`, the key of one choice;
* self-rating (prompt ``exam_answerability``): :func:`parse_rating`, a 0-5 grade and the answer.

The ground-truth rater's yes/no (task ``match_reference``) is read by the judges' parser,
:func:`core.judging.verdicts.parse_reply`.
"""

from __future__ import annotations

import re

from core.llm.reply_json import outer_object


def parse_rating(text: str) -> tuple[int | None, str]:
    """``(rating, answer)`` from a self-rating reply; rating None when no 0-5 grade is found.

    Accepted: JSON ``{"rating": n, "answer": ...}`` or lines ``RATING: n`` / ``ANSWER: ...``.
    """
    t = (text or "").strip()
    obj = outer_object(t)
    if obj is not None:
        r = obj.get("rating")
        if isinstance(r, (int, float)) and 0 <= r <= 5 and float(r).is_integer():
            return int(r), str(obj.get("answer") or "")
    r = re.search(r"rating\s*[:=]\s*([0-5])\b", t, re.I)
    a = re.search(r"answer\s*[:=]\s*(.+)", t, re.I)
    return (int(r.group(1)) if r else None), (a.group(1).strip() if a else "")


_KEY = r"[A-Za-z0-9]+"
_ALONE = re.compile(rf"[(\[]?\s*({_KEY})\s*[)\]]?[.:!]?")
_LEADING = re.compile(rf"(?:\(({_KEY})\)|\[({_KEY})\]|({_KEY})(?:\)|[.:](?=\s|$)))")
_NAMED = re.compile(
    rf"\b(?:answer|option|choice)(?:\s+is)?\s*[:=-]?\s*[(\[]?({_KEY})[)\]]?(?=[\s.,;:!?]*$|[.,;:!?)])",
    re.IGNORECASE,
)


def parse_choice(text: str, keys: list[str]) -> str | None:
    """The choice key a reply names, or None; never a guess.

    Read as a key: the whole reply (``b``, ``(B)``, ``b.``), a marked key opening the reply
    (``(A) granite``, ``b) granite``, ``B: granite``) or an explicitly named one (``the answer
    is B``, ``Answer: (b).``). A key word anywhere else (the article "a" in "It is a hard one")
    is not a choice; two different named keys are ambiguous (None).
    """
    t = (text or "").strip()
    lookup = {str(k).lower(): k for k in keys}
    alone = _ALONE.fullmatch(t)
    if alone:
        return lookup.get(alone.group(1).lower())
    leading = _LEADING.match(t)
    if leading:
        key = next(g for g in leading.groups() if g)
        if key.lower() in lookup:
            return lookup[key.lower()]
    named = {lookup[m.lower()] for m in _NAMED.findall(t) if m.lower() in lookup}
    return named.pop() if len(named) == 1 else None
