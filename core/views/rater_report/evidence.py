"""The report's disagreement sample: items where the auto-rater's verdict differs from the
people's majority, with the evidence (the question, both answers, the rater's rationale and
quotes, each person's label and rationale) and a ``?q=`` link to the item in the app.

The sample is the first ``k`` disagreements in the order of ``sha256(seed|item)``: the same
items on every run, spread over questions and system pairs rather than the first ones stored.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from core.annotation.pairwise import split_pair_key
from core.store.answers import question_answers
from core.store.judgments import JudgmentKind, effective_judgments
from core.store.questions import get_question
from core.views.rater_report.labels import stable_sample
from core.views.rater_report.records import Disagreement, DisagreementSample, PersonLabel

if TYPE_CHECKING:
    from core.annotation.label_task import HumanLabel
    from core.store.engine import Database

#: The app page the item links open (it accepts ``?q=QUESTION_ID``).
LINK_PAGE = "Browse"
MAX_CHARS = 1200


def item_link(question_id: str, base_url: str = "") -> str:
    """``BASE/Browse?q=ID`` (``Browse?q=ID``, relative to the app's address, without a base)."""
    base = base_url.rstrip("/") + "/" if base_url else ""
    return f"{base}{LINK_PAGE}?q={quote(question_id, safe='')}"


def _cut(text: str) -> str:
    text = text or ""
    return text if len(text) <= MAX_CHARS else text[: MAX_CHARS - 1] + "…"


def _in_words(label: str, first: str, second: str) -> str:
    """A canonical label in words: which answer is better, or Equal / None (both wrong)."""
    return {
        "first": f"{first} better",
        "second": f"{second} better",
        "Equal": "Equal",
        "None": "None (both wrong)",
    }.get(label, label)


def disagreement_sample(
    db: Database,
    rater: str,
    mine: Mapping[str, str],
    reference: Mapping[str, str],
    rows: Sequence[HumanLabel],
    *,
    k: int = 6,
    seed: int = 0,
    base_url: str = "",
) -> DisagreementSample:
    """``{"total", "shown": [...]}``: how many shared items disagree and ``k`` of them with
    their evidence (``rows``: the human label rows, for names and rationales)."""
    differ = [i for i in mine if i in reference and mine[i] != reference[i]]
    shown: list[Disagreement] = []
    for key in stable_sample(differ, k, seed):
        qid, first, second = split_pair_key(key)
        question = get_question(db, qid)
        answers = {
            a.system: a.text for a in question_answers(db, qid) if a.system in (first, second)
        }
        judged = [
            j
            for j in effective_judgments(
                db, kind=JudgmentKind.PAIRWISE, rater=rater, question_id=qid
            )
            if {j.system_a, j.system_b} == {first, second}
        ]
        # one order's verdict, chosen by the order shown (first system first when judged that
        # way), not by which row was stored last: the same verdicts in any file order agree
        judged = sorted(reversed(judged), key=lambda j: j.system_a != first)  # latest first
        latest: dict[str, Any] = (
            {"rationale": judged[0].rationale, "evidence": judged[0].evidence}
            if judged
            else {"rationale": "", "evidence": []}
        )
        people: list[PersonLabel] = [
            {
                "name": r["annotator"],
                "label": _in_words(r["label"] or "", first, second),
                "rationale": _cut(r.get("rationale") or ""),
            }
            for r in sorted(rows, key=lambda r: r["annotator"])
            if r["item"] == key
        ]
        quotes = latest.get("evidence") or []
        shown.append(
            {
                "item": key,
                "question_id": qid,
                "question": _cut(question.question if question else ""),
                "first": first,
                "second": second,
                "answer_first": _cut(answers.get(first, "")),
                "answer_second": _cut(answers.get(second, "")),
                "rater_label": _in_words(mine[key], first, second),
                "majority_label": _in_words(reference[key], first, second),
                "rationale": _cut(latest.get("rationale") or ""),
                "quotes": [
                    _cut(str(q.get("quote", q) if isinstance(q, dict) else q)) for q in quotes
                ][:5],
                "people": people,
                "link": item_link(qid, base_url),
            }
        )
    return {"total": len(differ), "shown": shown}
