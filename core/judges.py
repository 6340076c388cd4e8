"""Auto-raters: AutoAIS (absolute), side by side, and NarrativeQA ground-truth raters.

A judge = kind (prompt + task + verdict set) + model + context strategy:

* ``autoais``                 - context + question + answer -> ``yes``/``no`` plus evidence quotes;
* ``side_by_side``            - context + question + two answers -> ``A``/``B``/``None`` (an
  explicit ``Equal`` is accepted too and counts as a tie);
* ``reference_absolute``      - does the answer match either NarrativeQA reference? ``yes``/``no``;
* ``reference_side_by_side``  - which answer agrees better with the references? ``A``/``B``/
  ``Equal``/``None``.

The semantic-similarity baseline is ``reference_absolute`` with model ``offline:similarity``.
Context strategies (the rater-bias study): ``none`` (parametric knowledge only), ``rag`` (BM25 with
the question plus the answer(s) as the query, passages up to ``tokens`` in book order) and ``full``.

Answers are wrapped in markers carrying a random nonce per call, and marker-like text inside an
answer (``[[``, ``]]``) is neutralised, so an answer cannot close its section or pose as
instructions. Replies are parsed by :mod:`core.verdicts` (never guessed); evidence quotes are
looked up in the source by :mod:`core.evidence` and stored as ``[{quote, verified, score, start}]``.
"""

from __future__ import annotations

import re
import secrets
from dataclasses import asdict, dataclass, replace
from typing import Any, Sequence

import sqlite_utils

from core.errors import ConfigError, ContextTooLongError
from core.evidence import verify_quotes
from core.prompts import prompt_hash, render_prompt
from core.store import dumps, rows, transaction, utcnow
from core.tournament import Comparison
from core.verdicts import parse_reply

KINDS: dict[str, dict[str, Any]] = {
    "autoais": {"task": "support", "prompt": "judge_autoais", "pairwise": False,
                "verdicts": "absolute", "criterion": "supported", "references": False},
    "side_by_side": {"task": "compare", "prompt": "judge_side_by_side", "pairwise": True,
                     "verdicts": "pairwise_equal", "criterion": "better", "references": False},
    "reference_absolute": {"task": "match_reference", "prompt": "judge_reference_absolute",
                           "pairwise": False, "verdicts": "absolute",
                           "criterion": "matches-reference", "references": True},
    "reference_side_by_side": {"task": "compare_reference",
                               "prompt": "judge_reference_side_by_side", "pairwise": True,
                               "verdicts": "pairwise_equal", "criterion": "better-vs-reference",
                               "references": True},
}
CONTEXTS = ("none", "rag", "full")
_NOTES = {
    "none": "You are not given the text: rely on what you know about the book.",
    "rag": "Passages selected from the book, in book order, are given above: base your "
           "judgement on them.",
    "full": "The full text of the book is given above: base your judgement on it.",
}


def judge_names() -> list[str]:
    """The judge kinds an experiment can name (``kind = ...`` in a ``[[judges]]`` table)."""
    return sorted(KINDS)


@dataclass(frozen=True)
class Judge:
    """An auto-rater; its rater string is ``auto:<name>``."""

    name: str
    kind: str
    model: str
    context: str = "none"
    tokens: int = 4000
    both_orders: bool = False
    fallback: str = ""
    max_tokens: int = 512
    family: str = ""
    description: str = ""

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ConfigError(f"judge {self.name!r}: unknown judge kind {self.kind!r}; "
                              f"known: {', '.join(judge_names())}")
        if self.context not in CONTEXTS:
            raise ConfigError(f"judge {self.name!r}: unknown context {self.context!r}; "
                              f"known: {', '.join(CONTEXTS)}")
        if ":" not in self.model:
            raise ConfigError(f"judge {self.name!r}: model {self.model!r} must look like "
                              "'provider:model'")
        if self.fallback not in ("", "rag"):
            raise ConfigError(f"judge {self.name!r}: fallback must be 'rag' or empty")

    @property
    def rater(self) -> str:
        """The ``judgments.rater`` string."""
        return f"auto:{self.name}"

    @property
    def spec(self) -> dict[str, Any]:
        """The kind's fixed settings (task, prompt, verdict set, ...)."""
        return KINDS[self.kind]

    @property
    def pairwise(self) -> bool:
        """True for side-by-side kinds."""
        return bool(self.spec["pairwise"])

    def params(self) -> dict[str, Any]:
        """Stored parameters."""
        data = asdict(self)
        for key in ("name", "kind", "model", "context", "family", "description"):
            data.pop(key)
        return data


def autoais(model: str, *, context: str = "rag", name: str | None = None, **kw: Any) -> Judge:
    """AutoAIS absolute rater (is the answer supported by the source?)."""
    return Judge(name or f"autoais/{context}/{model}", "autoais", model, context, **kw)


def side_by_side(model: str, *, context: str = "rag", name: str | None = None, **kw: Any) -> Judge:
    """Side-by-side rater with the book as context."""
    return Judge(name or f"sbs/{context}/{model}", "side_by_side", model, context, **kw)


def reference_absolute(model: str, *, context: str = "none", name: str | None = None,
                       **kw: Any) -> Judge:
    """Ground-truth rater: does the answer match either reference answer?"""
    return Judge(name or f"reference/{model}", "reference_absolute", model, context, **kw)


def reference_side_by_side(model: str, *, context: str = "none", name: str | None = None,
                           **kw: Any) -> Judge:
    """Ground-truth side-by-side rater with ``Equal``."""
    return Judge(name or f"reference-sbs/{model}", "reference_side_by_side", model, context, **kw)


def similarity(*, name: str = "similarity") -> Judge:
    """The semantic-similarity baseline: ``reference_absolute`` with ``offline:similarity``."""
    return reference_absolute("offline:similarity", name=name)


def make_judge(spec: dict[str, Any]) -> Judge:
    """A judge from a TOML table ``{name, kind, model, context, tokens, both_orders, ...}``."""
    spec = dict(spec)
    for key in ("name", "kind", "model"):
        if not spec.get(key):
            raise ConfigError(f"judge {spec.get('name', '?')!r}: missing {key!r}")
    unknown = set(spec) - set(Judge.__dataclass_fields__)
    if unknown:
        raise ConfigError(f"judge {spec['name']!r}: unknown settings {sorted(unknown)}")
    if spec["kind"] not in KINDS:
        raise ConfigError(f"judge {spec['name']!r}: unknown judge kind {spec['kind']!r}; "
                          f"known: {', '.join(judge_names())}")
    spec.setdefault("context", "none" if KINDS[spec["kind"]]["references"] else "rag")
    return Judge(**spec)


def register_judge(db: sqlite_utils.Database, judge: Judge) -> None:
    """Store ``judge`` in table ``judges``; a stored judge of that name must be identical."""
    found = rows(db, "select * from judges where name = ?", [judge.name])
    if found:
        old = found[0]
        if (old["kind"], old["model"], old["context"], old["params"]) != (
                judge.kind, judge.model, judge.context, judge.params()):
            raise ConfigError(f"judge {judge.name!r} is already stored with another "
                              "configuration; give the new one another name")
        return
    db["judges"].insert({"name": judge.name, "kind": judge.kind, "model": judge.model,
                         "context": judge.context, "params": dumps(judge.params()),
                         "prompt": judge.spec["prompt"], "family": judge.family,
                         "description": judge.description, "created_at": utcnow()})


# ---------------------------------------------------------------------------------------------
# Prompt safety
# ---------------------------------------------------------------------------------------------

_MARKER = re.compile(r"\[\s*\[|\]\s*\]")


def new_nonce() -> str:
    """A fresh random marker code (12 hex digits) for one call."""
    return secrets.token_hex(6)


def neutralise(text: str, nonce: str = "") -> str:
    """``text`` with marker-like strings disarmed: ``[[``/``]]`` become ``[ (``/``) ]`` and the
    call's nonce, if it appears, is masked."""
    out = _MARKER.sub(lambda m: "[ (" if m.group(0)[0] == "[" else ") ]", text or "")
    if nonce:
        out = out.replace(nonce, "#" * len(nonce))
    return out


# ---------------------------------------------------------------------------------------------
# Requests
# ---------------------------------------------------------------------------------------------

@dataclass
class JudgeItem:
    """One planned judge call and what is needed to store its judgment."""

    judge: Judge
    question: dict
    request: Any
    source: str
    context_used: str
    answer: dict | None = None
    comparison: Comparison | None = None
    answer_a: dict | None = None
    answer_b: dict | None = None


def _rater_context(db: sqlite_utils.Database, judge: Judge, doc: dict, query: str,
                   mode: str) -> str:
    from core.systems import retrieved_context

    if mode == "none":
        return ""
    if mode == "full":
        return doc["text"]
    return retrieved_context(db, doc["id"], query, judge.tokens)


def build_request(db: sqlite_utils.Database, judge: Judge, question: dict, answers: Sequence[str],
                  *, nonce: str | None = None) -> tuple[Any, str, str]:
    """The request of ``judge`` for ``question`` and one (absolute) or two (pairwise) answers
    in the order shown. Returns ``(request, source text for evidence, context used)``."""
    from core.llm import LLMRequest
    from core.systems import book_of, fits

    nonce = nonce or new_nonce()
    doc = book_of(db, question)
    refs = [str(r) for r in (question.get("answers") or [])]
    if judge.spec["references"] and not refs:
        raise ConfigError(f"judge {judge.name!r} needs reference answers; question "
                          f"{question['id']!r} has none")
    query = " ".join([question["question"], *answers])
    mode = judge.context
    context = _rater_context(db, judge, doc, query, mode)
    values: dict[str, Any] = {"title": doc.get("title") or doc["id"], "nonce": nonce,
                              "question": neutralise(question["question"], nonce)}
    fields: dict[str, Any] = {"question": question["question"], "context": context}
    if judge.pairwise:
        values["answer_a"], values["answer_b"] = (neutralise(a, nonce) for a in answers)
        fields["answer_a"], fields["answer_b"] = answers
    else:
        values["answer"] = neutralise(answers[0], nonce)
        fields["answer"] = answers[0]
    if judge.spec["references"]:
        values["references"] = "\n".join(f"- {neutralise(r, nonce)}" for r in refs)
        fields["references"] = refs

    def make(ctx: str, used: str) -> Any:
        prompt = render_prompt(judge.spec["prompt"], context_note=_NOTES[used], **values)
        return LLMRequest(model=judge.model, prompt=prompt, context=ctx, temperature=0.0,
                          max_tokens=judge.max_tokens, task=judge.spec["task"],
                          fields={**fields, "context": ctx}, purpose="judge",
                          tags={"judge": judge.name})

    request = make(context, mode)
    if not fits(request):
        if judge.fallback != "rag":
            raise ContextTooLongError(
                f"judge {judge.name!r}, question {question['id']!r}: the {mode} context does not "
                f"fit {judge.model}'s window; set fallback = \"rag\" or use context = \"rag\"")
        context = _rater_context(db, judge, doc, query, "rag")
        request, mode = make(context, "rag"), "rag-fallback"
    source = "\n".join(refs) if judge.spec["references"] else doc["text"]
    return request, source, mode


# ---------------------------------------------------------------------------------------------
# Planning (skip what is stored) and running
# ---------------------------------------------------------------------------------------------

def _done_absolute(db: sqlite_utils.Database, judge: Judge) -> set[int]:
    return {r[0] for r in db.execute(
        "select answer_id from judgments where rater = ? and kind = 'absolute' "
        "and status != 'error'", [judge.rater])}


def _done_pairwise(db: sqlite_utils.Database, judge: Judge) -> set[tuple[str, str, str]]:
    return {tuple(r) for r in db.execute(
        "select question_id, system_a, system_b from judgments where rater = ? "
        "and kind = 'pairwise' and status != 'error'", [judge.rater])}


def plan_absolute(db: sqlite_utils.Database, judge: Judge, answers: list[dict],
                  questions: dict[str, dict]) -> list[JudgeItem]:
    """Judge calls for the answers (rows of ``answers``) not yet judged by ``judge``."""
    if judge.pairwise:
        raise ConfigError(f"judge {judge.name!r} is pairwise, not absolute")
    done = _done_absolute(db, judge)
    items = []
    for ans in answers:
        if ans["id"] in done or ans["status"] == "error":
            continue
        q = questions[ans["question_id"]]
        req, source, used = build_request(db, judge, q, [ans["text"]])
        items.append(JudgeItem(judge, q, req, source, used, answer=ans))
    return items


def plan_pairwise(db: sqlite_utils.Database, judge: Judge, comparisons: list[Comparison],
                  answers: dict[tuple[str, str], dict], questions: dict[str, dict],
                  *, any_order: bool = True) -> list[JudgeItem]:
    """Judge calls for ``comparisons`` not yet judged (``any_order``: either order counts)."""
    if not judge.pairwise:
        raise ConfigError(f"judge {judge.name!r} is absolute, not pairwise")
    done = _done_pairwise(db, judge)
    items = []
    for comp in comparisons:
        keys = {(comp.question_id, comp.system_a, comp.system_b)}
        if any_order:
            keys.add((comp.question_id, comp.system_b, comp.system_a))
        if keys & done:
            continue
        a = answers.get((comp.question_id, comp.system_a))
        b = answers.get((comp.question_id, comp.system_b))
        if a is None or b is None or "error" in (a["status"], b["status"]):
            continue
        q = questions[comp.question_id]
        req, source, used = build_request(db, judge, q, [a["text"], b["text"]])
        items.append(JudgeItem(judge, q, req, source, used, comparison=comp, answer_a=a,
                               answer_b=b))
    return items


def run_items(db: sqlite_utils.Database, items: list[JudgeItem], *, run_id: str | None = None,
              progress: bool = True) -> dict[str, int]:
    """Send the planned calls, parse, verify evidence, store judgments in one transaction."""
    from core.llm import complete_many

    if not items:
        return {"judged": 0, "unparsed": 0, "errors": 0}
    for judge in {i.judge.name: i.judge for i in items}.values():
        register_judge(db, judge)
    responses = complete_many(db, [i.request for i in items], run_id=run_id, progress=progress)
    counts = {"judged": 0, "unparsed": 0, "errors": 0}
    now = utcnow()
    with transaction(db):
        for item, resp in zip(items, responses):
            row = _judgment_row(db, item, resp, run_id, now)
            counts["errors" if row["status"] == "error" else
                   "unparsed" if row["status"] == "unparsed" else "judged"] += 1
            db["judgments"].insert(row)
    return counts


def _judgment_row(db: sqlite_utils.Database, item: JudgeItem, resp: Any, run_id: str | None,
                  now: str) -> dict[str, Any]:
    judge = item.judge
    base = {"question_id": item.question["id"], "rater": judge.rater, "rater_kind": "auto",
            "criterion": judge.spec["criterion"], "prompt_hash": prompt_hash(judge.spec["prompt"]),
            "context_kind": item.context_used, "run_id": run_id, "created_at": now}
    if judge.pairwise:
        comp = item.comparison
        assert comp is not None and item.answer_a and item.answer_b
        base.update(kind="pairwise", system_a=comp.system_a, system_b=comp.system_b,
                    answer_a_id=item.answer_a["id"], answer_b_id=item.answer_b["id"],
                    order_shown=comp.order_shown)
        where = ("question_id = ? and system_a = ? and system_b = ?",
                 [comp.question_id, comp.system_a, comp.system_b])
    else:
        assert item.answer is not None
        base.update(kind="absolute", system=item.answer["system"], answer_id=item.answer["id"])
        where = ("answer_id = ?", [item.answer["id"]])
    prev = db.execute(f"select max(id) from judgments where rater = ? and status = 'error' and "
                      f"{where[0]}", [judge.rater, *where[1]]).fetchone()[0]
    base["supersedes"] = prev
    if resp.error is not None:
        return {**base, "verdict": None, "status": "error", "raw": resp.error}
    parsed = parse_reply(resp.text, judge.spec["verdicts"])
    evidence = verify_quotes(parsed.evidence, item.source) if parsed.status == "ok" else []
    return {**base, "verdict": parsed.verdict, "status": parsed.status, "raw": resp.text,
            "rationale": parsed.explanation[:4000], "evidence": dumps(evidence)}


# ---------------------------------------------------------------------------------------------
# Per-rater diagnostics
# ---------------------------------------------------------------------------------------------

def position_consistency(db: sqlite_utils.Database, rater: str,
                         question_ids: Sequence[str] | None = None,
                         systems: Sequence[str] | None = None) -> dict[str, Any]:
    """Items judged in both orders: how many gave inconsistent verdicts.

    A pair is inconsistent when the canonical verdicts (winner name, ``Equal``, ``None``) of the
    two orders differ; pairs with an unparsed side are left out.
    """
    items: dict[tuple[str, tuple[str, str]], dict[str, str]] = {}
    for r in _latest(db, rater, "pairwise", question_ids, systems):
        if r["status"] != "ok":
            continue
        comp = Comparison(r["question_id"], r["system_a"], r["system_b"], r["order_shown"])
        winner = r["system_a"] if r["verdict"] == "A" else (
            r["system_b"] if r["verdict"] == "B" else r["verdict"])
        items.setdefault((comp.question_id, comp.pair), {})[r["order_shown"]] = winner
    both = [v for v in items.values() if len(v) == 2]
    bad = sum(1 for v in both if v["ab"] != v["ba"])
    return {"n_pairs": len(both), "n_inconsistent": bad,
            "share_inconsistent": round(bad / len(both), 4) if both else None}


def _latest(db: sqlite_utils.Database, rater: str, kind: str,
            question_ids: Sequence[str] | None = None,
            systems: Sequence[str] | None = None) -> list[dict]:
    """A rater's judgments of ``kind`` that no later row supersedes (optionally only on
    ``question_ids`` and on answers of ``systems``: a rater shared by two experiments)."""
    sql = ("select * from judgments j where rater = ? and kind = ? and not exists "
           "(select 1 from judgments s where s.supersedes = j.id)")
    found = rows(db, sql, [rater, kind])
    if question_ids is not None:
        keep = set(question_ids)
        found = [r for r in found if r["question_id"] in keep]
    if systems is not None:
        names = set(systems)
        found = [r for r in found if (r["system"] in names if kind == "absolute" else
                                      r["system_a"] in names and r["system_b"] in names)]
    return found


def rater_diagnostics(db: sqlite_utils.Database, rater: str,
                      question_ids: Sequence[str] | None = None,
                      systems: Sequence[str] | None = None) -> dict[str, Any]:
    """Counts (ok / unparsed / error), share of verified evidence quotes, items flagged."""
    from core.evidence import verified_share

    found = [r for k in ("absolute", "pairwise")
             for r in _latest(db, rater, k, question_ids, systems)]
    status = {s: sum(1 for r in found if r["status"] == s) for s in ("ok", "unparsed", "error")}
    ev = [r["evidence"] if isinstance(r["evidence"], list) else [] for r in found]
    flagged = sum(1 for e in ev if any(not q.get("verified") for q in e))
    return {"rater": rater, "n": len(found), **status, "evidence": verified_share(ev),
            "items_with_unverified_quote": flagged}


def with_context(judge: Judge, context: str) -> Judge:
    """A copy of ``judge`` reading another context (for the rater-bias study)."""
    return replace(judge, context=context, name=f"{judge.name}@{context}")
