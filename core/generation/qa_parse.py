"""Question/answer pairs from a model's reply (JSON list, ``{"questions": [...]}`` or
``Question: ... Answer: ...`` text)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.llm.reply_json import first_value


@dataclass(frozen=True)
class QAPair:
    """One parsed question with its reference answer."""

    question: str
    answer: str


# ---------------------------------------------------------------------------------------------
# Parsing model replies
# ---------------------------------------------------------------------------------------------

_Q_LABEL = r"[ \t*_#>\-]*(?:\d+[.)]\s*)?(?:Question|Q)\s*\d*\s*[:.)][ \t*_]*"
_A_LABEL = r"\s*[*_]*(?:Answer|A)\s*\d*\s*:[ \t*_]*"
_QA_BLOCK = re.compile(
    rf"(?:^|\n){_Q_LABEL}(?P<q>.+?){_A_LABEL}(?P<a>.+?)"
    rf"(?=\n{_Q_LABEL}|\Z)",
    re.S | re.I,
)


def _pairs_from_json(data: object) -> list[QAPair]:
    if isinstance(data, dict):
        for key in ("questions", "items", "pairs", "qa"):
            if isinstance(data.get(key), list):
                data = data[key]
                break
        else:
            data = [data]
    if not isinstance(data, list):
        return []
    out = []
    for item in data:
        if not isinstance(item, dict):
            continue
        low = {str(k).lower(): v for k, v in item.items()}
        q, a = low.get("question", low.get("q")), low.get("answer", low.get("a"))
        if isinstance(q, str) and q.strip() and isinstance(a, (str, list)):
            answer = " ".join(a) if isinstance(a, list) else a
            out.append(QAPair(" ".join(q.split()), " ".join(str(answer).split())))
    return out


def parse_qa_pairs(text: str) -> list[QAPair]:
    """Question/answer pairs from a reply: JSON list (bare or fenced), ``{"questions": [...]}``,
    or ``Question: ... Answer: ...`` blocks. Raises ValueError when none can be read."""
    value = first_value(text)
    if value is not None:
        pairs = _pairs_from_json(value)
        if pairs:
            return pairs
    pairs = []
    for m in _QA_BLOCK.finditer(text):
        q = " ".join(m.group("q").replace("**", "").split())
        a = " ".join(m.group("a").replace("**", "").split())
        if q and a:
            pairs.append(QAPair(q, a))
    if not pairs:
        raise ValueError("no JSON question list and no 'Question: ... Answer: ...' blocks")
    return pairs
