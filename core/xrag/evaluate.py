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
from typing import Any

import sqlite_utils

from core.errors import ConfigError, InputError
from core.llm.engine import complete_many
from core.llm.prompts import render_prompt
from core.llm.types import LLMRequest
from core.store.connection import dumps, rows, transaction, utcnow
from core.store.runs import finish_run, start_run
from core.xrag.articles import version_of
from core.xrag.distractors import distractors
from core.xrag.judges import (
    DEFAULT_PANEL,
    check_panel,
    final_verdict,
    judge_all,
    panel_vote,
)
from core.xrag.language import language_matches
from core.xrag.model_calls import TARGET_LANGUAGES, language_name
from core.xrag.translate import english_items, translations_of

SETTINGS = ("english", "monolingual", "multilingual", "none", "oracle")
CRITERION = "xrag-key-info"
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


def _version(db: sqlite_utils.Database, english_id: str, lang: str) -> str:
    vid = version_of(db, english_id, lang)
    if vid is None:
        raise InputError(
            f"article {english_id!r} has no {lang!r} version; import one "
            "(translation_of) or leave this setting out"
        )
    return vid


def context_documents(
    db: sqlite_utils.Database, item: dict[str, Any], setting: str, lang: str
) -> list[str]:
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


def question_in(
    db: sqlite_utils.Database, item: dict[str, Any], lang: str
) -> dict[str, Any] | None:
    """The item's question row in ``lang`` (None when no usable translation exists)."""
    if lang == "en":
        return item
    t = translations_of(db, item["id"]).get(lang)
    return t if t and t["status"] not in ("discarded", "rejected") else None


def _context_text(docs: list[dict[str, Any]]) -> str:
    return "\n\n".join(f"Article {k}: {d['title']}\n{d['text']}" for k, d in enumerate(docs, 1))


def plan(
    db: sqlite_utils.Database,
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
    db: sqlite_utils.Database,
    model: str,
    *,
    settings: tuple[str, ...] = SETTINGS,
    languages: tuple[str, ...] = TARGET_LANGUAGES,
    controlled: bool = True,
    panel: tuple[str, ...] = DEFAULT_PANEL,
    progress: bool = False,
) -> dict[str, Any]:
    """Answer every case with ``model``, judge it with the panel, store results and judgments.

    Resumable: a (question, setting, model, panel) already answered in ``xrag_results`` is
    skipped; one whose answer failed (provider error) is asked again and its error row replaced
    (the error judgments stay in the append-only ``judgments``). Returns counts and the run id.
    """

    panel = check_panel(panel)
    for s in settings:
        if s not in SETTINGS:
            raise ConfigError(f"unknown setting {s!r}; use {', '.join(SETTINGS)}")
    for lang in languages:
        language_name(lang)
    panel_key = ",".join(panel)
    done = {
        (r[0], r[1])
        for r in db.execute(
            "select question_id, setting from xrag_results where model = ? and judge_panel = ? "
            "and answer_status = 'ok'",
            [model, panel_key],
        )
    }
    cases = [
        c
        for c in plan(db, settings, languages, controlled)
        if (c["question"]["id"], c["setting"]) not in done
    ]
    if not cases:
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
    docs = {
        r["id"]: r for r in rows(db, "select id, title, text from documents where kind = 'article'")
    }
    reqs = []
    for c in cases:
        shown = [docs[d] for d in c["documents"]]
        note = (
            f"The {len(shown)} news articles above were retrieved for this question."
            if shown
            else "No articles were retrieved for this question."
        )
        reqs.append(
            LLMRequest(
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
        )
    answers = complete_many(db, reqs, run_id=run_id, progress=progress)
    judged = [
        {
            "question": c["question"]["question"],
            "answer": a.text or "",
            "references": _references(c),
        }
        for c, a in zip(cases, answers)
    ]
    votes = judge_all(db, judged, panel, run_id=run_id, progress=progress)
    stats: Counter = Counter()
    with transaction(db):
        for c, a, v in zip(cases, answers, votes):
            stats[_store(db, c, a, v, model, panel_key, run_id)] += 1
        finish_run(db, run_id, "done", None)
    return {"run_id": run_id, "cases": len(cases), "skipped": len(done), **stats}


def _references(case: dict[str, Any]) -> list[str]:
    """The reference answer in the question's language, then the English one."""
    refs = list(case["question"]["answers"])
    for r in case["item"]["answers"]:
        if r not in refs:
            refs.append(r)
    return refs


def _store(
    db: sqlite_utils.Database,
    case: dict[str, Any],
    answer: Any,
    votes: list[dict],
    model: str,
    panel_key: str,
    run_id: str,
) -> str:
    """Write one result row and its judgments; return the verdict label for the counts."""
    q, now = case["question"], utcnow()
    text = answer.text or ""
    detected, lang_ok = language_matches(text, case["language"]) if text else (None, None)
    content, status = panel_vote([v["verdict"] for v in votes])
    verdict = final_verdict(content, lang_ok) if answer.error is None else None
    if answer.error is not None:
        status = "error"
    system = f"{model}@{case['setting']}"
    db.execute(
        "delete from xrag_results where question_id = ? and setting = ? and model = ? "
        "and judge_panel = ? and answer_status = 'error'",
        [q["id"], case["setting"], model, panel_key],
    )
    db["xrag_results"].insert(
        {
            "question_id": q["id"],
            "item_id": case["item"]["id"],
            "language": case["language"],
            "setting": case["setting"],
            "model": model,
            "qtype": case["item"]["qtype"],
            "documents": dumps(case["documents"]),
            "answer": text,
            "answer_status": "ok" if answer.error is None else "error",
            "response_language": detected,
            "language_ok": None if lang_ok is None else int(lang_ok),
            "votes": dumps([{k: v.get(k) for k in ("judge", "verdict", "status")} for v in votes]),
            "content_verdict": content,
            "panel_status": status,
            "verdict": verdict,
            "judge_panel": panel_key,
            "run_id": run_id,
            "created_at": now,
        }
    )
    base = {
        "kind": "absolute",
        "question_id": q["id"],
        "rater_kind": "auto",
        "criterion": CRITERION,
        "system": system,
        "context_kind": case["setting"],
        "run_id": run_id,
        "created_at": now,
    }
    db["judgments"].insert_all(
        [
            {
                **base,
                "rater": f"auto:{v['judge']}",
                "verdict": v["verdict"],
                "status": "ok"
                if v["verdict"]
                else ("error" if v["status"] == "error" else "unparsed"),
                "evidence": dumps(v.get("evidence") or []),
                "rationale": v.get("explanation") or "",
                "raw": v.get("raw") or "",
            }
            for v in votes
        ]
        + [
            {
                **base,
                "rater": PANEL_RATER,
                "verdict": verdict,
                "evidence": "[]",
                "raw": "",
                "status": "ok" if verdict else ("error" if status == "error" else "unparsed"),
                "rationale": f"panel {status}; content {content}; response language {detected} "
                f"(expected {case['language']})",
            }
        ]
    )
    return {"yes": "correct", "no": "wrong"}.get(verdict or "", f"no verdict ({status})")
