"""How far a report can be trusted: failed answers per system and unparsed/failed verdicts per
judge (both held to the one ``max_failure_share`` rule, :func:`core.llm.stage.over_limit`), the questions every
system answered (:func:`comparison_questions`: systems are compared on those only), systems
without usable verdicts, intervals resting on too few questions (flagged "too few questions for
an interval" rather than printed as if precise), unreviewed questions and interrupted runs. Used
by the report, the runner's exit status and the views.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from core.llm.stage import limit_line, over_limit, share_part
from core.store.answers import AnswerStatus, answers_of_systems
from core.store.experiments import ExperimentStatus
from core.store.judgments import Judgment, JudgmentKind, JudgmentStatus, effective_judgments
from core.store.questions import questions_by_id

if TYPE_CHECKING:
    from core.pipeline.schema import Experiment
    from core.store.engine import Database

#: Intervals resting on fewer questions with decisive verdicts than this are flagged.
MIN_INTERVAL_QUESTIONS = 10
TOO_FEW = "too few questions for an interval"


def latest_judgments(
    db: Database, rater: str, kind: str, qids: set[str], systems: set[str]
) -> list[Judgment]:
    """Latest (not superseded) judgments of ``rater`` over these questions and systems."""
    found = effective_judgments(db, rater=rater, kind=kind)
    if kind == JudgmentKind.ABSOLUTE:
        return [r for r in found if r.question_id in qids and r.system in systems]
    return [
        r
        for r in found
        if r.question_id in qids and r.system_a in systems and r.system_b in systems
    ]


def failure_shares(db: Database, exp: Experiment, qids: list[str]) -> dict[str, dict[str, Any]]:
    """Per judge: stored verdicts (latest per item) over the experiment's questions and systems,
    how many were unparsed or failed, and that share."""
    qset, sset = set(qids), {s.name for s in exp.systems}
    out = {}
    for judge in exp.judges:
        kind = "pairwise" if judge.pairwise else "absolute"
        js = latest_judgments(db, judge.rater, kind, qset, sset)
        failed = sum(1 for r in js if r.status in (JudgmentStatus.UNPARSED, JudgmentStatus.ERROR))
        out[judge.name] = {
            "n": len(js),
            "failed": failed,
            "share": round(failed / len(js), 4) if js else 0.0,
        }
    return out


def answer_failure_shares(
    db: Database, exp: Experiment, qids: list[str]
) -> dict[str, dict[str, Any]]:
    """Per system: stored answers over the experiment's questions, how many failed (status
    ``error``: no reply, or a reply the provider layer could not read), and that share."""
    qset = set(qids)
    out = {s.name: {"n": 0, "failed": 0, "share": 0.0} for s in exp.systems}
    for a in answers_of_systems(db, list(out)):
        if a.question_id in qset:
            out[a.system]["n"] += 1
            out[a.system]["failed"] += a.status == AnswerStatus.ERROR
    for f in out.values():
        f["share"] = round(f["failed"] / f["n"], 4) if f["n"] else 0.0
    return out


def failure_line(
    name: str, answers: dict[str, dict[str, Any]], judges: dict[str, dict[str, Any]], limit: float
) -> str:
    """The one ``error:`` line of a run that passed ``max_failure_share`` (stage, who, counts)."""
    parts = [share_part(f"answering: system {s}", f, "answers failed") for s, f in answers.items()]
    parts += [share_part(f"judge {j}", f, "verdicts unparsed or failed") for j, f in judges.items()]
    return limit_line(f"experiment {name}", parts, limit, f"see `report {name}`")


def comparison_questions(db: Database, exp: Experiment, qids: list[str]) -> dict[str, Any]:
    """The questions every system answered, on which the systems are compared.

    A question is left out (for every system) when some system's answer failed or is missing;
    a system with ``if_missing = "skip"`` that has no answer at all skipped the question by
    design (its oracle document is missing): listed under ``skipped``, not left out.
    Returns ``{"questions": [...], "left_out": {system: [...]}, "skipped": {system: [...]}}``
    (only systems with entries)."""
    status = {
        (a.question_id, a.system): a.status
        for a in answers_of_systems(db, [s.name for s in exp.systems])
    }
    left_out: dict[str, list[str]] = {}
    skipped: dict[str, list[str]] = {}
    for s in exp.systems:
        for q in qids:
            st = status.get((q, s.name))
            if st is None and s.if_missing == "skip":
                skipped.setdefault(s.name, []).append(q)
            elif st is None or st == AnswerStatus.ERROR:
                left_out.setdefault(s.name, []).append(q)
    dropped = {q for qs in left_out.values() for q in qs}
    return {
        "questions": [q for q in qids if q not in dropped],
        "left_out": left_out,
        "skipped": skipped,
    }


def question_statuses(db: Database, qids: list[str]) -> dict[str, int]:
    """How many of the questions are ``reviewed`` (accepted or edited), ``unreviewed``
    (pending), ``rejected`` or ``discarded`` (near-duplicates), by their status now."""
    out = {"reviewed": 0, "unreviewed": 0, "rejected": 0, "discarded": 0}
    for q in questions_by_id(db, qids).values():
        label = {"accepted": "reviewed", "edited": "reviewed", "pending": "unreviewed"}.get(
            q.status, str(q.status)
        )
        out[label] = out.get(label, 0) + 1
    return out


def _listed(ids: list[str], n: int = 10) -> str:
    return ", ".join(ids[:n]) + (f" and {len(ids) - n} more" if len(ids) > n else "")


def run_warnings(rep: dict[str, Any], max_failure_share: float) -> list[str]:
    """Warnings about the run and its inputs: an interrupted run, failed answers per system,
    questions left out of the comparison, unreviewed (or rejected) questions."""
    out = []
    if rep.get("status") == ExperimentStatus.INTERRUPTED:
        out.append("run interrupted: the results are partial; rerun the experiment file to resume")
    answers = rep.get("answer_failures", {})
    past = over_limit(answers, max_failure_share)
    for system, f in answers.items():
        if f["failed"]:
            over = f" (over max_failure_share {max_failure_share:.0%})" if system in past else ""
            out.append(
                f"answering: system {system}: {f['failed']} of {f['n']} answers failed "
                f"({f['share']:.0%}){over}"
            )
    comp = rep.get("comparison") or {}
    if comp.get("left_out"):
        n_all = rep.get("questions", 0)
        why = "; ".join(
            f"system {s} has no answer to {len(qs)}: {_listed(qs)}"
            for s, qs in comp["left_out"].items()
        )
        out.append(
            f"systems compared on the {len(comp['questions'])} of {n_all} questions all of "
            f"them answered; left out: {why}"
        )
    for label, n in (rep.get("question_statuses") or {}).items():
        if n and label != "reviewed":
            out.append(f"{label} questions: {n}")
    return out


def report_warnings(rep: dict[str, Any], max_failure_share: float = 0.2) -> list[str]:
    """What makes the numbers of a report untrustworthy, worst first: an interrupted run, failed
    answers, questions left out of the comparison, unreviewed questions, judges whose replies
    were mostly unparsed or failed, systems with no usable verdicts, intervals on too few
    questions."""
    out = run_warnings(rep, max_failure_share)
    judges = rep.get("failure_shares", {})
    past = over_limit(judges, max_failure_share)
    for judge, f in judges.items():
        if f["failed"]:
            over = f" (over max_failure_share {max_failure_share:.0%})" if judge in past else ""
            out.append(
                f"judge {judge}: {f['failed']} of {f['n']} verdicts unparsed or failed "
                f"({f['share']:.0%}){over}"
            )
    for judge, table in rep.get("accuracy", {}).items():
        for r in table:
            if r["n"] == 0:
                out.append(f"system {r['system']}: no usable verdicts from {judge}")
            elif r.get("too_few"):
                out.append(
                    f"accuracy of {r['system']} by {judge}: {TOO_FEW} "
                    f"({r['n_questions']} questions with a verdict, need {MIN_INTERVAL_QUESTIONS})"
                )
    for judge, board in rep.get("ranking", {}).items():
        if "error" in board:
            out.append(f"ranking by {judge}: {board['error']}")
        elif board.get("too_few"):
            out.append(
                f"ranking by {judge}: {TOO_FEW} ({board['n_questions']} questions with decisive "
                f"verdicts, need {MIN_INTERVAL_QUESTIONS})"
            )
    return out


def offline_scope(exp: Experiment) -> list[str]:
    """What the scores can and cannot show when a system or judge is an offline baseline
    (``offline:*``): empty when none is."""
    systems = sorted(s.name for s in exp.systems if s.model.startswith("offline:"))
    judges = sorted(j.name for j in exp.judges if j.model.startswith("offline:"))
    if not systems and not judges:
        return []
    out = []
    if systems:
        out.append(
            f"offline systems ({', '.join(systems)}) copy sentences out of the context they are "
            "given: their scores show what retrieval puts in front of a reader, not reading"
        )
    if judges:
        out.append(
            f"offline judges ({', '.join(judges)}) count shared words and names: they show "
            "whether an answer's words are in the text (and, for reference judges, how close "
            "it is to the reference), not whether it answers the question or reasons over "
            "the book; a reply naming every character a question chooses between scores 0, "
            "yet other hedges pass"
        )
    out.append(
        "offline scores can rank retrieval set-ups and check the pipeline end to end; they "
        "cannot show how well a model reads a long book: use a real model as system and judge"
    )
    return out
