"""Experiment files (TOML) and the resumable runner: answers, judgments, tournament, disputes.

``run_experiment(db, path_or_config)`` validates everything first - file syntax, systems, judges,
models and keys, questions and their books, every context against its model's window - and only
then writes: a rerun skips stored answers and judgments. ``dry_run=True`` plans and prices the
calls without sending or writing anything. The report is :mod:`core.pipeline.report`.
"""

from __future__ import annotations

import time
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.answering.answer_runs import plan_answers, run_answers
from core.answering.systems import book_of, check_system_setup, load_questions
from core.corpus.confusables import check_lookalikes
from core.errors import InputError
from core.judging.runner import plan_absolute, plan_pairwise, run_items
from core.judging.specs import Judge, check_judge_setup
from core.judging.tournament import (
    AdaptiveDesign,
    canonical_verdict,
    full_design,
    order_for,
    sample_questions,
    shown,
)
from core.llm.engine import preflight
from core.llm.stage import over_limit
from core.pipeline.config import check_models, load_experiment, question_statuses
from core.pipeline.grounding import find_disputes
from core.pipeline.report import dry_run_summary, judge_preview
from core.pipeline.schema import Experiment
from core.pipeline.trust import answer_failure_shares, failure_line, failure_shares
from core.store.answers import Answer, answers_of_systems
from core.store.connection import dumps, transaction, utcnow
from core.store.experiments import (
    ExperimentStatus,
    finish_experiment,
    get_experiment,
    save_experiment_start,
    stored_experiments,
)
from core.store.judge_runs import run_judgments
from core.store.judgment_counts import summary_by_rater
from core.store.judgments import JudgmentStatus, effective_judgments
from core.store.questions import Question, sample_question_ids
from core.store.runs import RunStatus, experiment_runs, finish_run, start_run
from core.store.setups import system_names

if TYPE_CHECKING:
    from core.store.engine import Database


def select_questions(db: Database, exp: Experiment) -> list[Question]:
    """The experiment's sample: filtered by ``[data]`` (review statuses: accepted and edited
    unless it says otherwise, :func:`core.pipeline.config.question_statuses`), ``c`` drawn with
    ``seed``. Listed ``question_ids`` of another status are an error, not silently dropped."""
    data = exp.data
    statuses = question_statuses(data)
    if data.question_ids:
        ids = list(data.question_ids)
        bad = [q for q in load_questions(db, ids) if q.status not in statuses]
        if bad:
            raise InputError(
                f"experiment {exp.name!r}: [data] question_ids {', '.join(q.id for q in bad)} "
                f"have status {', '.join(sorted({str(q.status) for q in bad}))}, not one of "
                f"{', '.join(statuses)}; add include_unreviewed = true or a status list to [data]"
            )
    else:
        ids = sample_question_ids(
            db,
            equal={
                "origin": data.origin,
                "split": data.split,
                "context_kind": data.context_kind,
                "language": data.language,
            },
            any_of={"document_id": list(data.documents or []), "status": statuses},
        )
    if not ids:
        raise InputError(
            f"experiment {exp.name!r}: no questions match [data] "
            f"{data.model_dump(exclude_none=True)} "
            f"(review statuses {', '.join(statuses)})"
        )
    return load_questions(db, sample_questions(ids, exp.c, exp.seed))


def _check_books(db: Database, questions: list[Question]) -> None:

    for q in questions:
        book_of(db, q)


def _preflight(requests: list[Any], missing_keys: list[str]) -> None:
    """Every planned request checked by the model layer before the first write: provider, key,
    window and whether the model can do the task (e.g. an unknown ``offline:`` baseline, or a
    baseline asked for a task it does not implement). Models without a key (dry run) get the
    checks that need no client."""

    unique = list({id(r): r for r in requests}.values())
    preflight([r for r in unique if r.model not in missing_keys])
    preflight([r for r in unique if r.model in missing_keys], keys=False)


#: How to override a look-alike refusal of :func:`_check_stored_setups`.
LOOKALIKE_HINT = " (pass --allow-lookalike to run it anyway)"


def _check_stored_setups(db: Database, exp: Experiment, allow_lookalike: bool = False) -> None:
    """A system or judge name already stored with another setup is an error before any write
    (otherwise a rerun would silently mix the old setup's answers or judgments into the new);
    so is, unless ``allow_lookalike``, a new system or judge whose name looks like a different
    stored one (the same confusable skeleton, Unicode TR39: a Cyrillic look-alike of ``gpt4``
    would otherwise start a second system that reads as the first)."""
    for system in exp.systems:
        check_system_setup(db, system)
    for judge in exp.judges:
        check_judge_setup(db, judge)
    if not allow_lookalike:
        check_lookalikes(
            [s.name for s in exp.systems], system_names(db), "system", hint=LOOKALIKE_HINT
        )
        check_lookalikes(
            [j.rater for j in exp.judges],
            [r.rater for r in summary_by_rater(db)],
            "rater",
            hint=LOOKALIKE_HINT,
        )


# ---------------------------------------------------------------------------------------------
# Running
# ---------------------------------------------------------------------------------------------


def _answers_of(db: Database, exp: Experiment, qids: list[str]) -> list[Answer]:
    keep = set(qids)
    return [
        a for a in answers_of_systems(db, [s.name for s in exp.systems]) if a.question_id in keep
    ]


def _run_tournament(
    db: Database,
    exp: Experiment,
    judge: Judge,
    questions: dict[str, Question],
    answers: dict[tuple[str, str], Answer],
    run_id: str,
    progress: bool,
) -> dict[str, int]:
    names = [s.name for s in exp.systems]
    qids = list(questions)
    if exp.tournament.design == "full":
        comps = full_design(
            qids, names, rater=judge.rater, seed=exp.seed, both_orders=judge.both_orders
        )
        items = plan_pairwise(db, judge, comps, answers, questions, any_order=not judge.both_orders)
        return run_items(db, items, run_id=run_id, progress=progress)
    design = AdaptiveDesign(names, qids, seed=exp.seed)
    for r in effective_judgments(db, rater=judge.rater, kind="pairwise"):
        if r.status == JudgmentStatus.ERROR:
            continue
        if r.question_id in questions and r.system_a in names and r.system_b in names:
            comp = shown(r.question_id, (r.system_a, r.system_b), r.order_shown)
            design.observe(
                r.question_id,
                comp.pair,
                canonical_verdict(comp, r.verdict) if r.status == JudgmentStatus.OK else None,
            )
    total = sum(1 for _ in full_design(qids, names))
    budget = int(round(exp.tournament.budget * total))
    counts = {"judged": 0, "unparsed": 0, "errors": 0}
    from tqdm import tqdm

    bar = tqdm(
        total=budget,
        initial=min(budget, total - design.remaining),
        disable=None if progress else True,  # None: no bar off a terminal
        desc=f"adaptive {judge.name}",
        unit="call",
    )
    try:
        _adaptive_loop(
            db, exp, judge, design, questions, answers, run_id, total, budget, counts, bar
        )
    finally:
        bar.close()
    return counts


def _adaptive_loop(
    db: Database,
    exp: Experiment,
    judge: Judge,
    design: AdaptiveDesign,
    questions: dict[str, Question],
    answers: dict[tuple[str, str], Answer],
    run_id: str,
    total: int,
    budget: int,
    counts: dict[str, int],
    bar: Any,
) -> None:
    """Choose a batch where it most reduces the ranking's uncertainty, judge it, refit; repeat
    until ``budget`` of the full design's ``total`` calls are spent."""
    while total - design.remaining < budget and design.remaining:
        chosen = design.next(min(exp.tournament.batch, budget - (total - design.remaining)))
        if not chosen:
            break
        comps = [shown(q, pair, _order(judge, q, pair, exp.seed)) for q, pair in chosen]
        items = plan_pairwise(db, judge, comps, answers, questions)
        result = run_items(db, items, run_id=run_id, progress=False)
        for k in counts:
            counts[k] += result[k]
        planned = {(c.question_id, c.pair) for i in items if (c := i.comparison) is not None}
        stored = {
            (r.question_id, tuple(sorted((r.system_a or "", r.system_b or "")))): r
            for r in run_judgments(db, judge.rater, run_id, "pairwise")
        }
        for q, pair in chosen:
            r = stored.get((q, pair)) if (q, pair) in planned else None
            verdict = None
            if r is not None and r.status == JudgmentStatus.OK:
                verdict = canonical_verdict(shown(q, pair, r.order_shown), r.verdict)
            design.observe(q, pair, verdict)
        bar.update(len(chosen))


def _order(judge: Judge, q: str, pair: tuple[str, str], seed: int) -> str:

    return order_for(judge.rater, q, *pair, seed=seed)


def run_experiment(
    db: Database,
    path_or_config: Experiment | str | Path | dict[str, Any],
    dry_run: bool = False,
    progress: bool = True,
    allow_lookalike: bool = False,
) -> dict[str, Any]:
    """Run (or with ``dry_run`` only plan and price) an experiment; return a summary dict.

    Everything is validated before the first request and the first write. A rerun skips what
    is stored, so an interrupted run resumes. ``allow_lookalike``: see
    :func:`_check_stored_setups`.
    """
    started = time.perf_counter()
    exp = (
        path_or_config
        if isinstance(path_or_config, Experiment)
        else load_experiment(path_or_config)
    )
    missing_keys = check_models(exp, allow_missing_keys=dry_run)
    questions = select_questions(db, exp)
    _check_books(db, questions)
    planned = plan_answers(db, exp.systems, questions)
    preview = judge_preview(db, exp, questions, planned)
    _preflight([p.request for p in planned] + [r for r, _ in preview], missing_keys)
    _check_stored_setups(db, exp, allow_lookalike)
    if dry_run:
        return dry_run_summary(db, exp, questions, planned, preview, missing_keys)
    run_id = f"exp-{exp.name}-{uuid.uuid4().hex[:8]}"
    before = get_experiment(db, exp.name)
    now = utcnow()
    qids = [q.id for q in questions]
    with transaction(db):
        start_run(db, "experiment", exp.name, exp.config(), run_id=run_id, started_at=now)
        save_experiment_start(
            db,
            name=exp.name,
            path=exp.path,
            config=exp.config(),
            question_ids=qids,
            run_id=run_id,
            now=now,
        )
    summary: dict[str, Any] = {"experiment": exp.name, "run_id": run_id, "questions": len(qids)}
    if before and before.status in (ExperimentStatus.INTERRUPTED, ExperimentStatus.FAILED):
        summary["resumed_from"] = before.run_id  # stored answers and judgments are skipped
    try:
        summary["answers"] = run_answers(db, planned, run_id=run_id, progress=progress)
        failed_answers = over_limit(answer_failure_shares(db, exp, qids), exp.max_failure_share)
        if failed_answers:  # judging broken answers would only spend money: stop here
            summary["failure_summary"] = failure_line(
                exp.name, failed_answers, {}, exp.max_failure_share
            )
            summary["seconds"] = round(time.perf_counter() - started, 2)
            _finish(db, exp.name, run_id, RunStatus.FAILED, summary)
            return summary
        qmap = {q.id: q for q in questions}
        answers = _answers_of(db, exp, qids)
        amap = {(a.question_id, a.system): a for a in answers}
        summary["judges"] = {}
        for judge in exp.absolute_judges:
            items = plan_absolute(db, judge, answers, qmap)
            summary["judges"][judge.name] = run_items(db, items, run_id=run_id, progress=progress)
        for judge in exp.pairwise_judges:
            summary["judges"][judge.name] = _run_tournament(
                db, exp, judge, qmap, amap, run_id, progress
            )
        if exp.grounding:
            summary["disputes"] = find_disputes(
                db,
                f"auto:{exp.grounding.reference}",
                f"auto:{exp.grounding.context}",
                question_ids=qids,
                systems=[s.name for s in exp.systems],
                run_id=run_id,
            )
    except BaseException as exc:
        status = RunStatus.INTERRUPTED if isinstance(exc, KeyboardInterrupt) else RunStatus.FAILED
        _finish(db, exp.name, run_id, status, {**summary, "error": str(exc)[:500]})
        raise
    summary["seconds"] = round(time.perf_counter() - started, 2)
    over = over_limit(failure_shares(db, exp, qids), exp.max_failure_share)
    if over:
        summary["failure_summary"] = failure_line(exp.name, {}, over, exp.max_failure_share)
    _finish(db, exp.name, run_id, RunStatus.FAILED if over else RunStatus.DONE, summary)
    return summary


def _finish(
    db: Database, name: str, run_id: str, status: RunStatus, summary: dict[str, Any]
) -> None:
    now = utcnow()
    with transaction(db):
        finish_run(db, run_id, status, dumps(summary)[:2000], finished_at=now)
        finish_experiment(db, name, ExperimentStatus(status), summary, now)


def list_experiments(db: Database) -> list[dict[str, Any]]:
    """Stored experiments (name, status, updated_at, number of questions) with their runs
    (id, status, started_at, finished_at, pid, host), newest first. Runs whose process died
    were marked ``interrupted`` when the database was opened."""

    runs: dict[str, list[dict[str, Any]]] = {}
    for r in experiment_runs(db):
        runs.setdefault(r.name, []).append(
            {
                "id": r.id,
                "status": str(r.status),
                "started_at": r.started_at,
                "finished_at": r.finished_at,
                "pid": r.pid,
                "host": r.host,
            }
        )
    return [
        {
            "name": e.name,
            "status": str(e.status),
            "updated_at": e.updated_at,
            "questions": len(e.question_ids),
            "runs": runs.get(e.name, []),
        }
        for e in stored_experiments(db)
    ]
