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
instructions. Replies are parsed by :mod:`core.judging.verdicts` (never guessed); evidence quotes are
looked up in the source by :mod:`core.corpus.evidence` and stored as ``[{quote, verified, score, start}]``.

This module plans and runs judge calls and stores their judgments. The judge setups live in
:mod:`core.judging.specs`, the prompts in :mod:`core.judging.requests` and the per-rater diagnostics in
:mod:`core.judging.diagnostics`; their public names are re-exported here.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from core.llm.types import LLMResponse
    from core.store.engine import Database

from core.corpus.evidence import verify_quotes
from core.errors import ConfigError
from core.judging.diagnostics import position_consistency, rater_diagnostics
from core.judging.requests import JudgeItem, build_request
from core.judging.specs import (
    CONTEXTS,
    KINDS,
    Judge,
    autoais,
    judge_names,
    make_judge,
    reference_absolute,
    reference_side_by_side,
    register_judge,
    side_by_side,
    similarity,
    with_context,
)
from core.judging.tournament import Comparison
from core.judging.verdicts import parse_reply
from core.llm.prompts import prompt_hash
from core.llm.stage import run_stage
from core.store.answers import Answer, AnswerStatus
from core.store.connection import utcnow
from core.store.judge_runs import judged_answer_ids, judged_pairs, last_error_id
from core.store.judgments import (
    JudgmentKind,
    JudgmentStatus,
    NewJudgment,
    RaterKind,
    insert_judgment,
)
from core.store.questions import Question

__all__ = [
    "CONTEXTS",
    "KINDS",
    "Judge",
    "JudgeItem",
    "autoais",
    "build_request",
    "judge_names",
    "make_judge",
    "plan_absolute",
    "plan_pairwise",
    "position_consistency",
    "rater_diagnostics",
    "reference_absolute",
    "reference_side_by_side",
    "register_judge",
    "run_items",
    "side_by_side",
    "similarity",
    "with_context",
]


def plan_absolute(
    db: Database,
    judge: Judge,
    answers: list[Answer],
    questions: dict[str, Question],
) -> list[JudgeItem]:
    """Judge calls for the answers (rows of ``answers``) not yet judged by ``judge``."""
    if judge.pairwise:
        raise ConfigError(f"judge {judge.name!r} is pairwise, not absolute")
    done = judged_answer_ids(db, judge.rater)
    items = []
    for ans in answers:
        if ans.id in done or ans.status == AnswerStatus.ERROR:
            continue
        q = questions[ans.question_id]
        req, source, used = build_request(db, judge, q, [ans.text])
        items.append(JudgeItem(judge, q, req, source, used, answer=ans))
    return items


def plan_pairwise(
    db: Database,
    judge: Judge,
    comparisons: list[Comparison],
    answers: dict[tuple[str, str], Answer],
    questions: dict[str, Question],
    *,
    any_order: bool = True,
) -> list[JudgeItem]:
    """Judge calls for ``comparisons`` not yet judged (``any_order``: either order counts)."""
    if not judge.pairwise:
        raise ConfigError(f"judge {judge.name!r} is absolute, not pairwise")
    done = judged_pairs(db, judge.rater)
    items = []
    for comp in comparisons:
        keys = {(comp.question_id, comp.system_a, comp.system_b)}
        if any_order:
            keys.add((comp.question_id, comp.system_b, comp.system_a))
        if keys & done:
            continue
        a = answers.get((comp.question_id, comp.system_a))
        b = answers.get((comp.question_id, comp.system_b))
        if a is None or b is None or AnswerStatus.ERROR in (a.status, b.status):
            continue
        q = questions[comp.question_id]
        req, source, used = build_request(db, judge, q, [a.text, b.text])
        items.append(
            JudgeItem(judge, q, req, source, used, comparison=comp, answer_a=a, answer_b=b)
        )
    return items


def run_items(
    db: Database,
    items: list[JudgeItem],
    *,
    run_id: str | None = None,
    progress: bool = True,
) -> dict[str, int]:
    """Send the planned calls (no transaction open) and store each judgment in its own short
    transaction as its reply arrives (:func:`core.llm.stage.run_stage`): parse, verify evidence.
    """

    counts = {"judged": 0, "unparsed": 0, "errors": 0}
    if not items:
        return counts
    for judge in {i.judge.name: i.judge for i in items}.values():
        register_judge(db, judge)
    now = utcnow()

    def store(db: Database, item: JudgeItem, resp: LLMResponse) -> str:
        new = _new_judgment(db, item, resp, run_id, now)
        insert_judgment(db, new)
        return {"error": "errors", "unparsed": "unparsed"}.get(new.status, "judged")

    tally = run_stage(db, [(i, i.request) for i in items], store, run_id=run_id, progress=progress)
    return {**counts, **tally}


def _new_judgment(
    db: Database, item: JudgeItem, resp: LLMResponse, run_id: str | None, now: str
) -> NewJudgment:
    judge, qid = item.judge, item.question.id
    if judge.pairwise:
        comp = item.comparison
        assert comp is not None and item.answer_a and item.answer_b
        base = NewJudgment(
            kind=JudgmentKind.PAIRWISE,
            question_id=qid,
            rater=judge.rater,
            rater_kind=RaterKind.AUTO,
            system_a=comp.system_a,
            system_b=comp.system_b,
            answer_a_id=item.answer_a.id,
            answer_b_id=item.answer_b.id,
            order_shown=comp.order_shown,
            supersedes=last_error_id(
                db, judge.rater, pair=(comp.question_id, comp.system_a, comp.system_b)
            ),
            created_at=now,
        )
    else:
        assert item.answer is not None
        base = NewJudgment(
            kind=JudgmentKind.ABSOLUTE,
            question_id=qid,
            rater=judge.rater,
            rater_kind=RaterKind.AUTO,
            system=item.answer.system,
            answer_id=item.answer.id,
            supersedes=last_error_id(db, judge.rater, answer_id=item.answer.id),
            created_at=now,
        )
    base = replace(
        base,
        criterion=judge.spec.criterion,
        prompt_hash=prompt_hash(judge.spec.prompt),
        context_kind=item.context_used,
        run_id=run_id,
    )
    if resp.error is not None:
        return replace(base, status=JudgmentStatus.ERROR, raw=resp.error)
    parsed = parse_reply(resp.text, judge.spec.verdicts)
    evidence = (
        verify_quotes(parsed.evidence, item.source) if parsed.status == JudgmentStatus.OK else []
    )
    return replace(
        base,
        verdict=parsed.verdict,
        status=JudgmentStatus(parsed.status),
        raw=resp.text,
        rationale=parsed.explanation[:4000],
        # QuoteCheck TypedDicts are the plain dicts the judgment stores as JSON
        evidence=cast("list[dict[str, Any]]", evidence),
    )
