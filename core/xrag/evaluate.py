"""XRAG evaluation: the retrieval settings, answering, the judge panel and the language check.

Every item is the English question of a pair (A, B) with six English distractors D1..D6. The
context of a setting is a set of articles shown in one order per item (a seeded shuffle of the
item's eight English ids, versions replacing English articles in place), so settings differ only
in language:

* ``english``      question en, A, B, D1..D6 all English (the English baseline);
* ``monolingual``  question in X, all eight documents English;
* ``multilingual`` question in X, A English, B in X, D1..D3 English, three X distractors;
* ``none``         question in X (or en), no documents (the no-retrieval check);
* ``oracle``       question in X (or en), only A and B, in English;
* ``controlled:<q>-<s>-<d>``  question in language q, supporting articles in s, distractors in
  d (each X or en), for the controlled analysis (the tables are in :mod:`core.views.xrag`).
"""

from __future__ import annotations

import random
import uuid
from collections import Counter
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from core.errors import ConfigError, InputError
from core.llm.prompts import render_prompt
from core.llm.stage import run_stage
from core.llm.types import LLMRequest, LLMResponse
from core.store.answers import AnswerStatus
from core.store.connection import transaction, utcnow
from core.store.documents import Document, documents_of_kind
from core.store.judgments import JudgmentKind, NewJudgment, RaterKind, insert_judgment
from core.store.questions import Question, QuestionStatus, questions_by_id
from core.store.runs import RunStatus, finish_run, start_run
from core.store.xrag_results import (
    XRAG_CRITERION,
    add_vote,
    answered_cases,
    finish_result,
    insert_answer,
    pending_results,
)
from core.xrag.articles import version_of
from core.xrag.distractors import distractors
from core.xrag.judges import (
    DEFAULT_PANEL,
    RULE_JUDGES,
    check_panel,
    final_verdict,
    judge_request,
    judgment_status,
    panel_failure_line,
    panel_vote,
    rule_vote,
    vote_from_reply,
    vote_judgment,
)
from core.xrag.language import language_matches
from core.xrag.model_calls import TARGET_LANGUAGES, language_name
from core.xrag.translate import english_items, translations_of

if TYPE_CHECKING:
    from core.store.engine import Database
    from core.xrag.judges import JudgeCase, VoteJob

SETTINGS = ("english", "monolingual", "multilingual", "none", "oracle")
#: :data:`core.store.xrag_results.XRAG_CRITERION` (one definition, in the store).
CRITERION = XRAG_CRITERION
PANEL_RATER = "auto:xrag-panel"


def controlled_configs(lang: str) -> list[tuple[str, str, str]]:
    """The (question, supporting, distractor) languages of the controlled analysis for ``lang``.

    Forward: X-X-X -> en-X-X -> en-en-X -> en-en-en; reverse: X-X-X -> X-X-en -> X-en-en ->
    en-en-en.
    """
    x, e = lang, "en"
    return [(x, x, x), (e, x, x), (e, e, x), (e, e, e), (x, x, e), (x, e, e)]


def setting_languages(setting: str, languages: tuple[str, ...]) -> list[str]:
    """Question languages a setting is run for."""
    if setting == "english":
        return ["en"]
    if setting in ("monolingual", "multilingual"):
        return list(languages)
    return ["en", *languages]


def _order(item_id: str, ids: list[str]) -> list[str]:
    """A shuffle of ``ids`` seeded by the item (the same for every setting of the item)."""
    seed = uuid.uuid5(uuid.NAMESPACE_URL, item_id).int % (2**32)
    out = sorted(ids)
    random.Random(seed).shuffle(out)
    return out


def _version(db: Database, english_id: str, lang: str) -> str:
    vid = version_of(db, english_id, lang)
    if vid is None:
        raise InputError(
            f"article {english_id!r} has no {lang!r} version; import one "
            "(translation_of) or leave this setting out"
        )
    return vid


def context_documents(db: Database, item: dict[str, Any], setting: str, lang: str) -> list[str]:
    """Document ids shown for ``item`` in ``setting`` with question language ``lang``."""
    a, b = item["metadata"]["articles"]
    dis = [d["document_id"] for d in distractors(db, item["pair_id"], "en")]
    if setting == "none":
        return []
    if setting == "oracle":
        return _order(item["id"], [a, b])
    if len(dis) < 6 and setting != "oracle":
        raise InputError(f"pair {item['pair_id']} has no distractors; run `xrag distractors`")
    order = _order(item["id"], [a, b, *dis])
    if setting in ("english", "monolingual"):
        return order
    if setting == "multilingual":
        x_dis = [d["document_id"] for d in distractors(db, item["pair_id"], lang)]
        swap = {b: _version(db, b, lang)}
        swap.update(dict(zip(dis[3:], x_dis)))
        return [swap.get(d, d) for d in order]
    if setting.startswith("controlled:"):
        _, s_lang, d_lang = setting.split(":", 1)[1].split("-")
        return [_version(db, d, s_lang if d in (a, b) else d_lang) for d in order]
    raise ConfigError(f"unknown setting {setting!r}; use {', '.join(SETTINGS)} or controlled")


def question_in(db: Database, item: dict[str, Any], lang: str) -> dict[str, Any] | None:
    """The item's question row in ``lang`` (None when no usable translation exists)."""
    if lang == "en":
        return item
    t = translations_of(db, item["id"]).get(lang)
    if t is None or t.status in (QuestionStatus.DISCARDED, QuestionStatus.REJECTED):
        return None
    return t.as_dict()


def _context_text(docs: list[Document]) -> str:
    return "\n\n".join(f"Article {k}: {d.title}\n{d.text}" for k, d in enumerate(docs, 1))


def plan(
    db: Database,
    settings: tuple[str, ...],
    languages: tuple[str, ...],
    controlled: bool,
) -> list[dict[str, Any]]:
    """Every (question, setting) case to answer: question row, item, setting, documents."""
    cases = []
    for item in english_items(db):
        jobs = [(s, lang) for s in settings for lang in setting_languages(s, languages)]
        if controlled:
            for lang in languages:
                jobs += [
                    (f"controlled:{q}-{s}-{d}", q)
                    for q, s, d in controlled_configs(lang)
                    if (q, s, d) != ("en", "en", "en")
                ]
        for setting, lang in jobs:
            q = question_in(db, item, lang)
            if q is None:
                continue
            cases.append(
                {
                    "question": q,
                    "item": item,
                    "setting": setting,
                    "language": lang,
                    "documents": context_documents(db, item, setting, lang),
                }
            )
    return cases


def evaluate(
    db: Database,
    model: str,
    *,
    settings: tuple[str, ...] = SETTINGS,
    languages: tuple[str, ...] = TARGET_LANGUAGES,
    controlled: bool = True,
    panel: tuple[str, ...] = DEFAULT_PANEL,
    progress: bool = False,
    max_failure_share: float = 0.2,
) -> dict[str, Any]:
    """Answer every case with ``model``, judge it with the panel, store results and judgments.

    Two LLM stages (:func:`core.llm.stage.run_stage`): each answer is stored as its reply
    arrives (a result with ``panel_status = 'pending'``), then each model judge's vote; a result
    is finished (votes, verdict, judgments) once its panel has voted. Resumable: a (question,
    setting, model, panel) already answered in ``xrag_results`` is not asked again, a pending
    result gets only its missing votes, and one whose answer failed (provider error) is asked
    again and its error row replaced (the error judgments stay in the append-only ``judgments``).
    Returns counts and the run id; the run is ``failed``, with a ``failure_summary``, past
    ``max_failure_share`` (:func:`core.xrag.judges.panel_failure_line`).
    """
    panel = check_panel(panel)
    if bad := [s for s in settings if s not in SETTINGS]:
        raise ConfigError(f"unknown setting {bad[0]!r}; use {', '.join(SETTINGS)}")
    for lang in languages:
        language_name(lang)
    panel_key = ",".join(panel)
    done = answered_cases(db, model, panel_key)
    cases = [
        c
        for c in plan(db, settings, languages, controlled)
        if (c["question"]["id"], c["setting"]) not in done
    ]
    if not cases and not pending_results(db, model, panel_key):
        return {"run_id": None, "cases": 0, "skipped": len(done)}
    run_id = f"xrag-eval-{uuid.uuid4().hex[:12]}"
    start_run(
        db,
        "xrag-eval",
        model,
        {
            "model": model,
            "settings": list(settings),
            "languages": list(languages),
            "controlled": controlled,
            "panel": list(panel),
        },
        run_id=run_id,
    )
    try:
        _answer(db, model, cases, panel_key, run_id, progress)
        stats = _judge(db, model, panel, run_id, progress)
    except BaseException:
        finish_run(db, run_id, RunStatus.FAILED, None)
        raise
    line = panel_failure_line(run_id, stats, max_failure_share)
    finish_run(db, run_id, RunStatus.FAILED if line else RunStatus.DONE, None)
    out = {"run_id": run_id, "cases": len(cases), "skipped": len(done), **stats}
    return out | ({"failure_summary": line} if line else {})


def _answer(
    db: Database,
    model: str,
    cases: list[dict[str, Any]],
    panel_key: str,
    run_id: str,
    progress: bool,
) -> None:
    """Answer every case (an LLM stage): each answer is stored, in planned order, as a result
    awaiting its panel (``panel_status = 'pending'``) as its reply arrives."""
    docs = {d.id: d for d in documents_of_kind(db, "article")}
    planned = []
    for c in cases:
        shown = [docs[d] for d in c["documents"]]
        note = (
            f"The {len(shown)} news articles above were retrieved for this question."
            if shown
            else "No articles were retrieved for this question."
        )
        request = LLMRequest(
            model=model,
            task="answer",
            context=_context_text(shown),
            max_tokens=300,
            prompt=render_prompt(
                "xrag_answer",
                question=c["question"]["question"],
                language_name=language_name(c["language"]),
                documents_note=note,
            ),
            fields={
                "question": c["question"]["question"],
                "context": _context_text(shown),
                "title": "",
            },
            purpose="xrag-answer",
            tags={"setting": c["setting"]},
        )
        planned.append((c, request))

    def store(db: Database, case: dict[str, Any], answer: LLMResponse) -> None:
        text = answer.text or ""
        detected, lang_ok = language_matches(text, case["language"]) if text else (None, None)
        insert_answer(
            db,
            {
                "question_id": case["question"]["id"],
                "item_id": case["item"]["id"],
                "language": case["language"],
                "setting": case["setting"],
                "model": model,
                "qtype": case["item"]["qtype"],
                "documents": case["documents"],
                "answer": text,
                "answer_status": "ok" if answer.error is None else "error",
                "response_language": detected,
                "language_ok": None if lang_ok is None else int(lang_ok),
                "judge_panel": panel_key,
                "run_id": run_id,
                "created_at": utcnow(),
            },
        )

    run_stage(db, planned, store, run_id=run_id, progress=progress, ordered=True)


def _references(question: Question, item: Question) -> list[str]:
    """The reference answer in the question's language, then the English one."""
    refs = list(question.answers)
    return refs + [r for r in dict.fromkeys(item.answers) if r not in refs]


def _judge(
    db: Database, model: str, panel: tuple[str, ...], run_id: str, progress: bool
) -> Counter[str]:
    """Have the panel judge every pending result of ``model`` (an LLM stage for the model
    judges: each vote is stored as its reply arrives; rule judges vote when the result is
    finished). A result whose model judges have all voted is finished in its own transaction:
    votes, verdicts and judgments. Returns the verdict labels counted."""
    waiting = pending_results(db, model, ",".join(panel))
    qs = questions_by_id(db, sorted({r[k] for r in waiting for k in ("question_id", "item_id")}))
    model_judges = {j for j in panel if j not in RULE_JUDGES}
    stats: Counter[str] = Counter()
    planned = []
    for r in waiting:
        q = qs[r["question_id"]]
        case: JudgeCase = {
            "question": q.question,
            "answer": r["answer"],
            "references": _references(q, qs[r["item_id"]]),
        }
        voted = {v["judge"] for v in r["votes"]}
        if model_judges <= voted:
            with transaction(db):
                stats[_finish(db, r, case, r["votes"], panel, run_id)] += 1
        for judge in sorted(model_judges - voted, key=panel.index):
            request = judge_request(judge, case["question"], case["answer"], case["references"])
            planned.append(((r, case, judge), request))

    def store(db: Database, job: VoteJob, resp: LLMResponse) -> str | None:
        r, case, judge = job
        votes = add_vote(db, r["id"], vote_from_reply(judge, resp.text, resp.error))
        if model_judges <= {v["judge"] for v in votes}:
            return _finish(db, r, case, votes, panel, run_id)
        return None

    run_stage(db, planned, store, run_id=run_id, progress=progress, counts=stats)
    return stats


def _finish(
    db: Database,
    result: dict[str, Any],
    case: JudgeCase,
    model_votes: list[dict[str, Any]],
    panel: tuple[str, ...],
    run_id: str,
) -> str:
    """Write a result's panel outcome and its judgments; return the verdict label."""
    by_judge = {v["judge"]: v for v in model_votes}
    votes = [rule_vote(j, case) if j in RULE_JUDGES else by_judge[j] for j in panel]
    content, status = panel_vote([v["verdict"] for v in votes])
    lang_ok = None if result["language_ok"] is None else bool(result["language_ok"])
    failed = result["answer_status"] == AnswerStatus.ERROR
    verdict = None if failed else final_verdict(content, lang_ok)
    status = "error" if failed else status
    finish_result(
        db,
        result["id"],
        {
            "votes": [{k: v.get(k) for k in ("judge", "verdict", "status")} for v in votes],
            "content_verdict": content,
            "panel_status": status,
            "verdict": verdict,
        },
    )
    base = NewJudgment(
        kind=JudgmentKind.ABSOLUTE,
        question_id=result["question_id"],
        rater=PANEL_RATER,
        rater_kind=RaterKind.AUTO,
        criterion=CRITERION,
        system=f"{result['model']}@{result['setting']}",
        context_kind=result["setting"],
        run_id=run_id,
    )
    for v in votes:
        insert_judgment(db, vote_judgment(v, base))
    insert_judgment(
        db,
        replace(
            base,
            verdict=verdict,
            status=judgment_status(verdict, status),
            rationale=f"panel {status}; content {content}; response language "
            f"{result['response_language']} (expected {result['language']})",
        ),
    )
    return {"yes": "correct", "no": "wrong"}.get(verdict or "", f"no verdict ({status})")
