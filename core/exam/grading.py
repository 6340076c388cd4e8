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

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypedDict

from core.corpus.sentences import best_token_f1
from core.errors import ConfigError, InputError
from core.exam.failures import final_status
from core.exam.lexical import ArticleIndex, choose_answer, index_article, lexical_answerability
from core.exam.replies import parse_choice, parse_rating
from core.judging.verdicts import parse_reply
from core.llm.prompts import prompt_hash, render_prompt
from core.llm.stage import run_stage
from core.llm.types import LLMRequest, LLMResponse
from core.store.connection import transaction, utcnow
from core.store.exam import graded_pairs, open_exam_run, rate_grade, save_grade, unrated_grades
from core.store.exam_bank import ExamQuestion, bank_articles, bank_questions
from core.store.judgments import AbsoluteVerdict
from core.store.runs import RunStatus, finish_run, run_exists, start_run

if TYPE_CHECKING:
    from core.store.engine import Database

VERIFICATIONS = ("self_rating", "ground_truth")
DEFAULT_THRESHOLD = {"self_rating": 4.0, "ground_truth": 0.5}
OFFLINE = "offline"
OFFLINE_ANSWERER = "offline:extractive"


class GradedArticle(TypedDict):
    """The columns of a stored ``exam_articles`` row that grading reads."""

    id: int
    query_id: str
    system: str
    text: str


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


def _grade_row(g: Grade, run_id: str, now: str) -> dict[str, Any]:
    return {
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
        "rater": "",  # set when a rater grades the answer (rate_grade)
        "created_at": now,
    }


def _offline_grades(
    db: Database,
    pairs: list[tuple[GradedArticle, ExamQuestion]],
    verification: str,
    threshold: float,
    run_id: str,
    now: str,
) -> None:
    """Grade with the offline baselines (free-text answers from ``offline:extractive``, each
    grade stored as its answer arrives; multiple choice by key, stored together first)."""
    indexes: dict[tuple[int, int], ArticleIndex] = {}

    def index(article: GradedArticle, sentences: int) -> ArticleIndex:
        key = (article["id"], sentences)
        if key not in indexes:
            indexes[key] = index_article(article["text"], sentences)
        return indexes[key]

    chosen = []  # computed before the transaction: it only writes (a short write lock)
    for article, q in pairs:
        if q.choices:
            g = Grade(article_id=article["id"], question_id=q.id)
            d = choose_answer(index(article, 1), q.question, q.choices)
            g.answer, g.score = d.key or "", d.margin
            g.status = "ok" if d.key else "abstained"
            g.correct = int(d.key is not None and d.key == q.correct_key)
            chosen.append(_grade_row(g, run_id, now))
    with transaction(db):
        for row in chosen:
            save_grade(db, row)

    def store(db: Database, pair: tuple[GradedArticle, ExamQuestion], resp: LLMResponse) -> str:
        article, q = pair
        g = Grade(article_id=article["id"], question_id=q.id)
        g.answer = (resp.text or "").strip()
        g.status = "error" if resp.error else ("ok" if g.answer else "abstained")
        if verification == "self_rating":
            g.self_rating, g.score = lexical_answerability(index(article, 3), q.question)
            g.correct = int(g.self_rating >= threshold)
        else:
            _ground_truth_lexical(g, q, threshold)
        save_grade(db, _grade_row(g, run_id, now))
        return g.status

    free = [(a, q) for a, q in pairs if not q.choices]
    run_stage(
        db, _answer_requests(free, OFFLINE_ANSWERER), store, run_id=run_id, progress=len(free) > 50
    )


def _references(q: ExamQuestion) -> list[str]:
    """Reference answers of a free-text exam question (derived answers, CAR ``correct``)."""
    return [r for r in (q.answers or []) + ([q.correct] if q.correct else []) if r]


def _ground_truth_lexical(g: Grade, q: ExamQuestion, threshold: float) -> None:
    refs = _references(q)
    if not refs:
        g.status, g.correct = "error", None
        g.raw = "no reference answer for the ground-truth rater"
        return
    g.score = best_token_f1(g.answer, refs)
    g.correct = int(g.score >= threshold)


def _answer_requests(
    pairs: list[tuple[GradedArticle, ExamQuestion]], model: str
) -> list[tuple[tuple[GradedArticle, ExamQuestion], LLMRequest]]:
    """The free-text answer request of each ``(article, question)`` pair (nothing sent)."""
    return [
        (
            (a, q),
            LLMRequest(
                model=model,
                context=a["text"],
                task="answer",
                max_tokens=200,
                prompt=render_prompt("exam_answer", question=q.question),
                fields={"question": q.question, "context": a["text"], "title": ""},
                purpose="exam-answer",
                tags={"system": a["system"]},
            ),
        )
        for a, q in pairs
    ]


def _grade_request(
    model: str, a: GradedArticle, q: ExamQuestion, verification: str
) -> tuple[str, LLMRequest]:
    """``(prompt name, request)`` of the Q/A model for one pair (nothing sent)."""
    if q.choices:
        listing = "\n".join(f"{k}) {v}" for k, v in q.choices.items())
        prompt = render_prompt("exam_answer_mc", question=q.question, choices=listing)
        name, task = "exam_answer_mc", "exam_answer_mc"
    elif verification == "self_rating":
        prompt = render_prompt("exam_answerability", question=q.question)
        name, task = "exam_answerability", "exam_answerability"
    else:
        prompt = render_prompt("exam_answer", question=q.question)
        name, task = "exam_answer", "answer"
    return name, LLMRequest(
        model=model,
        context=a["text"],
        prompt=prompt,
        task=task,
        max_tokens=300,
        purpose="exam-grade",
        tags={"system": a["system"]},
        fields={
            "question": q.question,
            "context": a["text"],
            "title": "",
            "choices": q.choices,
        },
    )


def _model_grades(
    db: Database,
    pairs: list[tuple[GradedArticle, ExamQuestion]],
    model: str,
    verification: str,
    threshold: float,
    run_id: str,
    now: str,
) -> None:
    """Grade with a configured model through :mod:`core.llm`: an LLM stage, each grade stored
    in its own transaction as its reply arrives."""

    planned = []
    for a, q in pairs:
        name, request = _grade_request(model, a, q, verification)
        planned.append(((a, q, name), request))

    def store(db: Database, job: tuple[GradedArticle, ExamQuestion, str], resp: LLMResponse) -> str:
        a, q, name = job
        g = Grade(
            article_id=a["id"],
            question_id=q.id,
            raw=resp.text or "",
            prompt_hash=prompt_hash(name),
        )
        if resp.error:
            g.status, g.raw = "error", resp.error
        elif q.choices:
            key = parse_choice(resp.text, list(q.choices))
            g.answer = key or ""
            g.status, g.correct = ("ok", int(key == q.correct_key)) if key else ("unparsed", None)
        elif verification == "self_rating":
            g.self_rating, g.answer = parse_rating(resp.text)
            g.status = "ok" if g.self_rating is not None else "unparsed"
            g.correct = int(g.self_rating >= threshold) if g.self_rating is not None else None
        else:
            g.answer = (resp.text or "").strip()
            _ground_truth_lexical(g, q, threshold)
        save_grade(db, _grade_row(g, run_id, now))
        return g.status

    run_stage(db, planned, store, run_id=run_id, progress=len(planned) > 50)


def _rate_with_model(
    db: Database, questions: dict[str, ExamQuestion], rater_model: str, run_id: str
) -> None:
    """Replace the lexical verdict of every answered free-text grade of the run not rated yet
    by a ``match_reference`` rater's yes/no (an LLM stage: each verdict stored as it arrives).
    A rater's provider failure stores the grade as ``error``, so the rerun asks again."""

    planned = [
        (
            g["id"],
            LLMRequest(
                model=rater_model,
                task="match_reference",
                max_tokens=300,
                purpose="exam-rate",
                fields={
                    "question": q.question,
                    "answer": g["answer"],
                    "references": _references(q),
                },
            ),
        )
        for g in unrated_grades(db, run_id)
        if not (q := questions[g["question_id"]]).choices
    ]

    def store(db: Database, grade_id: int, resp: LLMResponse) -> str:
        if resp.error:
            rate_grade(
                db, grade_id, rater=rater_model, correct=None, status="error", raw=resp.error
            )
            return "error"
        verdict = parse_reply(resp.text or "", "absolute").verdict
        if verdict in (AbsoluteVerdict.YES, AbsoluteVerdict.NO):
            rate_grade(
                db,
                grade_id,
                rater=rater_model,
                correct=int(verdict == AbsoluteVerdict.YES),
                status="ok",
            )
            return "ok"
        rate_grade(
            db, grade_id, rater=rater_model, correct=None, status="unparsed", raw=resp.text or ""
        )
        return "unparsed"

    run_stage(db, planned, store, run_id=run_id)


def grade_bank(
    db: Database,
    bank_id: str,
    *,
    qa_model: str = OFFLINE,
    verification: str = "self_rating",
    threshold: float | None = None,
    systems: list[str] | None = None,
    rater_model: str | None = None,
    run_id: str | None = None,
    max_failure_share: float = 0.2,
) -> str:
    """Grade every stored article of ``bank_id`` on its query's exam questions; returns the run id.

    It ends ``failed`` when too many grades have no verdict (:func:`core.exam.failures.final_status`).
    An LLM stage (:func:`core.llm.stage.run_stage`): the run (``runs`` + ``exam_runs``) is
    written first, then each grade in its own short transaction as its reply arrives, so an
    interrupted run keeps its grades. Re-running the same configuration grades only the pairs
    without a grade (or with a provider error) and rates only the grades not rated yet; a run
    id graded before with another configuration has its grades replaced.
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
        free = [q for q in questions if not q.choices]
        if free and not any(_references(q) for q in free):
            raise ConfigError(
                f"exam bank {bank_id!r}: none of its {len(free)} free-text "
                "questions has a reference answer, so the ground-truth rater has "
                "nothing to compare with; use verification self_rating"
            )
    by_query: dict[str, list[ExamQuestion]] = {}
    for q in questions:
        by_query.setdefault(q.query_id, []).append(q)
    arts = [
        GradedArticle(id=a["id"], query_id=a["query_id"], system=a["system"], text=a["text"])
        for a in bank_articles(db, bank_id)
    ]
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
    if not run_exists(db, run_id):
        start_run(db, "exam", f"EXAM {bank_id}", config, run_id=run_id, started_at=now)
    open_exam_run(
        db,
        {
            "id": run_id,
            "bank_id": bank_id,
            "qa_model": qa_model,
            "verification": verification,
            "threshold": threshold,
            "config": config,
            "created_at": now,
        },
    )
    done = graded_pairs(db, run_id)
    todo = [(a, q) for a, q in pairs if (a["id"], q.id) not in done]
    try:
        if qa_model == OFFLINE:
            _offline_grades(db, todo, verification, threshold, run_id, now)
        else:
            _model_grades(db, todo, qa_model, verification, threshold, run_id, now)
            if verification == "ground_truth" and rater_model:
                _rate_with_model(db, {q.id: q for q in questions}, rater_model, run_id)
    except BaseException:
        finish_run(db, run_id, RunStatus.FAILED, None)
        raise
    finish_run(db, run_id, final_status(db, run_id, max_failure_share), None, config=config)
    return run_id
