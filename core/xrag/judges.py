"""The XRAG judge panel: three judges, majority vote, and the response-language rule.

Each judge decides whether the generated answer contains the key information of the reference
answer (given in the question's language and in English) with nothing conflicting. A judge is
either a model id (an LLM with prompt ``xrag_judge``, or an offline baseline such as
``offline:similarity`` / ``offline:lexical`` reading the request fields, task
``match_reference``) or a rule judge run here:

* ``rule:key-recall`` - token overlap oriented at the reference: the share of the reference's
  tokens found in the answer (words of 2+ letters or digits, lower-cased, English stop words
  removed; CJK text as character bigrams); a match when the recall is at least ``KEY_RECALL``
  for some reference. Recall, not F1: extra correct detail in an answer is not penalised.
* ``rule:key-facts`` - the reference's key facts are its numbers and its name-like tokens
  (capitalised Latin words, runs of CJK characters, Arabic-script words of 3+ letters). The answer
  matches a reference when it contains every key fact. A reference without key facts falls back
  to content-word recall >= ``RECALL``. (This rule cannot see a conflicting statement beside the
  key facts; the other judges and the majority cover for it.)

Vote (panel of ``k`` judges, majority ``m = k // 2 + 1``): ``yes`` if at least ``m`` judges say
yes, ``no`` if at least ``m`` say no; otherwise no verdict - ``tie`` when at least ``m`` judges
gave a parsed verdict, ``unparsed`` when fewer did. Unparsed replies are never turned into votes.
Final verdict: ``no`` when the answer is detected in another language than the question's, else
the panel verdict (None when there is none).
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Callable
from dataclasses import replace
from typing import Any, TypedDict

from core.corpus.bm25 import stop_words
from core.corpus.sentences import content_words
from core.errors import ConfigError
from core.judging.verdicts import parse_reply
from core.llm.prompts import neutralise, render_prompt
from core.llm.stage import failure_share, over_limit_line
from core.llm.types import LLMRequest
from core.store.judgments import JudgmentStatus, NewJudgment

DEFAULT_PANEL = ("offline:similarity", "rule:key-recall", "rule:key-facts")
RECALL = 0.8
KEY_RECALL = 0.6
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_CAPITAL = re.compile(r"\b[A-ZÀ-ÖØ-Þ][\w'’-]+", re.U)
_CJK = re.compile(r"[\u4e00-\u9fff\u3400-\u4dbf]{2,}")
_ARABIC = re.compile(r"[\u0600-\u06ff]{3,}")


def _norm_number(text: str) -> str:
    return re.sub(r"[.,](?=\d{3}\b)", "", text)


def key_facts(reference: str) -> set[str]:
    """Numbers and name-like tokens of a reference (lower-cased; see module docstring)."""
    text = re.sub(r"^\(\d+\)\s*|\s\(\d+\)\s", " ", reference)  # composed "(1) x (2) y" labels
    facts = {_norm_number(n) for n in _NUMBER.findall(text)}
    facts |= {w.lower() for w in _CAPITAL.findall(text)}
    facts |= set(_CJK.findall(text)) | set(_ARABIC.findall(text))
    return facts


def _covers(answer: str, fact: str) -> bool:
    if fact.isdigit() or _NUMBER.fullmatch(fact):
        return fact in {_norm_number(n) for n in _NUMBER.findall(answer)}
    if _CJK.fullmatch(fact) or _ARABIC.fullmatch(fact):
        return fact in answer
    return re.search(rf"(?<!\w){re.escape(fact)}(?!\w)", answer.lower()) is not None


def key_facts_reply(question: str, answer: str, references: list[str]) -> str:
    """The ``rule:key-facts`` judge's reply (JSON of the match_reference contract)."""

    best: tuple[bool, list[str], str] = (False, [], "no reference given")
    for ref in references:
        facts = key_facts(ref)
        if facts:
            found = sorted(f for f in facts if _covers(answer, f))
            ok = len(found) == len(facts)
            why = f"{len(found)}/{len(facts)} key facts of the reference found"
        else:
            ref_words = set(content_words(ref))
            got = ref_words & set(content_words(answer))
            recall = len(got) / len(ref_words) if ref_words else 0.0
            ok, found = recall >= RECALL, sorted(got)
            why = f"no key facts in the reference; content-word recall {recall:.2f} (>= {RECALL})"
        if ok or not best[0] and len(found) >= len(best[1]):
            best = (ok, found, why)
        if ok:
            break
    return json.dumps(
        {"verdict": "yes" if best[0] else "no", "evidence": best[1], "explanation": best[2]},
        ensure_ascii=False,
    )


def recall_tokens(text: str) -> set[str]:
    """Tokens for ``rule:key-recall``: words (English stop words removed) and CJK bigrams."""

    text = re.sub(r"\(\d+\)", " ", text.lower())
    out = {
        w
        for w in re.findall(r"[^\W_]{2,}|\d+", text, re.U)
        if not _CJK.search(w) and w not in stop_words()
    }
    for run in re.findall(r"[\u4e00-\u9fff\u3400-\u4dbf]+", text):
        out |= {run[i : i + 2] for i in range(len(run) - 1)} if len(run) > 1 else {run}
    return out


def key_recall_reply(question: str, answer: str, references: list[str]) -> str:
    """The ``rule:key-recall`` judge's reply (JSON of the match_reference contract)."""
    got = recall_tokens(answer)
    best, best_found = 0.0, []
    for ref in references:
        toks = recall_tokens(ref)
        if toks and len(toks & got) / len(toks) >= best:
            best, best_found = len(toks & got) / len(toks), sorted(toks & got)
    return json.dumps(
        {
            "verdict": "yes" if best >= KEY_RECALL else "no",
            "evidence": best_found,
            "explanation": f"best recall of reference tokens {best:.2f} (match >= {KEY_RECALL})",
        },
        ensure_ascii=False,
    )


class JudgeCase(TypedDict):
    """What a judge sees of one result: the question, the answer and the reference answers."""

    question: str
    answer: str
    references: list[str]


#: A model judge's vote to ask for: the result row, its case and the judge.
VoteJob = tuple[dict[str, Any], JudgeCase, str]


RULE_JUDGES: dict[str, Callable[[str, str, list[str]], str]] = {
    "rule:key-facts": key_facts_reply,
    "rule:key-recall": key_recall_reply,
}


def check_panel(panel: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    """Validate a panel: an odd number (>= 1) of distinct judges with known rule names."""
    panel = tuple(panel)
    if not panel or len(panel) % 2 == 0 or len(set(panel)) != len(panel):
        raise ConfigError(f"a judge panel needs an odd number of distinct judges, got {panel}")
    for judge in panel:
        if judge.startswith("rule:") and judge not in RULE_JUDGES:
            raise ConfigError(f"unknown rule judge {judge!r}; known: {sorted(RULE_JUDGES)}")
        if ":" not in judge:
            raise ConfigError(f"judge {judge!r} must look like 'provider:model' or 'rule:name'")
    return panel


def judge_request(judge: str, question: str, answer: str, references: list[str]) -> LLMRequest:
    """The LLMRequest for a model judge (offline baselines read ``fields``)."""

    nonce = uuid.uuid5(uuid.NAMESPACE_URL, f"{question}\n{answer}").hex[:8]
    prompt = render_prompt(
        "xrag_judge",
        question=neutralise(question, nonce),
        answer=neutralise(answer, nonce),
        references="\n".join(neutralise(r, nonce) for r in references),
        nonce=nonce,
    )
    return LLMRequest(
        model=judge,
        task="match_reference",
        prompt=prompt,
        max_tokens=300,
        fields={"question": question, "answer": answer, "references": list(references)},
        purpose="xrag-judge",
        tags={"judge": judge},
    )


def vote_from_reply(judge: str, raw: str, error: str | None = None) -> dict[str, Any]:
    """One judge's vote from its reply (or its provider error).

    ``{"judge", "verdict" (yes|no|None), "status" (ok|unparsed|error), "raw"}`` plus the
    parsed ``evidence`` and ``explanation`` when there was a reply."""
    if error:
        return {"judge": judge, "verdict": None, "status": "error", "raw": error}
    parsed = parse_reply(raw, "absolute")
    return {
        "judge": judge,
        "verdict": parsed.verdict,
        "status": parsed.status,
        "raw": raw,
        "evidence": parsed.evidence,
        "explanation": parsed.explanation,
    }


def judgment_status(verdict: str | None, status: str) -> JudgmentStatus:
    """A judgment's status: ``ok`` with a verdict, else ``error`` for a failed call (``status``
    ``error``), else ``unparsed``."""
    if verdict:
        return JudgmentStatus.OK
    return JudgmentStatus.ERROR if status == JudgmentStatus.ERROR else JudgmentStatus.UNPARSED


def vote_judgment(vote: dict[str, Any], base: NewJudgment) -> NewJudgment:
    """The judgment of one judge's vote: ``base`` (what every judgment of the result shares)
    with the vote's rater, verdict, status, evidence, rationale and raw reply."""
    return replace(
        base,
        rater=f"auto:{vote['judge']}",
        verdict=vote["verdict"],
        status=judgment_status(vote["verdict"], vote["status"]),
        evidence=list(vote.get("evidence") or []),
        rationale=vote.get("explanation") or "",
        raw=vote.get("raw") or "",
    )


def rule_vote(judge: str, case: JudgeCase) -> dict[str, Any]:
    """The vote of a rule judge on a case (``question, answer, references``): no model call."""
    return vote_from_reply(
        judge, RULE_JUDGES[judge](case["question"], case["answer"], case["references"])
    )


def panel_vote(verdicts: list[str | None]) -> tuple[str | None, str]:
    """Majority of a panel's verdicts: ``(verdict or None, 'ok' | 'tie' | 'unparsed')``."""
    k = len(verdicts)
    if k == 0:
        raise ConfigError("empty panel")
    m = k // 2 + 1
    yes, no = verdicts.count("yes"), verdicts.count("no")
    if yes >= m:
        return "yes", "ok"
    if no >= m:
        return "no", "ok"
    return None, ("tie" if yes + no >= m else "unparsed")


def final_verdict(content: str | None, language_ok: bool | None) -> str | None:
    """An answer in the wrong language is wrong; otherwise the panel's content verdict."""
    return "no" if language_ok is False else content


#: The labels of a finished result the panel could not decide for want of readable votes or an
#: answer (a ``tie`` between readable votes is a decision not to decide, not a failure).
FAILED_LABELS = ("no verdict (unparsed)", "no verdict (error)")


def panel_failure_line(run_id: str, counts: dict[str, int], limit: float) -> str | None:
    """The one ``error:`` line of an evaluation whose results with no verdict for want of readable
    votes or an answer (``counts``: the labels of its finished results) pass ``limit`` (an
    experiment's ``max_failure_share`` rule); None when they do not."""
    failed = sum(counts.get(label, 0) for label in FAILED_LABELS)
    shares = {"": failure_share(sum(counts.values()), failed)}  # one panel: no name
    noun = "results with no verdict, unparsed or failed"
    return over_limit_line(f"xrag evaluation {run_id}", shares, noun, limit, "see `xrag report`")
