"""The EXAM Q/A system: answer every exam question from each article alone, and verify it.

Verification (one rule per run for free-text questions; multiple choice is always by key):

* ``answer_key`` - multiple choice: correct iff the chosen key equals ``correctKey``.
* ``self_rating`` - free text: the Q/A system rates 0-5 how well the article answers the
  question; answered iff ``rating >= threshold`` (4 by default, as in EXAM++ / "Pencils Down!").
* ``ground_truth`` - free text with reference answers: a rater compares the answer with the
  references; answered iff it says yes (``rater_model``, task ``match_reference``) or, with the
  lexical rater, iff the SQuAD token F1 against the best reference is ``>= threshold`` (0.5).

Q/A models: ``offline`` uses the named baselines - ``offline:mc-bm25`` for multiple choice,
``offline:extractive`` (through :mod:`core.llm`) for the free-text answer and
``offline:lexical-answerability`` for the 0-5 grade (see :mod:`core.exam.lexical`). Any other
model id answers through :mod:`core.llm` with the ``exam_answer``, ``exam_answer_mc`` and
``exam_answerability`` prompts; an unparsable reply is stored with ``status='unparsed'`` and
``correct`` NULL (counted, never guessed).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import sqlite_utils

from core.corpus.sentences import best_token_f1
from core.errors import ConfigError, InputError
from core.exam.bank import bank_questions
from core.exam.lexical import choose_answer, index_article, lexical_answerability
from core.exam.replies import parse_choice, parse_rating
from core.judging.verdicts import parse_reply
from core.llm.engine import complete_many
from core.llm.prompts import prompt_hash, render_prompt
from core.llm.types import LLMRequest
from core.store.connection import dumps, rows, transaction, utcnow
from core.store.runs import finish_run, start_run

VERIFICATIONS = ("self_rating", "ground_truth")
DEFAULT_THRESHOLD = {"self_rating": 4.0, "ground_truth": 0.5}
OFFLINE = "offline"
OFFLINE_ANSWERER = "offline:extractive"


@dataclass
class Grade:
    """One graded (article, question) pair, as stored in ``exam_grades``."""

    article_id: int
    question_id: str
    answer: str = ""
    self_rating: int | None = None
    score: float | None = None
    correct: int | None = None
    status: str = "ok"
    raw: str = ""
    prompt_hash: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


def _offline_grades(
    db: sqlite_utils.Database,
    pairs: list[tuple[dict, dict]],
    verification: str,
    threshold: float,
    run_id: str,
) -> list[Grade]:
    """Grade with the offline baselines (free-text answers from ``offline:extractive``)."""
    grades: list[Grade] = []
    free = [(a, q) for a, q in pairs if not q["choices"]]
    answers = _answers(db, free, OFFLINE_ANSWERER, run_id) if free else {}
    indexes: dict[tuple[int, int], Any] = {}

    def index(article: dict, sentences: int) -> Any:
        key = (article["id"], sentences)
        if key not in indexes:
            indexes[key] = index_article(article["text"], sentences)
        return indexes[key]

    for article, q in pairs:
        g = Grade(article_id=article["id"], question_id=q["id"])
        if q["choices"]:
            d = choose_answer(index(article, 1), q["question"], q["choices"])
            g.answer, g.score = d.key or "", d.margin
            g.status = "ok" if d.key else "abstained"
            g.correct = int(d.key is not None and d.key == q["correct_key"])
        else:
            g.answer, g.status = answers[(article["id"], q["id"])]
            if verification == "self_rating":
                g.self_rating, g.score = lexical_answerability(index(article, 3), q["question"])
                g.correct = int(g.self_rating >= threshold)
            else:
                _ground_truth_lexical(g, q, threshold)
        grades.append(g)
    return grades


def _references(q: dict) -> list[str]:
    """Reference answers of a free-text exam question (derived answers, CAR ``correct``)."""
    return [r for r in (q["answers"] or []) + ([q["correct"]] if q["correct"] else []) if r]


def _ground_truth_lexical(g: Grade, q: dict, threshold: float) -> None:
    refs = _references(q)
    if not refs:
        g.status, g.correct = "error", None
        g.raw = "no reference answer for the ground-truth rater"
        return
    g.score = best_token_f1(g.answer, refs)
    g.correct = int(g.score >= threshold)


def _answers(
    db: sqlite_utils.Database, pairs: list[tuple[dict, dict]], model: str, run_id: str
) -> dict[tuple[int, str], tuple[str, str]]:
    """Free-text answers ``{(article_id, question_id): (text, status)}`` via the model layer."""

    reqs = [
        LLMRequest(
            model=model,
            context=a["text"],
            task="answer",
            max_tokens=200,
            prompt=render_prompt("exam_answer", question=q["question"]),
            fields={"question": q["question"], "context": a["text"], "title": ""},
            purpose="exam-answer",
            tags={"system": a["system"]},
        )
        for a, q in pairs
    ]
    out = {}
    for (a, q), resp in zip(pairs, complete_many(db, reqs, run_id=run_id, progress=len(reqs) > 50)):
        text = (resp.text or "").strip()
        out[(a["id"], q["id"])] = (text, "error" if resp.error else ("ok" if text else "abstained"))
    return out


def _model_grades(
    db: sqlite_utils.Database,
    pairs: list[tuple[dict, dict]],
    model: str,
    verification: str,
    threshold: float,
    run_id: str,
    rater_model: str | None,
) -> list[Grade]:
    """Grade with a configured model through :mod:`core.llm`."""

    reqs, kinds = [], []
    for a, q in pairs:
        if q["choices"]:
            listing = "\n".join(f"{k}) {v}" for k, v in q["choices"].items())
            prompt, name = (
                render_prompt("exam_answer_mc", question=q["question"], choices=listing),
                "exam_answer_mc",
            )
            task = "exam_answer_mc"
        elif verification == "self_rating":
            prompt = render_prompt("exam_answerability", question=q["question"])
            name, task = "exam_answerability", "exam_answerability"
        else:
            prompt, name, task = (
                render_prompt("exam_answer", question=q["question"]),
                "exam_answer",
                "answer",
            )
        reqs.append(
            LLMRequest(
                model=model,
                context=a["text"],
                prompt=prompt,
                task=task,
                max_tokens=300,
                purpose="exam-grade",
                tags={"system": a["system"]},
                fields={
                    "question": q["question"],
                    "context": a["text"],
                    "title": "",
                    "choices": q["choices"],
                },
            )
        )
        kinds.append(name)
    grades = []
    for (a, q), name, resp in zip(
        pairs, kinds, complete_many(db, reqs, run_id=run_id, progress=len(reqs) > 50)
    ):
        g = Grade(
            article_id=a["id"],
            question_id=q["id"],
            raw=resp.text or "",
            prompt_hash=prompt_hash(name),
        )
        if resp.error:
            g.status, g.raw = "error", resp.error
        elif q["choices"]:
            key = parse_choice(resp.text, list(q["choices"]))
            g.answer = key or ""
            g.status, g.correct = (
                ("ok", int(key == q["correct_key"])) if key else ("unparsed", None)
            )
        elif verification == "self_rating":
            g.self_rating, g.answer = parse_rating(resp.text)
            g.status = "ok" if g.self_rating is not None else "unparsed"
            g.correct = int(g.self_rating >= threshold) if g.self_rating is not None else None
        else:
            g.answer = (resp.text or "").strip()
            _ground_truth_lexical(g, q, threshold)
        grades.append(g)
    if verification == "ground_truth" and rater_model:
        _rate_with_model(db, pairs, grades, rater_model, run_id)
    return grades


def _rate_with_model(
    db: sqlite_utils.Database,
    pairs: list[tuple[dict, dict]],
    grades: list[Grade],
    rater_model: str,
    run_id: str,
) -> None:
    """Replace the lexical verdict by a ``match_reference`` rater's yes/no."""

    todo = [
        (i, q)
        for i, ((_a, q), g) in enumerate(zip(pairs, grades))
        if not q["choices"] and g.status == "ok"
    ]
    reqs = [
        LLMRequest(
            model=rater_model,
            task="match_reference",
            max_tokens=300,
            purpose="exam-rate",
            fields={
                "question": q["question"],
                "answer": grades[i].answer,
                "references": _references(q),
            },
        )
        for i, q in todo
    ]
    for (i, _q), resp in zip(todo, complete_many(db, reqs, run_id=run_id)):
        verdict = None if resp.error else parse_reply(resp.text or "", "absolute").verdict
        g = grades[i]
        g.extra["rater"] = rater_model
        if verdict in ("yes", "no"):
            g.correct = int(verdict == "yes")
        else:
            g.status, g.correct, g.raw = "unparsed", None, resp.error or resp.text or ""


def grade_bank(
    db: sqlite_utils.Database,
    bank_id: str,
    *,
    qa_model: str = OFFLINE,
    verification: str = "self_rating",
    threshold: float | None = None,
    systems: list[str] | None = None,
    rater_model: str | None = None,
    run_id: str | None = None,
) -> str:
    """Grade every stored article of ``bank_id`` on its query's exam questions; returns the run id.

    The run (``runs`` + ``exam_runs``) and all its grades are written in one transaction after
    grading; re-running the same configuration replaces the run's grades.
    """
    if verification not in VERIFICATIONS:
        raise ConfigError(f"unknown verification {verification!r}; use one of {VERIFICATIONS}")
    if qa_model.startswith(OFFLINE + ":"):
        raise ConfigError(
            f"--qa-model {qa_model}: the offline Q/A system is '{OFFLINE}', which "
            "runs offline:mc-bm25 (multiple choice), offline:extractive (answers) "
            "and offline:lexical-answerability (0-5 grade) together"
        )
    threshold = DEFAULT_THRESHOLD[verification] if threshold is None else float(threshold)
    top = 5.0 if verification == "self_rating" else 1.0
    if not 0.0 <= threshold <= top:
        what = "a 0-5 self-rating" if top == 5.0 else "a token F1 in [0, 1]"
        raise ConfigError(f"threshold {threshold:g} is out of range for {verification} ({what})")
    if rater_model and verification != "ground_truth":
        raise ConfigError(
            "--rater-model is the ground-truth rater: use it with verification ground_truth"
        )
    questions = bank_questions(db, bank_id)
    if not questions:
        raise InputError(f"exam bank {bank_id!r} has no questions (import it first)")
    if verification == "ground_truth":
        free = [q for q in questions if not q["choices"]]
        if free and not any(_references(q) for q in free):
            raise ConfigError(
                f"exam bank {bank_id!r}: none of its {len(free)} free-text "
                "questions has a reference answer, so the ground-truth rater has "
                "nothing to compare with; use verification self_rating"
            )
    by_query: dict[str, list[dict]] = {}
    for q in questions:
        by_query.setdefault(q["query_id"], []).append(q)
    arts = rows(
        db,
        "select id, query_id, system, text from exam_articles where bank_id = ? "
        "order by system, query_id",
        [bank_id],
    )
    if systems is not None:
        arts = [a for a in arts if a["system"] in set(systems)]
    if not arts:
        raise InputError(f"exam bank {bank_id!r} has no articles to grade")
    pairs = [(a, q) for a in arts for q in by_query.get(a["query_id"], [])]
    run_id = run_id or f"exam:{bank_id}:{qa_model}:{verification}:{threshold:g}"
    config = {
        "bank_id": bank_id,
        "qa_model": qa_model,
        "verification": verification,
        "threshold": threshold,
        "rater_model": rater_model,
        "systems": systems,
    }
    now = utcnow()
    if not db.execute("select 1 from runs where id = ?", [run_id]).fetchone():
        start_run(db, "exam", f"EXAM {bank_id}", config, run_id=run_id, started_at=now)
    try:
        if qa_model == OFFLINE:
            grades = _offline_grades(db, pairs, verification, threshold, run_id)
        else:
            grades = _model_grades(
                db, pairs, qa_model, verification, threshold, run_id, rater_model
            )
    except BaseException:
        finish_run(db, run_id, "failed", None)
        raise
    with transaction(db):
        db.execute("delete from exam_grades where run_id = ?", [run_id])
        db["exam_runs"].upsert(
            {
                "id": run_id,
                "bank_id": bank_id,
                "qa_model": qa_model,
                "verification": verification,
                "threshold": threshold,
                "config": dumps(config),
                "created_at": now,
            },
            pk="id",
        )
        db["exam_grades"].insert_all(
            (
                {
                    "run_id": run_id,
                    "article_id": g.article_id,
                    "question_id": g.question_id,
                    "answer": g.answer,
                    "self_rating": g.self_rating,
                    "score": g.score,
                    "correct": g.correct,
                    "status": g.status,
                    "raw": g.raw[:4000],
                    "prompt_hash": g.prompt_hash,
                    "rater": str(g.extra.get("rater") or ""),
                    "created_at": now,
                }
                for g in grades
            ),
            batch_size=500,
        )
        finish_run(db, run_id, "done", None, config=config)
    return run_id
